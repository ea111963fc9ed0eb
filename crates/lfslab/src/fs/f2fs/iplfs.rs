//! IPLFS (iplfs.txt) as a mode of the same F2FS: a partition far larger than
//! the flash, six logs in six areas (top 3 address bits), no GC, no SIT or
//! SSA on disk (the in-memory tables remain, sparse, for the simulator's own
//! checks), the NAT kept. Blocks invalidated between checkpoints are
//! recorded in per-section discard bitmaps; each checkpoint turns them into
//! discard commands, logs them in the checkpoint pack and hands them to a
//! separate thread (the checkpoint does not wait for them).

use super::F2fs;
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
        self.iplfs_discards.mark(segno, off);
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
        self.iplfs_pending = 0;
        // The discard lists' memory is kept (see `discard_blocks`).
        let mut blks = std::mem::take(&mut self.iplfs_blks);
        let layout = &self.layout;
        self.iplfs_discards.drain_sorted(|segno, map| {
            let start = layout.seg_start(segno);
            for (w, &word) in map.iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    blks.push(start + (w * 64) as u64 + x.trailing_zeros() as u64);
                    x &= x - 1;
                }
            }
        });
        let before = self.stats.discard_cmds;
        self.discard_blocks(t, &mut blks);
        self.stats.discard_log_entries += self.stats.discard_cmds - before;
        self.iplfs_blks = blks;
    }
}
