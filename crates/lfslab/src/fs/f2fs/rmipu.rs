//! RM-IPU (rm-ipu.txt §3) as a mode of the same F2FS: an overwrite of a
//! file block (an "update write") goes to the hot data log with no node
//! update, and once its data is durable an address-remap command points
//! the block's original address at it, so the file keeps its addresses
//! (no dnode rewrite, no fragmentation) and the hot log's blocks die at
//! once ("they become invalidated immediately after the corresponding
//! AR"), leaving hot segments with nothing to clean. New blocks (appends)
//! go to the cold data log, where "they will remain until updated".
//!
//! When lfslab remaps: at the end of every batch of pages written (a
//! writeback batch, an fsync's data, an O_DIRECT write), in the same call,
//! after the batch's writes. The device's remap makes the new data durable
//! first (`Ssd::remap`), so §3's fsync order holds: write data, remap,
//! write metadata, return. Because the remap completes inside the call
//! that wrote the data, a pending pair never outlives a call: reads,
//! overwrites, truncates, unlinks and the GC always see remapped blocks,
//! and "segments containing any address-remapping blocks" never reach
//! the victim list (§3's exclusion holds without a list). This is a
//! simplification of the kernel's batching; the report says so.

use super::F2fs;
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::sim::SimTime;

impl<D: BlockDevice> F2fs<D> {
    /// Remap each (original, new) block pair of a written batch, then drop
    /// the new blocks from the SIT: the original addresses hold the data.
    pub(super) fn rmipu_remap(&mut self, at: SimTime, pairs: &[(u64, u64)]) -> SimTime {
        let lbas: Vec<(Lpn, Lpn)> = pairs.iter().map(|&(o, n)| (Lpn(o), Lpn(n))).collect();
        let done = self
            .dev
            .remap(at, &lbas)
            .unwrap_or_else(|s| panic!("address remap of {} pairs refused by the device: {s:?}", pairs.len()));
        self.io_busy_until = self.io_busy_until.max(done);
        for &(_, new) in pairs {
            self.sm.invalidate(new);
        }
        self.stats.remap_cmds += 1;
        self.stats.remap_blocks += pairs.len() as u64;
        done
    }
}
