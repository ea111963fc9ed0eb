//! D2FS host side (d2fs.txt §5.3, §6, §7) as a mode of the same F2FS.
//!
//! * No filesystem GC. The top of the main area is the GC region, which
//!   only the device's Coupled GC allocates; when the regular region has no
//!   free section left the writer takes a *free-section fault* (§6.1): it
//!   handles pending upcalls and checkpoints, and if that frees nothing it
//!   asks the device for a CGC round and waits (counted and timed).
//! * Upcall handler thread (§5.3): woken by a completion carrying the
//!   UPCALL flag; per record, in creation order, under `cp_rwsem` held
//!   shared, it points the owner (dnode slot, NAT entry or dentry) at the new
//!   LBA and moves the SIT bit and SSA entry; a record whose old LBA is
//!   already invalid is skipped. Old LBAs are never discarded: the device
//!   already moved them.
//! * Completion (§5.3): after a checkpoint, which stores the last processed
//!   (record id, upcall id), every fully processed upcall is completed on
//!   the migration CQ; the device then frees the records.
//! * Discard (§6.3): sent when a block is invalidated. A block the last
//!   checkpoint still references, and any node block, is discarded right
//!   after the next checkpoint instead, as F2FS's `add_discard_addrs` does:
//!   discarding it at once would leave the checkpoint (or roll-forward's
//!   node chain) pointing at erased data after a crash. (The paper says
//!   "right after it invalidates"; this is our departure.) The checkpoint
//!   finds those blocks where `add_discard_addrs` does, in the dirty SIT
//!   entries it walks anyway: invalid now, valid at the last checkpoint or
//!   allocated since, less the blocks invalidated without a discard owed
//!   (`SegmentManager::invalidate_undiscarded`: discarded at once, moved by
//!   the device's records or by a mount). So no list of them is kept, and
//!   nothing is sorted: they come in address order.
//! * Checkpoint trigger (§5.3: "under the same condition as F2FS does ...
//!   the number of the invalid sections"): as the artifact's kernel does it
//!   (ESOS-Lab/D2FS, fs/f2fs/segment.h `excess_prefree_segs`), when the
//!   blocks the host invalidated since the last checkpoint exceed
//!   `rec_prefree_segments / 6` segments (5% of main, at most 4096
//!   segments: about 350 K blocks at 256 GiB). Bounded whatever the
//!   capacity, this is what bounds the record buffer (Fig. 17): the device
//!   frees a record only when the checkpoint after it completes its upcall.
//!   `cp_dead_sections` > 0 replaces it with a count of dead sections.
//! * Crash recovery (§7): checkpoint image + roll-forward, then redo of the
//!   device's outstanding records after the checkpointed record id.
//!
//! The handler's effects are applied when the filesystem is next entered
//! after the signal (an operation boundary), its time on its own thread.

use super::{F2fs, FsError};
use crate::nvme::{MigrationRecord, Upcall};
use crate::host::SimMutex;
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::{BTreeSet, VecDeque};

/// One sample of region utilisation (d2fs.txt Fig. 11): sections in use
/// over the sections of each region.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct RegionSample {
    pub t_s: f64,
    pub regular_pct: f64,
    pub gc_pct: f64,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct D2fsState {
    pub(super) gc_first_sec: u32,
    /// Invalidated blocks to discard at the end of the current operation.
    now: Vec<u64>,
    handler: SimMutex,
    /// A signal arrived and the SQ may hold upcalls not yet handled.
    pending: bool,
    /// Upcall being processed and its next record.
    current: Option<(Upcall, usize)>,
    /// Upcalls taken off the SQ at a checkpoint and not yet processed.
    inbox: VecDeque<Upcall>,
    last_record: u64,
    /// Last fully processed upcall.
    done_upcall: u64,
    /// As stored by the last checkpoint.
    pub(super) cp_record: u64,
    cp_done_upcall: u64,
    dead_since_cp: u32,
    /// Blocks the host invalidated since the last checkpoint (the
    /// artifact's `cur_inv_blk_cnt`: blocks queued for discard).
    invalidated_since_cp: u64,
    pub(super) samples: Vec<RegionSample>,
    next_sample: SimTime,
}

/// WRITE_STALL_SEC_RATIO of the D2FS artifact (fs/f2fs/f2fs.h), in percent.
const WRITE_STALL_PCT: u64 = 10;

/// Region utilisation is sampled once per this interval (on idle ticks).
const SAMPLE_EVERY: SimDuration = SimDuration(1_000_000_000);

impl D2fsState {
    /// After a remount: every outstanding record up to `last_record` was
    /// redone (§7); upcalls still on the SQ are fetched and their records
    /// skipped (their old LBAs are no longer the host's).
    pub(super) fn remounted(gc_first_sec: u32, last_record: u64) -> Self {
        let mut d = Self::new(gc_first_sec);
        d.last_record = last_record;
        d.cp_record = last_record;
        d.pending = true;
        d
    }

    pub(super) fn new(gc_first_sec: u32) -> Self {
        D2fsState {
            gc_first_sec,
            now: Vec::new(),
            handler: SimMutex::default(),
            pending: false,
            current: None,
            inbox: VecDeque::new(),
            last_record: 0,
            done_upcall: 0,
            cp_record: 0,
            cp_done_upcall: 0,
            dead_since_cp: 0,
            invalidated_since_cp: 0,
            samples: Vec::new(),
            next_sample: SimTime::ZERO,
        }
    }
}

impl<D: BlockDevice> F2fs<D> {
    pub fn is_d2fs(&self) -> bool {
        self.d2fs.is_some()
    }

    pub fn region_samples(&self) -> &[RegionSample] {
        self.d2fs.as_ref().map(|d| d.samples.as_slice()).unwrap_or(&[])
    }

    /// (regular, GC) region utilisation in percent.
    pub fn region_utilization(&self) -> Option<(f64, f64)> {
        let d = self.d2fs.as_ref()?;
        let (reg, gc) = self.sm.region_usage(d.gc_first_sec);
        let gc_secs = self.layout.main_sections - d.gc_first_sec;
        Some((reg as f64 * 100.0 / d.gc_first_sec as f64, gc as f64 * 100.0 / gc_secs as f64))
    }

    /// Invalidate a block the host no longer uses (overwrite, truncate,
    /// node rewrite) and, in D2FS mode, queue its discard.
    pub(super) fn invalidate_host(&mut self, blk: u64) {
        // Node blocks wait for the checkpoint too: roll-forward reads the
        // node chain written since the last one, and a hole in it ends the
        // recovery there (found by the crash swarm).
        let node = || self.owner.get(self.main_index(blk)).is_node();
        let ckpt = self.d2fs.is_some() && (self.sm.ckpt_valid(blk) || node());
        if self.d2fs.is_some() && !ckpt {
            self.sm.invalidate_undiscarded(blk);
        } else {
            self.sm.invalidate(blk);
        }
        self.iplfs_invalidated();
        let sec = self.layout.sec_of_seg(self.layout.segno_of(blk));
        let dead = self.sm.section_valid(sec) == 0;
        if let Some(d) = &mut self.d2fs {
            if !ckpt {
                d.now.push(blk);
            }
            d.dead_since_cp += dead as u32;
            d.invalidated_since_cp += 1;
        }
    }

    /// Send discards for `blks` (merged into runs), not waiting for them;
    /// `blks` is left empty, its memory kept for the next batch.
    pub(super) fn discard_blocks(&mut self, at: SimTime, blks: &mut Vec<u64>) {
        // An operation's own blocks (few), or the mount's (in order).
        blks.sort_unstable();
        let mut i = 0;
        while i < blks.len() {
            let mut n = 1;
            while i + n < blks.len() && blks[i + n] == blks[i] + n as u64 {
                n += 1;
            }
            self.discard_run(at, blks[i], n as u32);
            i += n;
        }
        blks.clear();
    }

    /// Send one discard command for `n` blocks from `start`, not waiting for it.
    pub(super) fn discard_run(&mut self, at: SimTime, start: u64, n: u32) {
        self.stats.discard_cmds += 1;
        self.stats.discard_blocks += n as u64;
        self.dev.discard(at, Lpn(start), n);
    }

    /// Send the runs the last checkpoint found (`cp_discard_runs`), not
    /// waiting for them; how many. The list's memory is kept for the next.
    pub(super) fn issue_cp_discard_runs(&mut self, at: SimTime) -> usize {
        let mut runs = std::mem::take(&mut self.cp_discard_runs);
        // The runs' first blocks are random lines of the device's maps at
        // paper size: hint each a few runs ahead.
        const AHEAD: usize = 8;
        for &(start, _) in runs.iter().take(AHEAD) {
            self.dev.prefetch_discard(Lpn(start));
        }
        for (k, &(start, n)) in runs.iter().enumerate() {
            if let Some(&(s, _)) = runs.get(k + AHEAD) {
                self.dev.prefetch_discard(Lpn(s));
            }
            self.discard_run(at, start, n);
        }
        let issued = runs.len();
        runs.clear();
        self.cp_discard_runs = runs;
        issued
    }

    /// End of a filesystem operation: send immediate discards, then run the
    /// upcall handler if a completion carried the UPCALL flag.
    pub(super) fn d2fs_after_op(&mut self, at: SimTime) {
        let Some(d) = &mut self.d2fs else { return };
        let mut now = std::mem::take(&mut d.now);
        self.stats.immediate_discard_blocks += now.len() as u64;
        self.discard_blocks(at, &mut now);
        self.d2fs.as_mut().expect("d2fs").now = now;
        self.wake_upcall_handler(at);
    }

    /// If a completion carried the UPCALL flag (or upcalls are left), the
    /// handler thread runs from then on. The caller does not wait for it.
    fn wake_upcall_handler(&mut self, at: SimTime) {
        let sig = self.dev.take_upcall_signal();
        let d = self.d2fs.as_mut().expect("d2fs");
        d.pending |= sig.is_some();
        if d.pending {
            let batch = match self.cfg.d2fs.as_ref().expect("d2fs").upcall_batch {
                0 => None,
                n => Some(n),
            };
            self.handle_upcalls(sig.unwrap_or(at), batch);
        }
    }

    /// A writer stalled on free sections: if a completion carried the
    /// UPCALL flag, wait for the handler to process every queued record.
    pub(super) fn await_upcall_handler(&mut self, t: SimTime) -> SimTime {
        match self.dev.take_upcall_signal() {
            Some(sig) => t.max(self.handle_upcalls(sig.max(t), None)),
            None => t,
        }
    }

    /// The upcall handler thread woken at `at`: process queued upcalls, at
    /// most `budget` records (tests crash in the middle). Returns when it is done.
    pub fn handle_upcalls(&mut self, at: SimTime, budget: Option<usize>) -> SimTime {
        let Some(d) = &mut self.d2fs else { return at };
        let start = d.handler.acquire(at);
        let mut t = start;
        let mut left = budget.unwrap_or(usize::MAX);
        let cost = SimDuration(self.cfg.d2fs.as_ref().expect("d2fs").upcall_record_ns);
        while left > 0 {
            let d = self.d2fs.as_mut().expect("d2fs");
            let (u, i) = match d.current.take().or_else(|| d.inbox.pop_front().map(|u| (u, 0))) {
                Some(c) => c,
                None => match self.dev.fetch_upcall() {
                    Some(u) => (u, 0),
                    None => {
                        self.d2fs.as_mut().expect("d2fs").pending = false;
                        break;
                    }
                },
            };
            let n = (u.records.len() - i).min(left);
            for (k, r) in u.records.iter().enumerate().skip(i).take(n) {
                self.prefetch_record(&u.records, k, i);
                // One record is failure-atomic: checkpoint is held off meanwhile.
                let s = self.cp_rwsem.read_from(t);
                t = s + cost;
                self.apply_record(r, t);
                self.cp_rwsem.read_until(t);
                self.d2fs.as_mut().expect("d2fs").last_record = r.id;
            }
            left -= n;
            let d = self.d2fs.as_mut().expect("d2fs");
            if i + n == u.records.len() {
                d.done_upcall = u.id;
                self.stats.upcalls_handled += 1;
            } else {
                d.current = Some((u, i + n));
            }
        }
        let d = self.d2fs.as_mut().expect("d2fs");
        d.handler.release(t);
        self.stats.upcall_handler_ns += (t - start).ns();
        t
    }

    /// Hints for the records after record `k`, which `apply_record` reads
    /// at random: the old block's SIT entry and SSA entry far ahead, then
    /// (the SSA entry cached) its dnode's entry, then the address slot.
    /// `first` is the record this call started at (a budgeted call may
    /// resume mid-upcall). Never changes results.
    #[inline]
    fn prefetch_record(&self, recs: &[MigrationRecord], k: usize, first: usize) {
        const FAR: usize = 12;
        const MID: usize = 8;
        const NEAR: usize = 4;
        // The far stage goes FAR_BATCH records at a time, so their page
        // walks overlap (see `workload::driver::IoTarget::HINT_BATCH`);
        // batches count from `first`, so a resumed call skips none.
        const FAR_BATCH: usize = 4;
        let main = self.layout.main_blkaddr;
        if (k - first) % FAR_BATCH == 0 {
            for r in recs.iter().skip(k + FAR).take(FAR_BATCH).filter(|r| r.old.0 >= main) {
                self.sm.prefetch_block(r.old.0);
                self.owner.prefetch(self.main_index(r.old.0));
            }
        }
        for (ahead, stage) in [(MID, 0), (NEAR, 1)] {
            if let Some(slot) = recs.get(k + ahead).filter(|r| r.old.0 >= main).and_then(|r| self.owner.get(self.main_index(r.old.0)).slot()) {
                self.nm.prefetch_slot(slot, stage);
            }
        }
    }

    /// Reflect one migration record in the filemap, SIT and SSA (§5.3).
    fn apply_record(&mut self, r: &MigrationRecord, now: SimTime) {
        let (old, new) = (r.old.0, r.new.0);
        assert!(old >= self.layout.main_blkaddr && new >= self.layout.main_blkaddr, "record {r:?} outside the main area");
        if !self.sm.is_valid(old) {
            self.stats.records_skipped += 1;
            return;
        }
        let own = self.owner.get(self.main_index(old));
        match own.slot() {
            None => {
                let nid = own.nid();
                let prev = self.nm.set_nat(nid, new as u32);
                assert_eq!(prev as u64, old, "SSA says block {old} holds node {nid}, NAT says {prev}");
            }
            Some(slot) => {
                let prev = self.nm.set_addr(slot, new as u32);
                assert_eq!(prev as u64, old, "SSA says block {old} belongs to {slot:?}, which points at {prev}");
            }
        }
        let old_sec = self.layout.sec_of_seg(self.layout.segno_of(old));
        self.sm.invalidate_undiscarded(old);
        self.sm.mark_valid(new, now);
        let i = self.main_index(new);
        self.owner.set(i, own);
        self.stats.records_applied += 1;
        if self.sm.section_valid(old_sec) == 0 {
            self.d2fs.as_mut().expect("d2fs").dead_since_cp += 1;
        }
    }

    /// D2FS's `balance_fs`: checkpoint when enough blocks were invalidated
    /// (or, if set, sections died); on a free-section fault, stall until CGC
    /// supplies a section.
    pub(super) fn d2fs_balance(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        // The handler is its own kernel thread: it also runs between the
        // chunks of one long call (a writeback of many dirty pages), not only
        // after the call. Otherwise a writeback that runs Coupled GC many
        // times leaves every record of it outstanding until it returns.
        self.wake_upcall_handler(now);
        let d = self.d2fs.as_ref().expect("d2fs");
        let regular = d.gc_first_sec as u64;
        let mut t = now;
        let due = match self.cfg.d2fs.as_ref().expect("d2fs").cp_dead_sections {
            // excess_prefree_segs in the artifact: whole segments of invalidated blocks.
            0 => d.invalidated_since_cp / crate::fs::layout::BLOCKS_PER_SEG as u64 > self.reclaim_segments() / 6,
            n => d.dead_since_cp >= n,
        };
        if due {
            t = self.checkpoint(t);
        }
        // The artifact's write stall (VOLFS_WRITE_STALL in f2fs_balance_fs,
        // segment.c; has_not_enough_free_secs_in_regular_region, segment.h):
        // below WRITE_STALL_SEC_RATIO (10%) of the regular region free, the
        // writer checkpoints once, synchronously, so the sections CGC emptied
        // (upcalls handled) turn free. It does not wait for more: the next
        // writer that finds the region short stalls again. This is §8.2's
        // "temporarily freezes free block allocation until the CGC reclaims
        // the free sections".
        if (self.sm.free_sections() as u64) * 100 < regular * WRITE_STALL_PCT {
            let start = t;
            t = self.await_upcall_handler(t);
            t = self.checkpoint(t);
            self.stats.write_stalls += 1;
            self.stats.write_stall_ns += (t - start).ns();
        }
        // Below that the artifact has nothing: with no free section left F2FS
        // would call its GC, which D2FS compiles to a panic. Here the writer
        // takes a free-section fault instead and asks the device for Coupled
        // GC rounds until a section frees (our departure, so a too-small
        // regular region slows down rather than stops). The fault comes while
        // a checkpoint still has room: sections CGC empties turn free only at
        // a checkpoint, and D2FS has no reserved sections for it.
        if self.sm.free_sections() > self.cp_secs() {
            return Ok(t);
        }
        self.stats.free_section_faults += 1;
        let start = t;
        // Bounded: each round either frees sections or makes the device reclaim one block.
        for _ in 0..64 * self.layout.main_sections {
            t = self.await_upcall_handler(t);
            t = self.checkpoint(t);
            if self.sm.free_sections() > self.cp_secs() {
                self.stats.fault_stall_ns += (t - start).ns();
                return Ok(t);
            }
            match self.dev.reclaim(t) {
                Some(done) => t = done,
                None => break,
            }
        }
        self.stats.fault_stall_ns += (t - start).ns();
        self.stats.out_of_space += 1;
        Err(FsError::NoSpace)
    }

    /// Free sections a checkpoint may need: its dirty nodes and dentries,
    /// and a fresh section for each node log whose current one fills.
    fn cp_secs(&self) -> u32 {
        // NR_CURSEG_NODE_TYPE: hot, warm and cold node logs.
        self.node_secs() + self.dent_secs() + crate::fs::layout::NR_CURSEG_TYPE / 2
    }

    /// Regular sections a checkpoint must keep prefree: unprocessed records
    /// still name blocks in them. Freeing one would let the host reuse an LBA
    /// that a late record then moves away, corrupting the new block (found by
    /// the crash test: a deferred discard lets CGC migrate a block the host
    /// had already invalidated). Pending upcalls come off the SQ first: their
    /// UPCALL flag rode on a completion the host has already received.
    pub(super) fn d2fs_sections_to_keep(&mut self) -> BTreeSet<u32> {
        let mut keep = BTreeSet::new();
        if self.d2fs.is_none() {
            return keep;
        }
        while let Some(u) = self.dev.fetch_upcall() {
            self.d2fs.as_mut().expect("d2fs").inbox.push_back(u);
        }
        let d = self.d2fs.as_ref().expect("d2fs");
        let cur = d.current.iter().flat_map(|(u, i)| u.records[*i..].iter());
        for r in cur.chain(d.inbox.iter().flat_map(|u| u.records.iter())) {
            let sec = self.layout.sec_of_seg(self.layout.segno_of(r.old.0));
            if sec < d.gc_first_sec {
                keep.insert(sec);
            }
        }
        if !keep.is_empty() {
            self.d2fs.as_mut().expect("d2fs").pending = true;
        }
        keep
    }

    /// Checkpoint hooks: after the pack is durable, discard what the old
    /// checkpoint referenced; then complete the upcalls this checkpoint covers.
    pub(super) fn d2fs_after_checkpoint(&mut self, t: SimTime) {
        let Some(d) = &mut self.d2fs else { return };
        d.cp_record = d.last_record;
        d.cp_done_upcall = d.done_upcall;
        d.dead_since_cp = 0;
        d.invalidated_since_cp = 0;
        let mut now = std::mem::take(&mut d.now);
        let upcall = d.cp_done_upcall;
        self.stats.immediate_discard_blocks += now.len() as u64;
        self.discard_blocks(t, &mut now);
        self.issue_cp_discard_runs(t);
        self.d2fs.as_mut().expect("d2fs").now = now;
        // The completion thread: one CQ entry for everything checkpointed.
        self.dev.complete_upcalls(upcall);
        if let Some(r) = &mut self.recovery {
            r.set_cp_record(self.d2fs.as_ref().expect("d2fs").cp_record);
        }
    }

    /// Sample region utilisation (at most once per second of simulated
    /// time; the flusher's tick calls it).
    pub(super) fn d2fs_sample(&mut self, now: SimTime) {
        // Due first: the utilisation walks every section, and the tick
        // comes far more often than a sample.
        if self.d2fs.as_ref().is_none_or(|d| now < d.next_sample) {
            return;
        }
        let Some((regular_pct, gc_pct)) = self.region_utilization() else { return };
        let d = self.d2fs.as_mut().expect("d2fs");
        d.samples.push(RegionSample { t_s: now.as_secs_f64(), regular_pct, gc_pct });
        d.next_sample = now + SAMPLE_EVERY;
    }
}

/// Append the run of `len` blocks from `start` (runs come in address
/// order), joining it to the last one when it goes on from there: a
/// discard command spans segment boundaries, as `discard_blocks` merges.
pub(super) fn add_run(runs: &mut Vec<(u64, u32)>, start: u64, len: u32) {
    match runs.last_mut() {
        Some((s, n)) if *s + *n as u64 == start => *n += len,
        _ => runs.push((start, len)),
    }
}
