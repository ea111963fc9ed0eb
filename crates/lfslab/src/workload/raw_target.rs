//! The raw device as a driver target: the driver keeps each clone's
//! `iodepth` commands outstanding, and the device executes a command when
//! it is submitted (its timelines give the completion); writes are
//! recorded in the data oracle at submission and reads are checked
//! against it.

use super::driver::{IoTarget, Op, OpKind};
use crate::ftl::Ssd;
use crate::nand::Lpn;
use crate::nvme::{Command, CommandId, Opcode, Status};
use crate::oracle::{DataOracle, DataTag, Fingerprint};
use crate::sim::SimTime;
use std::convert::Infallible;

pub struct RawTarget<'a> {
    pub ssd: &'a mut Ssd,
    pub oracle: &'a mut DataOracle,
    next_id: u64,
    data: Vec<Option<Fingerprint>>,
}

impl<'a> RawTarget<'a> {
    pub fn new(ssd: &'a mut Ssd, oracle: &'a mut DataOracle) -> Self {
        RawTarget { ssd, oracle, next_id: 0, data: Vec::new() }
    }
}

impl IoTarget for RawTarget<'_> {
    type Error = Infallible;

    fn issue(&mut self, _clone: usize, op: &Op, at: SimTime) -> Result<SimTime, Infallible> {
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
        // A queue pair here would only pass the command through: the
        // driver bounds what is outstanding, and the host reaps each
        // completion when the driver delivers it.
        let cmd = Command { id, op: opcode };
        let c = self.ssd.execute(at, &cmd, &mut self.data);
        assert_eq!(c.status, Status::Success, "workload issued an invalid command {cmd:?}");
        if op.kind == OpKind::Read {
            for (i, got) in self.data.iter().enumerate() {
                self.oracle.check(Lpn(slba.0 + i as u64), *got);
            }
        }
        Ok(c.at)
    }

    fn hint(&mut self, _clone: usize, soon: &Op, later: &[Op]) {
        for op in later {
            self.ssd.prefetch_write(Lpn(op.off), 0);
            self.oracle.prefetch(Lpn(op.off));
        }
        self.ssd.prefetch_write(Lpn(soon.off), 1);
    }
}
