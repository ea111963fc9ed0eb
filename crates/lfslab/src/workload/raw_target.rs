//! The raw device as a driver target: each clone has an NVMe queue pair of
//! depth `iodepth`; writes are recorded in the data oracle at submission
//! and reads are checked against it.

use super::driver::{IoTarget, Op, OpKind};
use crate::ftl::Ssd;
use crate::nand::Lpn;
use crate::nvme::{Command, CommandId, Opcode, QueuePair, Status};
use crate::oracle::{DataOracle, DataTag, Fingerprint};
use crate::sim::SimTime;
use std::convert::Infallible;

pub struct RawTarget<'a> {
    pub ssd: &'a mut Ssd,
    pub oracle: &'a mut DataOracle,
    qps: Vec<QueuePair>,
    next_id: u64,
    data: Vec<Option<Fingerprint>>,
}

impl<'a> RawTarget<'a> {
    /// `depths`: queue depth of each clone, in clone order.
    pub fn new(ssd: &'a mut Ssd, oracle: &'a mut DataOracle, depths: impl Iterator<Item = u32>) -> Self {
        RawTarget { ssd, oracle, qps: depths.map(|d| QueuePair::new(d as usize + 1)).collect(), next_id: 0, data: Vec::new() }
    }
}

impl IoTarget for RawTarget<'_> {
    type Error = Infallible;

    fn issue(&mut self, clone: usize, op: &Op, at: SimTime) -> Result<SimTime, Infallible> {
        self.next_id += 1;
        let id = CommandId(self.next_id);
        let slba = Lpn(op.off);
        let opcode = match op.kind {
            OpKind::Read => Opcode::Read { slba, nlb: op.blocks },
            OpKind::Write => {
                let tag = DataTag(op.tag);
                for i in 0..op.blocks as u64 {
                    self.oracle.record_write(Lpn(slba.0 + i), tag.block(i));
                }
                Opcode::Write { slba, nlb: op.blocks, stream: 0, data: tag }
            }
            OpKind::Trim => {
                for i in 0..op.blocks as u64 {
                    self.oracle.record_trim(Lpn(slba.0 + i));
                }
                Opcode::Discard { slba, nlb: op.blocks }
            }
            OpKind::Sync | OpKind::Datasync => Opcode::Flush,
        };
        let qp = &mut self.qps[clone];
        qp.submit(at, Command { id, op: opcode }).expect("driver respects the queue depth");
        let (t, cmd) = qp.fetch().expect("just submitted");
        let c = self.ssd.execute(t, &cmd, &mut self.data);
        assert_eq!(c.status, Status::Success, "workload issued an invalid command {cmd:?}");
        if op.kind == OpKind::Read {
            for (i, got) in self.data.iter().enumerate() {
                self.oracle.check(Lpn(slba.0 + i as u64), *got);
            }
        }
        // The host reaps the completion when the driver delivers it; the
        // queue only bounds what is outstanding.
        qp.post(c);
        qp.reap();
        Ok(c.at)
    }

    fn hint(&mut self, _clone: usize, soon: &Op, later: &Op) {
        self.ssd.prefetch_write(Lpn(later.off), 0);
        self.oracle.prefetch(Lpn(later.off));
        self.ssd.prefetch_write(Lpn(soon.off), 1);
    }
}
