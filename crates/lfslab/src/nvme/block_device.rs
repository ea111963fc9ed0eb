//! What a filesystem sees of a device: 4 KiB-block read, write with
//! per-block content and a stream id, discard and flush, each returning the
//! instant it completes. Filesystems issue their I/O through this trait so
//! that conventional, zoned and D2FS devices can sit under the same code.

use super::{MigrateRequest, MigrateResult, MigrationRecord, Status, Upcall};
use crate::nand::Lpn;
use crate::oracle::Fingerprint;
use crate::sim::SimTime;

pub trait BlockDevice {
    /// Exported capacity in 4 KiB blocks.
    fn capacity_blocks(&self) -> u64;
    /// Write `content.len()` blocks at `slba`.
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime;
    /// Read `nlb` blocks at `slba`; `out` receives one entry per block (None = unmapped).
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime;
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime;
    fn flush(&mut self, at: SimTime) -> SimTime;
    /// Hint that `slba` will be discarded soon, so that the device fetches
    /// its entries for it ahead: a speed hint of the simulator, not a
    /// command; it changes no result.
    fn prefetch_discard(&self, _slba: Lpn) {}

    /// ZNS Reset Zone of the zone of `nlb` blocks at `zslba`; a conventional
    /// device deallocates the range instead.
    fn reset_zone(&mut self, at: SimTime, zslba: Lpn, nlb: u32) -> SimTime {
        self.discard(at, zslba, nlb)
    }

    /// ZNS Finish Zone of the zone at `zslba` (a D2FS device closes the
    /// block-mapped section there); a page-mapped device has nothing to finish.
    fn finish_zone(&mut self, at: SimTime, _zslba: Lpn) -> SimTime {
        at
    }

    // ---- D2FS migration queue pair (d2fs.txt §5); devices without Coupled GC keep the defaults.

    /// Instant of the first completion since the last call that carried the
    /// UPCALL flag (Upcall Piggybacking, §5.2).
    fn take_upcall_signal(&mut self) -> Option<SimTime> {
        None
    }
    /// Take the next upcall from the migration SQ.
    fn fetch_upcall(&mut self) -> Option<Upcall> {
        None
    }
    /// Migration CQ: every upcall up to `upcall` is reflected and checkpointed.
    fn complete_upcalls(&mut self, _upcall: u64) {}
    /// Free-section fault: ask for one Coupled GC round; None if nothing can be reclaimed.
    fn reclaim(&mut self, _at: SimTime) -> Option<SimTime> {
        None
    }
    /// Crash recovery (§7): outstanding records after record id `last`.
    fn records_after(&self, _last: u64) -> Vec<MigrationRecord> {
        Vec::new()
    }
    /// Content at `lba` by the mapping alone, without redirects or timing.
    fn peek_direct(&self, lba: Lpn) -> Option<Fingerprint>;

    /// CSGC's offloaded migration of one victim segment (csgc.txt §3.2):
    /// returns when its completion is posted, with the updated index
    /// entries. Devices without a CSGC executor answer Invalid Opcode.
    fn migrate(&mut self, _at: SimTime, _req: &MigrateRequest) -> Result<(SimTime, MigrateResult), Status> {
        Err(Status::InvalidOpcode)
    }

    /// RM-IPU's address remap (rm-ipu.txt §3): each (original, new) pair
    /// points the original LBA at the new LBA's data and unmaps the new
    /// LBA; completes once the new data is durable. Devices without it
    /// answer Invalid Opcode.
    fn remap(&mut self, _at: SimTime, _pairs: &[(Lpn, Lpn)]) -> Result<SimTime, Status> {
        Err(Status::InvalidOpcode)
    }
}

impl BlockDevice for crate::ftl::Ssd {
    fn capacity_blocks(&self) -> u64 {
        self.logical_pages()
    }
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime {
        assert!(!content.is_empty() && slba.0 + content.len() as u64 <= self.logical_pages(), "write beyond the device");
        crate::ftl::Ssd::write(self, at, slba, content.len() as u32, stream, |i| content[i as usize])
    }
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime {
        out.clear();
        self.read_blocks(at, slba, nlb, out)
    }
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        self.discard_blocks(at, slba, nlb)
    }
    fn prefetch_discard(&self, slba: Lpn) {
        crate::ftl::Ssd::prefetch_discard(self, slba)
    }
    fn flush(&mut self, at: SimTime) -> SimTime {
        crate::ftl::Ssd::flush(self, at)
    }
    fn reset_zone(&mut self, at: SimTime, zslba: Lpn, nlb: u32) -> SimTime {
        if !self.host_freed_main() {
            return self.discard_blocks(at, zslba, nlb);
        }
        let done = crate::ftl::Ssd::reset_zone(self, at, zslba)
            .unwrap_or_else(|s| panic!("Reset Zone at LBA {} failed: {s:?}", zslba.0));
        self.take_completion_note(done);
        done
    }
    fn finish_zone(&mut self, at: SimTime, zslba: Lpn) -> SimTime {
        if !self.block_mapped() {
            return at;
        }
        let done = crate::ftl::Ssd::finish_zone(self, at, zslba)
            .unwrap_or_else(|s| panic!("Finish Zone at LBA {} failed: {s:?}", zslba.0));
        self.take_completion_note(done);
        done
    }
    fn take_upcall_signal(&mut self) -> Option<SimTime> {
        crate::ftl::Ssd::take_upcall_signal(self)
    }
    fn fetch_upcall(&mut self) -> Option<Upcall> {
        crate::ftl::Ssd::fetch_upcall(self)
    }
    fn complete_upcalls(&mut self, upcall: u64) {
        crate::ftl::Ssd::complete_upcalls(self, upcall)
    }
    fn reclaim(&mut self, at: SimTime) -> Option<SimTime> {
        crate::ftl::Ssd::reclaim(self, at)
    }
    fn records_after(&self, last: u64) -> Vec<MigrationRecord> {
        crate::ftl::Ssd::records_after(self, last)
    }
    fn peek_direct(&self, lba: Lpn) -> Option<Fingerprint> {
        crate::ftl::Ssd::peek_direct(self, lba)
    }
    fn remap(&mut self, at: SimTime, pairs: &[(Lpn, Lpn)]) -> Result<SimTime, Status> {
        let r = crate::ftl::Ssd::remap(self, at, pairs);
        if let Ok(done) = &r {
            self.take_completion_note(*done);
        }
        r
    }
    fn migrate(&mut self, at: SimTime, req: &MigrateRequest) -> Result<(SimTime, MigrateResult), Status> {
        let r = crate::ftl::Ssd::migrate(self, at, req);
        if let Ok((done, _)) = &r {
            self.take_completion_note(*done);
        }
        r
    }
}

/// The first `blocks` of a device as a device of its own (a partition
/// starting at LBA 0); the rest of the device is left untouched.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Partition<D: BlockDevice> {
    pub dev: D,
    blocks: u64,
}

impl<D: BlockDevice> Partition<D> {
    pub fn new(dev: D, blocks: u64) -> Self {
        assert!(blocks > 0 && blocks <= dev.capacity_blocks(), "partition of {blocks} blocks does not fit the device");
        Partition { dev, blocks }
    }
}

impl<D: BlockDevice> BlockDevice for Partition<D> {
    fn capacity_blocks(&self) -> u64 {
        self.blocks
    }
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime {
        assert!(slba.0 + content.len() as u64 <= self.blocks, "write beyond the partition");
        self.dev.write(at, slba, content, stream)
    }
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime {
        assert!(slba.0 + nlb as u64 <= self.blocks, "read beyond the partition");
        self.dev.read(at, slba, nlb, out)
    }
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        assert!(slba.0 + nlb as u64 <= self.blocks, "discard beyond the partition");
        self.dev.discard(at, slba, nlb)
    }
    fn prefetch_discard(&self, slba: Lpn) {
        if slba.0 < self.blocks {
            self.dev.prefetch_discard(slba)
        }
    }
    fn flush(&mut self, at: SimTime) -> SimTime {
        self.dev.flush(at)
    }
    fn reset_zone(&mut self, at: SimTime, zslba: Lpn, nlb: u32) -> SimTime {
        assert!(zslba.0 + nlb as u64 <= self.blocks, "zone reset beyond the partition");
        self.dev.reset_zone(at, zslba, nlb)
    }
    fn finish_zone(&mut self, at: SimTime, zslba: Lpn) -> SimTime {
        assert!(zslba.0 < self.blocks, "zone finish beyond the partition");
        self.dev.finish_zone(at, zslba)
    }
    fn take_upcall_signal(&mut self) -> Option<SimTime> {
        self.dev.take_upcall_signal()
    }
    fn fetch_upcall(&mut self) -> Option<Upcall> {
        self.dev.fetch_upcall()
    }
    fn complete_upcalls(&mut self, upcall: u64) {
        self.dev.complete_upcalls(upcall)
    }
    fn reclaim(&mut self, at: SimTime) -> Option<SimTime> {
        self.dev.reclaim(at)
    }
    fn records_after(&self, last: u64) -> Vec<MigrationRecord> {
        self.dev.records_after(last)
    }
    fn peek_direct(&self, lba: Lpn) -> Option<Fingerprint> {
        self.dev.peek_direct(lba)
    }
    fn remap(&mut self, at: SimTime, pairs: &[(Lpn, Lpn)]) -> Result<SimTime, Status> {
        if pairs.iter().any(|&(o, n)| o.0 >= self.blocks || n.0 >= self.blocks) {
            return Err(Status::LbaOutOfRange);
        }
        self.dev.remap(at, pairs)
    }
    fn migrate(&mut self, at: SimTime, req: &MigrateRequest) -> Result<(SimTime, MigrateResult), Status> {
        let end = req.segment.0 + super::SEGMENT_BLOCKS as u64;
        if end > self.blocks || req.destinations().any(|d| d.0 >= self.blocks) {
            return Err(Status::LbaOutOfRange);
        }
        self.dev.migrate(at, req)
    }
}
