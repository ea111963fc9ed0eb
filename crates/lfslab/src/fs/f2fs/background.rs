//! F2FS's background machinery, as Linux runs it (fs/f2fs, 6.6):
//!
//! * `f2fs_balance_fs_bg`: checkpoint when dirty NAT entries, dirty node
//!   pages (`excess_dirty_threshold`: 8 segments) or prefree segments are in
//!   excess; the periodic checkpoint (`cp_interval`) unless I/O is in flight
//!   (`is_inflight_io`; the kernel also skips it while cp_rwsem is held
//!   within `idle_interval` of a request, never the case here between two
//!   operations);
//! * `gc_thread_func`: the GC thread sleeps between `gc_min_sleep_time` and
//!   `gc_max_sleep_time` (`gc_no_gc_sleep_time` when it found no victim),
//!   collects only when idle, and shortens its sleep while
//!   `has_enough_invalid_blocks`;
//! * `issue_discard_thread`: pending discards go out when the filesystem is
//!   idle (io-aware DPOLICY_BG), `max_discard_request` (8) per 50 ms round,
//!   only runs of at least `discard_granularity` blocks (1 above 80%
//!   utilisation, DEF_DISCARD_URGENT_UTIL), largest first.
//!
//! Simplified, and said so here: the excess checks run at the daemon tick
//! (`on_idle`), standing for the GC thread and node writeback
//! (`f2fs_write_node_pages` calls `f2fs_balance_fs_bg`), which the kernel
//! runs them from, a few seconds apart. The application's writes never run
//! them: its `f2fs_balance_fs` calls `f2fs_balance_fs_bg` only on excess
//! cached NAT entries, not modelled. So the writer waits for a checkpoint
//! only on cp_rwsem (block_operations), never for the whole of one it would
//! run itself; a scaled run's checkpoints, as many per volume turnover as
//! the paper's, each with a device wait that does not shrink with the
//! volume, no longer fall on the writer. Background GC migrates
//! synchronously (the kernel marks BG-collected pages dirty for
//! writeback); the discard thread's rounds since its last look are issued
//! together; `excess_dirty_threshold`
//! is modelled for node pages only (dentries, quota and inode metadata
//! pages are next to none here).

use super::{F2fs, FsError};
use crate::fs::config::DiscardPolicy;
use crate::nvme::BlockDevice;
use crate::sim::{SimDuration, SimTime};

/// DEF_MIN_DISCARD_ISSUE_TIME: the discard thread's round when busy (ms).
const DISCARD_ROUND_MS: u64 = 50;
/// DEF_MAX_DISCARD_REQUEST: discards per round.
const DISCARD_PER_ROUND: u64 = 8;
/// LIMIT_INVALID_BLOCK and LIMIT_FREE_BLOCK (gc.h), percent.
const LIMIT_INVALID_BLOCK: u64 = 40;
const LIMIT_FREE_BLOCK: u64 = 40;
/// DEF_RECLAIM_PREFREE_SEGMENTS (percent of main) and its cap DEF_MAX_RECLAIM_PREFREE_SEGMENTS.
const RECLAIM_PREFREE_PCT: u64 = 5;
pub const MAX_RECLAIM_PREFREE_SEGMENTS: u64 = 4096;

/// `rec_prefree_segments` as `f2fs_build_segment_manager` sets it: 5% of
/// the main segments, at most `cap`.
pub fn default_reclaim_segments(main_segments: u32, cap: u64) -> u64 {
    (main_segments as u64 * RECLAIM_PREFREE_PCT / 100).min(cap)
}
/// DEF_DISCARD_URGENT_UTIL: above this utilisation every run is discarded.
const DISCARD_URGENT_UTIL: f64 = 80.0;

impl<D: BlockDevice> F2fs<D> {
    /// sysfs `reclaim_segments` (`rec_prefree_segments`); 0 = the kernel's
    /// default for this volume (5% of main, at most 4096).
    pub(super) fn reclaim_segments(&self) -> u64 {
        match self.cfg.tuning.reclaim_segments {
            0 => default_reclaim_segments(self.layout.main_segments, MAX_RECLAIM_PREFREE_SEGMENTS),
            n => n as u64,
        }
    }

    /// `is_inflight_io`: an I/O the filesystem submitted has not completed.
    fn is_inflight_io(&self, now: SimTime) -> bool {
        self.io_busy_until > now
    }

    /// `is_idle`: nothing in flight and no application request for `idle_interval`.
    fn is_idle(&self, now: SimTime) -> bool {
        !self.is_inflight_io(now) && now.saturating_since(self.last_req).as_secs_f64() >= self.cfg.tuning.idle_interval_s
    }

    /// F2FS `f2fs_balance_fs_bg`.
    pub(super) fn balance_fs_bg(&mut self, now: SimTime) -> SimTime {
        // excess_dirty_nats: dirty NAT entries >= max_nid * dirty_nats_ratio%.
        let nats = self.nm.dirty_nat_count() as u64 * 100 >= self.layout.max_nid as u64 * self.cfg.dirty_nats_ratio as u64;
        // excess_dirty_threshold, node pages: 8 segments.
        let nodes = self.nm.dirty_count() as u64 >= self.cfg.tuning.dirty_nodes_pages;
        // excess_prefree_segs. D2FS keeps its own trigger (sections named by
        // unsynced records stay prefree, so this one would fire in a loop).
        let prefree = self.d2fs.is_none()
            && self.sm.prefree_sections() as u64 * self.layout.segs_per_sec as u64 > self.reclaim_segments();
        let periodic = !self.is_inflight_io(now) && now.saturating_since(self.last_cp).as_secs_f64() >= self.cfg.cp_interval_s;
        if nats || nodes || prefree || periodic {
            self.checkpoint(now)
        } else {
            now
        }
    }

    /// `has_enough_invalid_blocks` (gc.h, 6.x form).
    fn has_enough_invalid_blocks(&self) -> bool {
        let user = self.layout.user_blocks;
        let invalid = user.saturating_sub(self.sm.valid_blocks_total());
        let free_segs = self.sm.free_sections() as u64 * self.layout.segs_per_sec as u64;
        let free_user = free_segs.saturating_sub(self.layout.ovp_segments as u64) * crate::fs::layout::BLOCKS_PER_SEG as u64;
        invalid > user * LIMIT_INVALID_BLOCK / 100 && free_user < invalid * LIMIT_FREE_BLOCK / 100
    }

    /// One wakeup of the GC thread (`gc_thread_func`) if it is due.
    fn gc_thread(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        if now < self.gc_wake_at {
            return Ok(now);
        }
        let tu = &self.cfg.tuning;
        let (min, max, no_gc) = (tu.gc_min_sleep_ms, tu.gc_max_sleep_ms, tu.gc_no_gc_sleep_ms);
        let increase = |w: u64| if w == no_gc { w } else { (w + min).min(max) };
        let decrease = |w: u64| {
            let w = if w == no_gc { max } else { w };
            if w < 2 * min { min } else { w - min }
        };
        let mut done = now;
        if !self.is_idle(now) {
            self.gc_wait_ms = increase(self.gc_wait_ms);
        } else {
            self.gc_wait_ms = if self.has_enough_invalid_blocks() { decrease(self.gc_wait_ms) } else { increase(self.gc_wait_ms) };
            match self.background_gc(now)? {
                None => self.gc_wait_ms = no_gc,
                Some(t) => {
                    if self.gc_wait_ms == no_gc {
                        self.gc_wait_ms = min;
                    }
                    done = t;
                }
            }
            done = self.balance_fs_bg(done);
        }
        self.gc_wake_at = done + SimDuration::from_ms(self.gc_wait_ms);
        Ok(done)
    }

    /// `f2fs_gc` with BG_GC: checkpoint if that frees enough; else one victim
    /// by cost-benefit (greedy under gc_idle = 2), searched as the kernel
    /// searches it (`SegmentManager::bg_victim`). None: no victim.
    fn background_gc(&mut self, now: SimTime) -> Result<Option<SimTime>, FsError> {
        let mut t = self.gc_lock.acquire(now);
        if self.not_enough_free_secs() && self.sm.prefree_sections() > 0 {
            t = self.gc_checkpoint(t);
        }
        // select_gc_type: greedy under gc_idle = 2, else cost-benefit. The
        // search runs under seglist_lock at the scan's cost per segment.
        let (victim, searched) = self.sm.bg_victim(self.cfg.tuning.gc_idle != 2);
        t = self.serial_scan(t, searched as usize);
        let Some(v) = victim else {
            self.gc_lock.release(t);
            return Ok(None);
        };
        let r = self.gc_section(t, v);
        let e = *r.as_ref().unwrap_or(&t);
        self.gc_lock.release(e);
        let e = r?;
        self.stats.gc_bg_count += 1;
        self.stats.gc_time_ns += (e - t).ns();
        Ok(Some(e))
    }

    /// The discard thread: when idle, `max_discard_request` commands per
    /// round for the rounds since its last run.
    fn discard_thread(&mut self, now: SimTime) -> SimTime {
        if self.cfg.discard != DiscardPolicy::IdleBatched || self.pending_discards.is_empty() || !self.is_idle(now) {
            self.discard_ran = now;
            return now;
        }
        let rounds = now.saturating_since(self.discard_ran).ns() / SimDuration::from_ms(DISCARD_ROUND_MS).ns();
        if rounds == 0 {
            return now;
        }
        self.discard_ran = now;
        let granularity = if self.utilization_pct() > DISCARD_URGENT_UTIL { 1 } else { self.cfg.tuning.discard_granularity };
        self.issue_discards_with(now, (rounds * DISCARD_PER_ROUND) as usize, granularity)
    }

    /// Background work at `now`: the GC thread when due, the metadata
    /// balance (checkpoints) and the discard thread. Runs beside the
    /// application; returns when the work it started completes.
    pub fn on_idle(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        let mut t = now;
        if self.cfg.bg_gc && self.d2fs.is_none() && !self.iplfs() {
            t = self.gc_thread(now)?;
        }
        t = t.max(self.balance_fs_bg(now));
        t = t.max(self.discard_thread(now));
        self.d2fs_after_op(t);
        Ok(t)
    }
}
