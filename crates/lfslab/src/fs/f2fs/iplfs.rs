//! IPLFS (iplfs.txt) as a mode of the same F2FS: a partition far larger than
//! the flash, six logs in six areas (top 3 address bits), no GC, no SIT or
//! SSA on disk (the in-memory tables remain, sparse, for the simulator's own
//! checks), the NAT kept. Blocks invalidated between checkpoints are
//! recorded in per-section discard bitmaps; each checkpoint turns them into
//! discard commands, logs them in the checkpoint pack and hands them to a
//! separate thread (the checkpoint does not wait for them).

use super::F2fs;
use crate::fs::layout::BLOCKS_PER_SEG;
use crate::nvme::BlockDevice;
use crate::sim::SimTime;

impl<D: BlockDevice> F2fs<D> {
    pub fn iplfs(&self) -> bool {
        self.cfg.iplfs_device_blocks.is_some()
    }

    /// Mark `blk` in its section's discard bitmap.
    pub(super) fn iplfs_invalidated(&mut self, blk: u64) {
        if !self.iplfs() {
            return;
        }
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as usize;
        self.iplfs_discards.entry(segno).or_insert([0; 8])[off / 64] |= 1 << (off % 64);
        self.iplfs_pending += 1;
    }

    /// Checkpoint once the blocks waiting for a discard reach 5% of the
    /// flash: the device learns of dead blocks only through checkpoints, and
    /// F2FS's own triggers (60 s, prefree sections) come too late on a
    /// device that fills in seconds. (lfslab's rule; the summary is silent.)
    pub(super) fn iplfs_balance(&mut self, now: SimTime) -> SimTime {
        let device = self.cfg.iplfs_device_blocks.expect("iplfs");
        if self.iplfs_pending >= device / 20 {
            self.checkpoint(now)
        } else {
            now
        }
    }

    /// After a checkpoint: the bitmaps become discard commands (logged in
    /// the pack: `discard_log_entries`) issued by the discard thread.
    pub(super) fn iplfs_after_checkpoint(&mut self, t: SimTime) {
        if !self.iplfs() || self.iplfs_discards.is_empty() {
            return;
        }
        let maps = std::mem::take(&mut self.iplfs_discards);
        self.iplfs_pending = 0;
        // The discard lists' memory is kept (see `discard_blocks`).
        let mut blks = std::mem::take(&mut self.iplfs_blks);
        for (segno, map) in maps {
            let start = self.layout.seg_start(segno);
            for off in 0..BLOCKS_PER_SEG as u64 {
                if map[(off / 64) as usize] >> (off % 64) & 1 == 1 {
                    blks.push(start + off);
                }
            }
        }
        let before = self.stats.discard_cmds;
        self.discard_blocks(t, &mut blks);
        self.stats.discard_log_entries += self.stats.discard_cmds - before;
        self.iplfs_blks = blks;
    }
}
