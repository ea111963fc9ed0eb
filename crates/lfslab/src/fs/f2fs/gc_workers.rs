//! Foreground GC with several collectors at once: F2FS-M / F2FS-LM, P-GC
//! and ScaleLFS's dedicated collectors (scalelfs.txt §3.2.2, §4).
//!
//! A round runs inside the call that triggered foreground GC, as an event
//! loop over its workers (round2 spec §1.5, option B): each worker has its
//! own clock and does one step at a time (read a section's summaries, read
//! a share of a segment's valid blocks, move a batch of them, pick
//! victims), always the worker whose clock is earliest, so shared locks see
//! requests in time order and contention emerges from simulated time. CPU
//! stages are booked on the host's cores (`host::CpuPool`).
//!
//! Locks, as in Linux 6.0 fs/f2fs: `gc_data_segment` holds the
//! `i_gc_rwsem[WRITE]` of every inode owning a block of the segment from
//! the read to the last move (phase 3 takes them, `put_gc_inode` drops
//! them), so collectors on segments of the same files serialise; block
//! allocation holds the log's `curseg_mutex`; each SIT update
//! (`update_sit_entry`, old and new block) holds `sentry_lock`; victim
//! selection (`get_victim_by_default`) holds `seglist_lock` while it scans.
//! ScaleLFS replaces each of them (SVP, DWS, LSU, CVS) and the page cache
//! (DPB); `GcEngineConfig` switches them one by one (Table 3).
//!
//! Simplified, and said in the report: application threads stay blocked
//! for the whole round (the checkpoint that ends it holds cp_rwsem), and
//! the state a writer that arrived during it sees is the round's end. Each
//! moved block's instants are kept (`move_log.rs`), and such a writer's
//! first allocation is checked against them at its arrival: ScaleLFS's
//! false-positive GC reads, skipped writes and SVP conflicts are counted
//! there, while the moves themselves were booked whole.
//! A worker that waits on a lock held across steps sleeps and pays the
//! wake-up (`lock_wake_ns`).

use super::*;
use super::move_log::{owner_key, Meeting, MoveLog, MovedBlock};
use crate::fs::segment::SectionView;
use crate::fs::config::GcEngineKind;
use crate::host::{CpuPool, LockStats, LockTable, TimedLock};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// What the parallel engines did over a run (report only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ParallelGcStats {
    /// Rounds (DGC) or victims (P-GC) the event loop ran.
    pub rounds: u64,
    /// Victim scans and the segments they were charged for (those of the
    /// dirty sections they visited).
    pub victim_scans: u64,
    pub scanned_segments: u64,
    /// Dirty segments writers' SSR victim searches visited.
    #[serde(default)]
    pub ssr_scanned_segments: u64,
    /// Sum of each worker's busy time (its steps less their lock waits),
    /// and of the rounds' wall time: busy / wall is the mean number of
    /// collectors at work.
    pub worker_busy_ns: u64,
    pub round_ns: u64,
    /// Pages reserved in SVP's per-file tables.
    pub svp_reservations: u64,
    /// Writes a collector skips because a writer replaced the block after
    /// the victim's bitmap was scanned (the node-lock rule, §4.7), and of
    /// them the reads of a block already replaced (false-positive GC reads,
    /// Table 1); found at the writer's arrival (`move_log.rs`).
    pub skipped_writes: u64,
    pub false_positive_reads: u64,
    /// Moves of blocks a writer replaced before the collector looked at
    /// them (the kernel would not have moved them; booked all the same).
    #[serde(default)]
    pub stale_moves: u64,
    /// Writers that found their page reserved by a collector (SVP) and
    /// waited for its release.
    #[serde(default)]
    pub svp_conflicts: u64,
    /// Writers that arrived during a round and allocated before they
    /// balanced (LFS-mode O_DIRECT, a writeback chunk's first page): the
    /// only ones that can meet a collector.
    #[serde(default)]
    pub writers_in_rounds: u64,
}

/// Locks and cores of the GC paths (see the module doc).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct GcWorkers {
    pub(super) cpu: CpuPool,
    seglist_lock: TimedLock,
    sentry_lock: TimedLock,
    /// The cold data log's `curseg_mutex`, where GC writes without DWS.
    curseg_mutex: TimedLock,
    /// Per-inode `i_gc_rwsem[WRITE]` as GC takes it, held across steps.
    i_gc_rwsem: LockStats,
    /// `gc_lock` handed from one GC thread to the next (F2FS-M, P-GC).
    gc_lock: LockStats,
    pub(super) stats: ParallelGcStats,
    /// Blocks the filesystem submitted per second (read, write), by
    /// submission time (ScaleLFS Fig. 9b); kept when the cores are.
    io_per_s: Vec<[u64; 2]>,
    /// The moves of the last foreground calls, for writers that arrived
    /// during them.
    #[serde(default)]
    pub(super) moves: MoveLog,
}

/// Hold `lock` for `d` of work the holder does on a core (a scan, SIT
/// updates): booked on the lock, counted busy on the host's cores.
fn hold_busy(lock: &mut TimedLock, cpu: &mut CpuPool, at: SimTime, d: SimDuration, wake: SimDuration) -> (SimTime, SimTime) {
    let (s, end) = lock.hold(at, d, wake);
    cpu.account(s, d);
    (s, end)
}

impl GcWorkers {
    #[inline]
    pub(super) fn note_io(&mut self, at: SimTime, read: u64, write: u64) {
        if !self.cpu.tracked() {
            return;
        }
        let i = (at.0 / crate::host::CPU_BUCKET.0) as usize;
        if self.io_per_s.len() <= i {
            self.io_per_s.resize(i + 1, [0; 2]);
        }
        self.io_per_s[i][0] += read;
        self.io_per_s[i][1] += write;
    }

    /// The host's cores are tracked when they are limited or a parallel
    /// engine runs (the report's utilisation); otherwise bursts cost nothing.
    pub(super) fn new(cores: u32, kind: GcEngineKind) -> Self {
        let cpu = if cores == 0 && kind == GcEngineKind::Serial { CpuPool::untracked() } else { CpuPool::new(cores) };
        GcWorkers { cpu, ..Default::default() }
    }
}

/// A share of one segment's valid blocks a worker reads and moves.
struct Share {
    segno: u32,
    blocks: Vec<u64>,
    /// When the victim's valid-page bitmap was read for it.
    scanned: SimTime,
}

/// Blocks read and waiting to move: (old block, content, read from the
/// device), and the instants a writer is checked against (`MovedBlock`).
struct Batch {
    blocks: Vec<(u64, Fingerprint, bool)>,
    scanned: SimTime,
    locked: Option<SimTime>,
    read: SimTime,
}

#[derive(Default)]
struct Worker {
    t: SimTime,
    /// Sections claimed and not started (DGC).
    victims: VecDeque<u32>,
    /// The section being collected, if its summaries are read.
    section: Option<u32>,
    shares: VecDeque<Share>,
    /// Batches read and waiting to move.
    batches: VecDeque<Batch>,
    /// Inodes whose `i_gc_rwsem` the worker holds, and since when.
    held: Vec<(Ino, SimTime)>,
    /// Blocked on an inode another worker holds, since when.
    parked: bool,
    waiting_since: Option<SimTime>,
    finished: bool,
    busy_ns: u64,
    /// Time spent waiting on timed locks inside steps (not work).
    lock_wait_ns: u64,
    /// Its dedicated write stream (DWS).
    stream: usize,
}

/// State of one round shared by its workers.
#[derive(Default)]
struct Round {
    /// Sections claimed by some worker and not yet done (CVS's victim bitmap).
    claimed: BTreeSet<u32>,
    /// Valid blocks of claimed sections not yet moved (room their moves need).
    pending_valid: u64,
    /// Inode -> worker holding its `i_gc_rwsem`.
    holders: BTreeMap<Ino, usize>,
    /// Workers parked per inode, woken when it is released.
    parked: BTreeMap<Ino, Vec<usize>>,
    sections_done: u64,
    /// Dedicated streams that move something this round.
    writers: BTreeSet<usize>,
    /// Nodes the claimed sections' moves dirty: the dnodes of their data
    /// blocks and their node blocks (the checkpoint after the round writes them).
    dirtied_nodes: BTreeSet<Nid>,
    /// Whether workers pick their own victims (DGC) or get preassigned shares.
    self_select: bool,
}

impl<D: BlockDevice> F2fs<D> {
    /// Book `d` of GC CPU on the host's cores at or after `at`.
    fn gc_cpu(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        self.gc.cpu.run(at, d)
    }

    /// An application thread's CPU burst (submit, completion) on the host's cores.
    pub fn host_cpu(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        self.gc.cpu.run(at, d)
    }

    /// Filesystem-submitted (read, write) MB per simulated second.
    pub fn submitted_mb_per_s(&self) -> Vec<(f64, f64)> {
        let mb = |b: u64| (b * 4096) as f64 / 1e6;
        self.gc.io_per_s.iter().map(|x| (mb(x[0]), mb(x[1]))).collect()
    }

    /// The host's CPU utilisation per second, percent of its cores.
    pub fn cpu_utilisation_pct(&self) -> Vec<f64> {
        self.gc.cpu.utilisation_pct(self.cfg.host_cores)
    }

    /// What the GC engine did (the serial engine's scans and writers' SSR
    /// searches included).
    pub fn gc_engine_stats(&self) -> &ParallelGcStats {
        &self.gc.stats
    }

    /// The GC paths' locks: ScaleLFS Table 3's four and the two every
    /// engine takes. Serial F2FS reports gc_lock and the cold log's
    /// curseg_mutex from its own locks.
    pub fn gc_lock_table(&self) -> LockTable {
        let mut gc_lock = self.gc_lock.stats.clone();
        gc_lock.merge(&self.gc.gc_lock);
        let mut curseg = self.curseg_lock[LogType::ColdData.index()].stats.clone();
        curseg.merge(&self.gc.curseg_mutex.stats);
        LockTable(vec![
            ("gc_lock".into(), gc_lock),
            ("i_gc_rwsem".into(), self.gc.i_gc_rwsem.clone()),
            ("curseg_mutex (cold data)".into(), curseg),
            ("sentry_lock".into(), self.gc.sentry_lock.stats.clone()),
            ("seglist_lock".into(), self.gc.seglist_lock.stats.clone()),
        ])
    }

    /// The engine's settings with ScaleLFS's techniques only where its
    /// collectors run (F2FS-M and P-GC use F2FS's shared resources).
    pub fn engine(&self) -> crate::fs::GcEngineConfig {
        let mut e = self.cfg.gc_engine.clone();
        if e.kind != GcEngineKind::Dgc {
            (e.svp, e.dws, e.lsu, e.cvs, e.dpb) = (false, false, false, false, false);
        }
        e
    }

    fn wake(&self) -> SimDuration {
        SimDuration(self.cfg.gc_engine.lock_wake_ns)
    }

    /// Free sections plus those a checkpoint will free: F2FS counts the
    /// sections a GC call freed (`has_not_enough_free_secs(sbi, sec_freed, 0)`).
    fn not_enough_counting_prefree(&self) -> bool {
        self.not_enough_free_secs_freed(self.sm.prefree_sections() as u32)
    }

    /// Victim selection's scan over the dirty map: `units` sections (every
    /// dirty one in foreground GC; `max_victim_search` bounds only BG_GC),
    /// charged per segment they hold.
    fn scan_cost(&mut self, units: usize) -> SimDuration {
        let segs = units as u64 * self.layout.segs_per_sec as u64;
        self.gc.stats.victim_scans += 1;
        self.gc.stats.scanned_segments += segs;
        SimDuration(self.cfg.gc_engine.victim_scan_ns_per_segment * segs)
    }

    /// The serial engines' victim scan (F2FS, F2FS-M, P-GC): under
    /// `seglist_lock`; returns when the victim is known.
    pub(super) fn serial_scan(&mut self, at: SimTime, units: usize) -> SimTime {
        if self.cfg.gc_engine.victim_scan_ns_per_segment == 0 {
            return at;
        }
        let d = self.scan_cost(units);
        let wake = self.wake();
        hold_busy(&mut self.gc.seglist_lock, &mut self.gc.cpu, at, d, wake).1
    }

    /// An SSR victim search a data write made (`f2fs_allocate_data_block`
    /// -> `allocate_segment` -> `get_ssr_segment` -> `f2fs_get_victim`):
    /// the writer scans `segs` dirty segments under `seglist_lock`, inside
    /// its log's `curseg_mutex`, at the per-segment cost of GC's scan (the
    /// same function). Returns when the writer goes on.
    pub(super) fn ssr_search(&mut self, log: LogType, at: SimTime, segs: u64) -> SimTime {
        self.gc.stats.ssr_scanned_segments += segs;
        let ns = self.cfg.gc_engine.victim_scan_ns_per_segment;
        if ns == 0 {
            return at;
        }
        let d = SimDuration(ns * segs);
        let wake = self.wake();
        let (_, end) = hold_busy(&mut self.gc.seglist_lock, &mut self.gc.cpu, at, d, wake);
        // The log's mutex is held across the search.
        let (_, held) = self.curseg_lock[log.index()].hold(at, end - at, SimDuration(0));
        end.max(held)
    }

    /// F2FS-M / F2FS-LM: the next section is collected by another GC thread,
    /// which slept on `gc_lock` and is woken when the previous one drops it.
    pub(super) fn multi_handoff(&mut self, at: SimTime) -> SimTime {
        let got = at + self.wake();
        self.gc.gc_lock.note(at, got, SimDuration(0));
        got
    }

    // ---- P-GC ------------------------------------------------------------------

    /// P-GC: collect `secno` (its summaries first), splitting each
    /// segment's valid blocks among the threads when more than
    /// `pgc_split_pct` of the section is valid; returns when every share is
    /// moved.
    pub(super) fn pgc_section(&mut self, at: SimTime, secno: u32) -> Result<SimTime, FsError> {
        let e = self.engine();
        let shares = self.section_shares(secno, at);
        let ssa: Vec<u64> = shares.iter().map(|s| self.layout.ssa_block_of(s.segno)).collect();
        let (at, _) = self.submit_reads(at, &ssa);
        let per_sec = self.layout.blocks_per_sec();
        let split = self.sm.section_valid(secno) as u64 * 100 > per_sec * e.pgc_split_pct as u64;
        let k = if split { e.threads as usize } else { 1 };
        let mut workers: Vec<Worker> = (0..k).map(|i| Worker { t: if i == 0 { at } else { at + self.wake() }, stream: i, ..Default::default() }).collect();
        for share in shares {
            let is_node = self.sm.segment_log(share.segno).is_some_and(|l| l.is_node());
            if is_node || k == 1 {
                workers[0].shares.push_back(share);
                continue;
            }
            let chunk = share.blocks.len().div_ceil(k).max(1);
            for (i, part) in share.blocks.chunks(chunk).enumerate() {
                workers[i].shares.push_back(Share { segno: share.segno, blocks: part.to_vec(), scanned: share.scanned });
            }
        }
        let mut round = Round::default();
        self.sm.set_gc_victim(Some(secno));
        let r = self.run_workers(&mut workers, &mut round);
        self.sm.set_gc_victim(None);
        let end = r?;
        self.gc.stats.rounds += 1;
        self.gc.stats.round_ns += (end - at).ns();
        Ok(self.write_closed_summaries(end).max(end))
    }

    /// One share per segment of `secno` holding valid blocks, its bitmap read at `at`.
    fn section_shares(&self, secno: u32, at: SimTime) -> Vec<Share> {
        let spsec = self.layout.segs_per_sec;
        (secno * spsec..(secno + 1) * spsec)
            .filter(|&s| self.sm.segment_valid(s) > 0)
            .map(|segno| Share { segno, blocks: self.sm.valid_blocks_of(segno).collect(), scanned: at })
            .collect()
    }

    // ---- DGC -------------------------------------------------------------------

    /// ScaleLFS's `balance_fs`: rounds of dedicated collectors until enough
    /// sections are free, a checkpoint after each (prefree to free).
    pub(super) fn dgc_foreground(&mut self, got: SimTime) -> Result<SimTime, (SimTime, FsError)> {
        let mut t = got;
        while self.not_enough_free_secs() {
            if self.sm.prefree_sections() > 0 {
                t = self.gc_checkpoint(t);
                continue;
            }
            let (end, sections) = self.dgc_round(t).map_err(|e| (t, e))?;
            t = end;
            if sections == 0 {
                // Only full sections, or no room to move one: F2FS's -ENODATA.
                self.stats.gc_futile += 1;
                break;
            }
        }
        if self.sm.prefree_sections() > 0 {
            t = self.gc_checkpoint(t);
        }
        Ok(t)
    }

    /// ScaleLFS foreground GC (§4.3): per-core collectors wake, each picks
    /// victims and collects them; a collector that has finished its victims
    /// re-checks the condition, and the round ends when it holds and every
    /// collector has finished ([A] round2 spec §1.2). Returns the round's
    /// end and the sections it collected.
    pub(super) fn dgc_round(&mut self, at: SimTime) -> Result<(SimTime, u64), FsError> {
        let n = self.cfg.gc_engine.threads as usize;
        let wake = self.wake();
        // The triggering thread wakes the collectors.
        let mut workers: Vec<Worker> = (0..n).map(|i| Worker { t: at + wake, stream: i, ..Default::default() }).collect();
        let mut round = Round { self_select: true, ..Default::default() };
        let end = self.run_workers(&mut workers, &mut round)?;
        self.gc.stats.rounds += 1;
        self.gc.stats.round_ns += (end - at).ns();
        Ok((end, round.sections_done))
    }

    /// M: victims per scan (§4.5.1: 0.1% of the segments, "16 segments ...
    /// for 30 GB"); one without CVS.
    fn victims_per_scan(&self) -> usize {
        let e = self.engine();
        if !e.cvs {
            return 1;
        }
        match e.victims_per_scan {
            0 => ((self.layout.main_segments as u64 / 1000).max(1) / self.layout.segs_per_sec as u64).max(1) as usize,
            m => m as usize,
        }
    }

    /// A DGC's victim selection: the whole dirty bitmap scanned (with CVS
    /// lock-free, else under `seglist_lock`), the M cheapest unclaimed
    /// sections claimed, as many as free space can take their moves.
    fn dgc_select(&mut self, w: &mut Worker, round: &mut Round) {
        if !self.not_enough_counting_prefree() {
            w.finished = true;
            return;
        }
        let per_sec = self.layout.blocks_per_sec();
        let mut cands: Vec<SectionView> =
            self.sm.victim_candidates().into_iter().filter(|c| !round.claimed.contains(&c.secno)).collect();
        let scan = self.scan_cost(cands.len() + round.claimed.len());
        let e = self.engine();
        w.t = if e.cvs {
            self.gc_cpu(w.t, scan)
        } else {
            let wake = self.wake();
            let (s, end) = hold_busy(&mut self.gc.seglist_lock, &mut self.gc.cpu, w.t, scan, wake);
            w.lock_wait_ns += (s - w.t).ns();
            end
        };
        let m = self.victims_per_scan();
        cands.retain(|c| (c.valid_blocks as u64) < per_sec);
        if cands.len() > m {
            cands.select_nth_unstable_by_key(m, |c| (c.valid_blocks, c.secno));
            cands.truncate(m);
        }
        cands.sort_by_key(|c| (c.valid_blocks, c.secno));
        // Room for the moves within the free sections: every claimed
        // victim's valid blocks, plus a section per stream that writes them
        // (each may leave its last one part-filled) and two to spare.
        let streams = if e.dws { round.writers.len() as u64 + u64::from(!round.writers.contains(&w.stream)) } else { 1 };
        for c in cands {
            let room = self.sm.free_sections() as u64 * per_sec;
            // The checkpoint that ends the round writes every dirty node
            // before any prefree section is free again: keep room for the
            // nodes dirty now and those the claimed moves dirty, or it
            // finds none (has_not_enough_free_secs counts dirty nodes for
            // the same reason; the kernel's FG_GC moves one section between
            // checks, ScaleLFS's round many).
            let new_nodes = self.nodes_dirtied_by(c.secno, &round.dirtied_nodes);
            let nodes = (self.nm.dirty_count() + round.dirtied_nodes.len() + new_nodes.len()) as u64;
            if room < round.pending_valid + c.valid_blocks as u64 + nodes + (streams + 2) * per_sec {
                break;
            }
            round.dirtied_nodes.extend(new_nodes);
            round.writers.insert(w.stream);
            if e.cvs {
                w.t = self.gc_cpu(w.t, SimDuration(e.atomic_ns));
            }
            round.claimed.insert(c.secno);
            round.pending_valid += c.valid_blocks as u64;
            w.victims.push_back(c.secno);
        }
        if w.victims.is_empty() {
            w.finished = true;
        }
    }

    /// The nodes, not in `known`, whose blocks or dnode slots the valid
    /// blocks of section `secno` occupy: what moving them dirties.
    fn nodes_dirtied_by(&self, secno: u32, known: &BTreeSet<Nid>) -> BTreeSet<Nid> {
        let spsec = self.layout.segs_per_sec;
        (secno * spsec..(secno + 1) * spsec)
            .flat_map(|segno| self.sm.valid_blocks_of(segno))
            .map(|b| self.owner.get(self.main_index(b)).nid())
            .filter(|n| !known.contains(n))
            .collect()
    }

    /// Writers that arrived during a parallel round: the foreground call
    /// from `from` to `until` has ended, so its moves are kept for them.
    pub(super) fn close_moves(&mut self, from: SimTime, until: SimTime) {
        self.gc.moves.close(from, until);
    }

    /// A writer of `kind` arriving at `x` replaces the blocks now at `offs`
    /// of `ino` (its first allocation, made before it balances, unless it
    /// writes in place): count what it met of a round that was under way
    /// (`move_log.rs`).
    pub(super) fn writer_meets_gc(&mut self, x: SimTime, ino: Ino, offs: std::ops::Range<u64>, kind: WriteKind) {
        if !self.gc.moves.live_at(x) || self.should_ipu(kind) {
            return;
        }
        let direct = kind == WriteKind::Direct;
        let e = self.engine();
        self.gc.stats.writers_in_rounds += 1;
        let sync = super::move_log::Sync { lsu: e.lsu, svp: e.svp };
        for off in offs {
            let Some(slot) = self.nm.probe(ino, off) else { continue };
            let blk = self.nm.get_addr(slot);
            if blk == NULL_ADDR {
                continue;
            }
            let st = &mut self.gc.stats;
            match self.gc.moves.meet(x, blk as u64, owner_key(slot), direct, sync) {
                Meeting::Stale => st.stale_moves += 1,
                Meeting::FalsePositiveRead => {
                    st.false_positive_reads += 1;
                    st.skipped_writes += 1;
                }
                Meeting::SkippedWrite => st.skipped_writes += 1,
                Meeting::SvpConflict => st.svp_conflicts += 1,
                Meeting::None => {}
            }
        }
    }

    // ---- the event loop ----------------------------------------------------------

    /// Run workers until each has finished; returns the last one's end.
    fn run_workers(&mut self, workers: &mut [Worker], round: &mut Round) -> Result<SimTime, FsError> {
        let mut heap: BinaryHeap<Reverse<(SimTime, usize)>> = workers.iter().enumerate().map(|(i, w)| Reverse((w.t, i))).collect();
        let mut end = workers.iter().map(|w| w.t).min().unwrap_or(SimTime::ZERO);
        while let Some(Reverse((_, i))) = heap.pop() {
            let mut w = std::mem::take(&mut workers[i]);
            let (before, waited) = (w.t, w.lock_wait_ns);
            let r = self.worker_step(i, &mut w, round);
            w.busy_ns += (w.t - before).ns() - (w.lock_wait_ns - waited);
            let woken = if w.parked { Vec::new() } else { self.release_if_done(i, &mut w, round) };
            let t = w.t;
            let (finished, parked) = (w.finished, w.parked);
            workers[i] = w;
            r?;
            for (p, at) in woken {
                workers[p].parked = false;
                workers[p].t = workers[p].t.max(at);
                heap.push(Reverse((workers[p].t, p)));
            }
            if finished {
                end = end.max(t);
                self.gc.stats.worker_busy_ns += workers[i].busy_ns;
            } else if !parked {
                heap.push(Reverse((t, i)));
            }
        }
        assert!(workers.iter().all(|w| w.finished), "a GC worker was left parked: {:?}", round.parked);
        Ok(end)
    }

    /// A worker whose current share is moved drops its inodes' locks and
    /// wakes whoever waits on them (`put_gc_inode`).
    fn release_if_done(&mut self, i: usize, w: &mut Worker, round: &mut Round) -> Vec<(usize, SimTime)> {
        if !w.batches.is_empty() || w.held.is_empty() {
            return Vec::new();
        }
        let wake = self.wake();
        let mut woken = Vec::new();
        for (ino, since) in std::mem::take(&mut w.held) {
            assert_eq!(round.holders.remove(&ino), Some(i), "worker {i} releasing inode {ino} it does not hold");
            self.gc.i_gc_rwsem.hold_ns += (w.t - since).ns();
            for p in round.parked.remove(&ino).unwrap_or_default() {
                woken.push((p, w.t + wake));
            }
        }
        woken
    }

    /// One step of worker `i`.
    fn worker_step(&mut self, i: usize, w: &mut Worker, round: &mut Round) -> Result<(), FsError> {
        if let Some(batch) = w.batches.pop_front() {
            round.pending_valid = round.pending_valid.saturating_sub(batch.blocks.len() as u64);
            return self.move_batch(w, batch);
        }
        if let Some(share) = w.shares.pop_front() {
            return self.load_share(i, w, share, round);
        }
        if let Some(sec) = w.section.take() {
            // The section is empty: prefree now, free at the checkpoint.
            debug_assert_eq!(self.sm.section_valid(sec), 0, "collected section {sec} still holds valid blocks");
            w.t = self.write_closed_summaries(w.t).max(w.t);
            round.claimed.remove(&sec);
            round.sections_done += 1;
            self.stats.gc_fg_count += 1;
            return Ok(());
        }
        if let Some(sec) = w.victims.pop_front() {
            // do_garbage_collect reads the section's SSA blocks ahead.
            let shares = self.section_shares(sec, w.t);
            let ssa: Vec<u64> = shares.iter().map(|s| self.layout.ssa_block_of(s.segno)).collect();
            let (done, _) = self.submit_reads(w.t, &ssa);
            w.t = done;
            w.shares.extend(shares);
            w.section = Some(sec);
            return Ok(());
        }
        if round.self_select {
            self.dgc_select(w, round);
        } else {
            w.finished = true;
        }
        Ok(())
    }

    /// Take the share's locks, look its blocks up and read the uncached
    /// ones; node blocks are rewritten in this step (`gc_node_segment`).
    fn load_share(&mut self, i: usize, w: &mut Worker, share: Share, round: &mut Round) -> Result<(), FsError> {
        let c = self.cfg.costs.gc;
        let e = self.engine();
        let n = share.blocks.len() as u64;
        if self.sm.segment_log(share.segno).is_some_and(|l| l.is_node()) {
            let nids: Vec<Nid> = share.blocks.iter().map(|&b| self.owner.get(self.main_index(b)).nid()).collect();
            let cpu = SimDuration((c.meta_ns + c.page_cache_ns + c.write_ns) * n);
            let t = self.gc_cpu(w.t, cpu);
            self.stats.gc_moved_node_blocks += nids.len() as u64;
            self.write_nodes(t, &nids)?;
            w.t = t;
            round.pending_valid = round.pending_valid.saturating_sub(n);
            return Ok(());
        }
        let slots: Vec<DnodeSlot> =
            share.blocks.iter().map(|&b| self.owner.get(self.main_index(b)).slot().expect("a data segment holds data blocks")).collect();
        // i_gc_rwsem[WRITE] of every inode in the share, all or none (a
        // worker that finds one held sleeps until it is dropped).
        let locked = (!e.svp).then_some(w.t);
        if !e.svp {
            let mut inos: Vec<Ino> = slots.iter().map(|s| self.nm.node(s.nid).ino).collect();
            inos.sort_unstable();
            inos.dedup();
            if let Some(&busy) = inos.iter().find(|ino| round.holders.get(ino).is_some_and(|&h| h != i)) {
                round.parked.entry(busy).or_default().push(i);
                w.parked = true;
                w.waiting_since.get_or_insert(w.t);
                w.shares.push_front(share);
                return Ok(());
            }
            if let Some(since) = w.waiting_since.take() {
                self.gc.i_gc_rwsem.contended += 1;
                self.gc.i_gc_rwsem.wait_ns += (w.t - since).ns();
            }
            for ino in inos {
                round.holders.insert(ino, i);
                w.held.push((ino, w.t));
                self.gc.i_gc_rwsem.acquisitions += 1;
            }
        }
        // Phases 0-2: NAT and node lookups, once the summaries are in.
        w.t = self.gc_cpu(w.t, SimDuration(c.meta_ns * n));
        let mut data: Vec<Option<Fingerprint>> = vec![None; share.blocks.len()];
        let (mut to_read, mut read_idx) = (Vec::new(), Vec::new());
        for (k, (&b, slot)) in share.blocks.iter().zip(&slots).enumerate() {
            let node = self.nm.node(slot.nid);
            // With DPB, GC reads into its own buffer, never the page cache.
            match (!e.dpb).then(|| self.cache.peek_clean(node.ino, node.start_off + slot.ofs as u64)).flatten() {
                Some(fp) => data[k] = Some(Fingerprint(fp)),
                None => {
                    to_read.push(b);
                    read_idx.push(k);
                }
            }
        }
        let read_at = w.t;
        let (read_done, got) = self.submit_reads(w.t, &to_read);
        let mut from_device = vec![false; data.len()];
        for (k, g) in read_idx.into_iter().zip(got) {
            data[k] = g;
            from_device[k] = true;
        }
        // Through the page cache, phase 3 grabs the pages and walks the
        // dnodes while their reads run (as the serial engine's
        // gc_section), and the moves wait only for what is left of them;
        // the reads go out at the share's start here (one batch). With
        // DPB the collector reads into its own buffer and then moves.
        if !e.dpb {
            w.t = self.gc_cpu(w.t, c.before_move(n));
        }
        self.stats.gc_stage_read_ns += read_done.saturating_since(w.t).ns();
        w.t = w.t.max(read_done);
        let blocks: Vec<(u64, Fingerprint, bool)> = share
            .blocks
            .iter()
            .zip(data)
            .zip(from_device)
            .map(|((&b, fp), dev)| (b, fp.expect("a valid block holds data"), dev))
            .collect();
        for chunk in blocks.chunks(e.batch_blocks as usize) {
            w.batches.push_back(Batch { blocks: chunk.to_vec(), scanned: share.scanned, locked, read: read_at });
        }
        Ok(())
    }

    /// Move a batch (`move_data_page`): the page through the page cache (or
    /// the DPB), a new block from the log (the worker's own with DWS), the
    /// SIT updated, the dnode repointed, the write dispatched.
    fn move_batch(&mut self, w: &mut Worker, batch: Batch) -> Result<(), FsError> {
        let c = self.cfg.costs.gc;
        let e = self.engine();
        let n = batch.blocks.len() as u64;
        let reserved = w.t;
        let wake = self.wake();
        let mut t = w.t;
        if e.svp {
            // Reserve and release each page in the file's hash table (CAS).
            t = self.gc_cpu(t, SimDuration(e.svp_op_ns * 2 * n));
            self.gc.stats.svp_reservations += n;
        }
        let page = if e.dpb { e.dpb_ns } else { c.page_cache_ns };
        // Without DPB, phase 3's share of this CPU ran in load_share.
        t = self.gc_cpu(t, if e.dpb { SimDuration((page + c.filemap_ns) * n) } else { c.in_move(n) });
        self.stats.gc_stage_page_cache_ns += page * n;
        self.stats.gc_stage_filemap_ns += c.filemap_ns * n;
        // f2fs_allocate_data_block: under the log's curseg_mutex (none with
        // DWS: the collector's own stream), allocate, then update the SIT
        // entries of the new and the old block (two per block) under
        // sentry_lock taken inside it (atomics with LSU).
        let alloc = SimDuration(self.cfg.costs.alloc_ns * n);
        let sit = 2 * n;
        let sit_d = SimDuration(if e.lsu { e.atomic_ns } else { e.sentry_hold_ns } * sit);
        let inner = |fs: &mut Self, w: &mut Worker, at: SimTime| -> SimTime {
            if e.lsu {
                return fs.gc_cpu(at, sit_d);
            }
            let (s, end) = hold_busy(&mut fs.gc.sentry_lock, &mut fs.gc.cpu, at, sit_d, wake);
            w.lock_wait_ns += (s - at).ns();
            end
        };
        t = if e.dws {
            let a = self.gc_cpu(t, alloc);
            inner(self, w, a)
        } else {
            let s = self.gc.curseg_mutex.fit(t, alloc + sit_d, wake);
            w.lock_wait_ns += (s - t).ns();
            self.gc.cpu.account(s, alloc);
            let end = inner(self, w, s + alloc);
            self.gc.curseg_mutex.hold_at(t, s, end - s);
            end
        };
        let mut writes = Vec::with_capacity(batch.blocks.len());
        for (old, fp, dev) in batch.blocks {
            let own = self.owner.get(self.main_index(old));
            let new = if e.dws {
                self.sm.alloc_stream(w.stream, t).inspect_err(|_| self.stats.out_of_space += 1)?
            } else {
                self.sm.alloc(LogType::ColdData, t, false).inspect_err(|_| self.stats.out_of_space += 1)?
            };
            let slot = own.slot().expect("a data segment holds data blocks");
            self.repoint_moved(old, new, own);
            self.gc.moves.record(MovedBlock {
                new,
                owner: owner_key(slot),
                scanned: batch.scanned,
                locked: batch.locked,
                read: batch.read,
                from_device: dev,
                reserved,
                moved: t,
            });
            writes.push((new, fp));
        }
        let write = SimDuration(c.write_ns * n);
        t = self.gc_cpu(t, write);
        self.stats.gc_stage_write_ns += write.ns();
        self.stats.gc_moved_data_blocks += n;
        self.stats.data_write_blocks += n;
        self.submit_writes(t, &writes);
        w.t = t;
        Ok(())
    }
}
