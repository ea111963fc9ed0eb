//! What the parallel collectors of recent foreground GC calls moved, and
//! when, so a writer that arrived during a round can be checked against
//! them at its own instant (ScaleLFS §4.5.2 Table 1, §4.6, §4.7).
//!
//! A round runs whole inside the call that triggered it, so the state a
//! later-processed writer sees is the round's end. In the kernel a writer
//! that arrives during the round allocates before it balances: an LFS-mode
//! O_DIRECT write in `f2fs_map_blocks` (the new block, and the old one's SIT
//! entry cleared, then `f2fs_balance_fs` at its end), writeback in
//! `f2fs_write_single_data_page` (one page, then `f2fs_balance_fs`). Such a
//! writer replaces the collector's copy here, but at its arrival it met the
//! collector somewhere in that block's move:
//!
//! - before the collector scanned the victim's valid-page bitmap: the kernel
//!   would not have moved the block (`stale_moves`);
//! - after the scan, before the read, with LSU (no `sentry_lock`, so the
//!   read phase does not look at the bitmap again): a false-positive GC
//!   read, and the node-lock rule then skips the write; without LSU the read
//!   phase sees the block invalid and skips it (`stale_moves`);
//! - after the read, before the dnode was repointed: the node-lock rule
//!   (§4.7) skips the collector's write (`skipped_writes`);
//! - with SVP, while the collector held the page reserved: the writer waits
//!   for its release (`svp_conflicts`), then replaces the moved copy;
//! - without SVP, an O_DIRECT writer to a file whose `i_gc_rwsem` the
//!   collector held waits for it (`f2fs_dio_write_iter`), past the move.
//!
//! Simplified, and said in the report: the moves the kernel would not have
//! made (stale, skipped) were booked all the same (the writer's
//! invalidation then lands on the copy), and the writer's wait is the one
//! `balance_fs` already gives it (the round's end, never earlier than these).

use crate::fs::node::DnodeSlot;
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Foreground GC calls whose moves are kept: a writer is processed after the
/// call whose round it arrived in, before a few more rounds have run.
const CALLS_KEPT: usize = 4;

/// A block's owner as a move records it: its dnode and slot.
#[inline]
pub(super) fn owner_key(slot: DnodeSlot) -> u64 {
    (slot.nid as u64) << 32 | slot.ofs as u64
}

/// One data block a collector moved, and the instants of its move.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct MovedBlock {
    /// Where it went (the address a later writer replaces).
    pub new: u64,
    /// Whose block it is (`owner_key`), so an address reused since is not
    /// taken for it.
    pub owner: u64,
    /// The victim's valid-page bitmap read (its shares listed).
    pub scanned: SimTime,
    /// The owning inode's `i_gc_rwsem` taken (None with SVP).
    pub locked: Option<SimTime>,
    /// Its read phase (the bitmap re-checked without LSU), and whether it
    /// read the device (not the page cache).
    pub read: SimTime,
    pub from_device: bool,
    /// Its batch's move began (the SVP reservation), and its dnode repointed.
    pub reserved: SimTime,
    pub moved: SimTime,
}

/// The moves of one foreground GC call, sorted by new address.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct CallMoves {
    from: SimTime,
    until: SimTime,
    moves: Vec<MovedBlock>,
}

/// How the engine synchronises with writers (`GcEngineConfig`'s switches).
#[derive(Clone, Copy, Debug)]
pub(super) struct Sync {
    pub lsu: bool,
    pub svp: bool,
}

/// What one writer's block met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Meeting {
    /// Replaced before the collector looked: the kernel would not move it.
    Stale,
    /// Read after it was replaced (LSU), its write skipped.
    FalsePositiveRead,
    /// Read while valid, replaced before the move: the write skipped.
    SkippedWrite,
    /// Reserved by the collector (SVP): the writer waited for the release.
    SvpConflict,
    /// The writer waited on the file's `i_gc_rwsem`, or came after the move.
    None,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct MoveLog {
    calls: VecDeque<CallMoves>,
    /// The call being recorded.
    open: Vec<MovedBlock>,
}

impl MoveLog {
    #[inline]
    pub(super) fn record(&mut self, m: MovedBlock) {
        self.open.push(m);
    }

    /// The foreground call that ran from `from` to `until` has ended.
    pub(super) fn close(&mut self, from: SimTime, until: SimTime) {
        if self.open.is_empty() {
            return;
        }
        let mut moves = std::mem::take(&mut self.open);
        // A block freed and reused within the call: its latest move counts.
        moves.sort_unstable_by_key(|m| (m.new, std::cmp::Reverse(m.moved)));
        moves.dedup_by_key(|m| m.new);
        if self.calls.len() == CALLS_KEPT {
            self.calls.pop_front();
        }
        self.calls.push_back(CallMoves { from, until, moves });
    }

    /// Whether a writer at `x` may have arrived inside a kept call.
    #[inline]
    pub(super) fn live_at(&self, x: SimTime) -> bool {
        self.calls.iter().any(|c| c.from < x && x < c.until)
    }

    /// A writer arriving at `x` replaces block `blk` of `owner`; `direct`:
    /// an O_DIRECT writer (it takes `i_gc_rwsem` without SVP; writeback
    /// does not). The latest call that moved something to `blk` answers,
    /// if the writer arrived during it.
    pub(super) fn meet(&self, x: SimTime, blk: u64, owner: u64, direct: bool, sync: Sync) -> Meeting {
        let found = self.calls.iter().rev().find_map(|c| c.moves.binary_search_by_key(&blk, |m| m.new).ok().map(|i| (c, c.moves[i])));
        match found {
            Some((c, m)) if c.from < x && x < c.until && m.owner == owner => classify(&m, x, direct, sync),
            _ => Meeting::None,
        }
    }
}

/// Where in the block's move a writer at `x` arrived (module doc).
fn classify(m: &MovedBlock, x: SimTime, direct: bool, sync: Sync) -> Meeting {
    if x >= m.moved {
        return Meeting::None;
    }
    if sync.svp && x >= m.reserved {
        return Meeting::SvpConflict;
    }
    if direct && m.locked.is_some_and(|l| x >= l) {
        return Meeting::None;
    }
    if x < m.scanned || (x < m.read && !sync.lsu) {
        return Meeting::Stale;
    }
    if x < m.read && m.from_device {
        return Meeting::FalsePositiveRead;
    }
    // Read while valid (or, with LSU, taken from the page cache after it
    // was replaced): the node-lock rule skips the write.
    Meeting::SkippedWrite
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> SimTime {
        SimTime(us * 1000)
    }

    /// Scanned at 10, locked at 20, read at 30, reserved at 40, moved at 50.
    fn block(locked: bool) -> MovedBlock {
        MovedBlock {
            new: 7,
            owner: 1 << 32 | 5,
            scanned: at(10),
            locked: locked.then(|| at(20)),
            read: at(30),
            from_device: true,
            reserved: at(40),
            moved: at(50),
        }
    }

    #[test]
    fn a_writer_meets_the_move_where_it_arrives() {
        let lsu_svp = Sync { lsu: true, svp: true };
        let b = block(false);
        assert_eq!(classify(&b, at(5), true, lsu_svp), Meeting::Stale);
        assert_eq!(classify(&b, at(25), true, lsu_svp), Meeting::FalsePositiveRead);
        assert_eq!(classify(&b, at(35), true, lsu_svp), Meeting::SkippedWrite);
        assert_eq!(classify(&b, at(45), true, lsu_svp), Meeting::SvpConflict);
        assert_eq!(classify(&b, at(50), true, lsu_svp), Meeting::None);
        // Without LSU the read phase re-checks the bitmap under sentry_lock.
        let plain = Sync { lsu: false, svp: false };
        assert_eq!(classify(&b, at(25), false, plain), Meeting::Stale);
        assert_eq!(classify(&b, at(45), false, plain), Meeting::SkippedWrite);
        // An O_DIRECT writer waits on the file's i_gc_rwsem past the move.
        let locked = block(true);
        assert_eq!(classify(&locked, at(25), true, plain), Meeting::None);
        assert_eq!(classify(&locked, at(15), true, plain), Meeting::Stale);
        assert_eq!(classify(&locked, at(25), false, plain), Meeting::Stale);
        // A block served from the page cache had no read to be a false
        // positive; without LSU its read phase still re-checks the bitmap.
        let cached = MovedBlock { from_device: false, ..b };
        assert_eq!(classify(&cached, at(25), true, lsu_svp), Meeting::SkippedWrite);
        assert_eq!(classify(&cached, at(25), false, plain), Meeting::Stale);
    }

    #[test]
    fn only_kept_calls_that_span_the_writer_answer() {
        const O: u64 = 1 << 32 | 5;
        let mut log = MoveLog::default();
        let sync = Sync { lsu: true, svp: true };
        log.record(block(false));
        log.record(MovedBlock { new: 3, ..block(false) });
        log.close(at(1), at(60));
        assert!(log.live_at(at(25)) && !log.live_at(at(60)) && !log.live_at(at(1)));
        assert_eq!(log.meet(at(25), 7, O, true, sync), Meeting::FalsePositiveRead);
        assert_eq!(log.meet(at(25), 3, O, true, sync), Meeting::FalsePositiveRead);
        assert_eq!(log.meet(at(25), 8, O, true, sync), Meeting::None);
        assert_eq!(log.meet(at(70), 7, O, true, sync), Meeting::None);
        // Block 9 moved twice in one call (freed and reused): the later move counts.
        log.record(MovedBlock { new: 9, ..block(false) });
        log.record(MovedBlock { new: 9, scanned: at(40), read: at(45), reserved: at(50), moved: at(55), ..block(false) });
        log.close(at(2), at(61));
        assert_eq!(log.meet(at(42), 9, O, true, sync), Meeting::FalsePositiveRead);
        // Another file's block at the address is not the one moved.
        assert_eq!(log.meet(at(42), 9, O + 1, true, sync), Meeting::None);
        // A later call moved something to 7: it answers, and a writer from
        // the first call's window meets nothing there.
        log.record(MovedBlock { new: 7, ..block(false) });
        log.close(at(100), at(160));
        assert_eq!(log.meet(at(25), 7, O, true, sync), Meeting::None);
        assert_eq!(log.meet(at(125), 7, O, true, sync), Meeting::None);
        for k in 0..CALLS_KEPT as u64 {
            log.record(MovedBlock { new: 100 + k, ..block(false) });
            log.close(at(100 * (k + 1)), at(100 * (k + 1) + 60));
        }
        assert!(!log.live_at(at(25)), "the oldest call is dropped once {CALLS_KEPT} newer ones are kept");
        // A call that moved nothing is not kept.
        log.close(at(900), at(960));
        assert!(!log.live_at(at(930)));
    }
}
