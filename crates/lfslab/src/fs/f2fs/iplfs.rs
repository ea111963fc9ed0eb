//! IPLFS (iplfs.txt) as a mode of the same F2FS: a partition far larger than
//! the flash, six logs in six areas (top 3 address bits), no GC, no SIT or
//! SSA on disk (the in-memory tables remain, sparse, for the simulator's own
//! checks), the NAT kept. The blocks invalidated since the last checkpoint
//! (iplfs.txt §3: a discard bitmap per section, in a hash table by section
//! number) become discard commands at each checkpoint, logged in the
//! checkpoint pack and handed to a separate thread (the checkpoint does not
//! wait for them).
//!
//! lfslab finds that set where F2FS's own `add_discard_addrs` does: in the
//! dirty SIT entries the checkpoint walks anyway, as the blocks valid at the
//! last checkpoint or allocated since (`ckpt_valid_map`) and invalid now
//! (`SegmentManager::checkpoint` with `CpDiscards::Invalidated`). IPLFS
//! never reuses a block between checkpoints, so that is every block
//! invalidated since, in segment and block order, the order the hash
//! table's bitmaps give by section. Neither structure's host cost is
//! modelled, so keeping no bitmap of its own changes no figure. After a
//! crash the blocks the mount invalidates are discarded at its checkpoint
//! too, as `add_discard_addrs` would (the paper does not say).

use super::F2fs;
use crate::nvme::BlockDevice;
use crate::sim::SimTime;

impl<D: BlockDevice> F2fs<D> {
    pub fn iplfs(&self) -> bool {
        self.cfg.iplfs_device_blocks.is_some()
    }

    /// Count a block the host invalidated: the checkpoint trigger below.
    pub(super) fn iplfs_invalidated(&mut self) {
        if self.iplfs() {
            self.iplfs_pending += 1;
        }
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

    /// After a checkpoint: the blocks it found invalidated (logged in the
    /// pack: `discard_log_entries`) become discard commands issued by the
    /// discard thread.
    pub(super) fn iplfs_after_checkpoint(&mut self, t: SimTime) {
        if !self.iplfs() || self.cp_discard_runs.is_empty() {
            return;
        }
        self.iplfs_pending = 0;
        self.stats.discard_log_entries += self.issue_cp_discard_runs(t) as u64;
    }
}
