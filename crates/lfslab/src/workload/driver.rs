//! The workload driver: runs fio-like jobs in simulated time against an
//! `IoTarget` (the raw device or a filesystem).
//!
//! Each job clone (fio `numjobs`) is one host thread: a serial CPU that pays
//! `HostCosts` to submit and reap each I/O and keeps up to `iodepth` I/Os in
//! flight. The target executes an I/O when it is submitted and reports when
//! it completes; the scheduler delivers completions in time order. Latency
//! is fio's clat as the thread sees it: from the start of submission to the
//! end of completion processing.
//!
//! fio semantics kept: `fsync=N` drains in-flight I/O, then fsyncs, and the
//! thread waits for it; `stonewall` starts a job when every earlier job has
//! finished; `runtime` with `time_based` runs for the whole runtime, without
//! it a job also stops after `size` (or `io_size`); an iolog job replays its
//! log in order, at the logged times unless `replay_no_stall`.

use super::distribution::OffsetSampler;
use super::iolog::IologAction;
use super::job::JobSpec;
use crate::metrics::{LatencyHistogram, ThroughputSeries};
use crate::nand::SLOT_BYTES;
use crate::sim::{mix64, LimitExceeded, Limits, Scheduler, SimDuration, SimRng, SimTime};

/// Host CPU cost per I/O. Defaults are an assumption of roughly 2 us each
/// way for syscall + block layer + driver and interrupt + completion, in
/// line with the software-overhead breakdown of Yang et al., "When Poll Is
/// Better than Interrupt" (FAST'12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HostCosts {
    pub submit_ns: u64,
    pub complete_ns: u64,
}

impl Default for HostCosts {
    fn default() -> Self {
        HostCosts { submit_ns: 2_000, complete_ns: 2_000 }
    }
}

#[derive(Clone, Debug, Default)]
pub struct DirResult {
    pub ios: u64,
    pub bytes: u64,
    /// From the call until the thread has its completion (fio's lat: the
    /// submission cost, then the rest).
    pub clat: LatencyHistogram,
}

impl DirResult {
    /// One call of `bytes` that took `lat`.
    pub fn record(&mut self, bytes: u64, lat: SimDuration) {
        self.ios += 1;
        self.bytes += bytes;
        self.clat.record(lat);
    }

    fn merge(&mut self, o: &DirResult) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.clat.merge(&o.clat);
    }
}

/// One thread's (fio: one clone's) results, or a job's when its clones
/// are reported together (`group_reporting`).
#[derive(Clone, Debug)]
pub struct JobResult {
    pub name: String,
    /// Index of its job in the scenario's jobs.
    pub job: usize,
    pub read: DirResult,
    pub write: DirResult,
    pub trim: DirResult,
    /// fsync calls.
    pub sync: DirResult,
    pub start: SimTime,
    pub end: SimTime,
}

impl JobResult {
    pub fn new(name: &str, start: SimTime) -> Self {
        JobResult {
            name: name.to_string(),
            job: 0,
            read: DirResult::default(),
            write: DirResult::default(),
            trim: DirResult::default(),
            sync: DirResult::default(),
            start,
            end: start,
        }
    }

    fn merge(&mut self, o: &JobResult) {
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.trim.merge(&o.trim);
        self.sync.merge(&o.sync);
        self.start = self.start.min(o.start);
        self.end = self.end.max(o.end);
    }
}

/// Fold each `group_reporting` job's clones into one result, in order.
fn group(results: Vec<JobResult>, jobs: &[JobSpec]) -> Vec<JobResult> {
    let mut out: Vec<JobResult> = Vec::with_capacity(results.len());
    for r in results {
        match out.last_mut() {
            Some(last) if last.job == r.job && jobs[r.job].group_reporting => last.merge(&r),
            _ => out.push(r),
        }
    }
    out
}

pub struct RunOutcome {
    pub jobs: Vec<JobResult>,
    pub end: SimTime,
    pub events: u64,
    pub series: ThroughputSeries,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Sync,
    Datasync,
    Trim,
}

impl OpKind {
    fn is_sync(self) -> bool {
        matches!(self, OpKind::Sync | OpKind::Datasync)
    }
}

/// One I/O of a clone: `blocks` at block `off` of the clone's file `file`
/// (raw device: file 0, `off` is the LBA). Writes carry data tag `tag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub kind: OpKind,
    pub file: u32,
    pub off: u64,
    pub blocks: u32,
    pub tag: u64,
}

/// What the driver runs I/O against.
pub trait IoTarget {
    type Error;
    /// Execute `op` for clone `clone`, submitted at `at`; returns its completion.
    fn issue(&mut self, clone: usize, op: &Op, at: SimTime) -> Result<SimTime, Self::Error>;
    /// How many first-stage hints the target takes at a time (a divisor of
    /// `AHEAD`). At paper size the tables hinted span more 2 MiB pages than
    /// the TLB holds, and a software prefetch retires only once its address
    /// is translated (Intel's optimization manual, "Software Prefetch"):
    /// hints issued together walk the page tables at once (a core has more
    /// than one page walker) instead of stalling the core for a walk each.
    /// More than one suits only a target whose second stage does not read
    /// what the first fetched, since a batch's nearest op gets its first
    /// stage `HINT_BATCH - 1` ops nearer than one at a time would.
    const HINT_BATCH: usize = 1;
    /// The clone's upcoming synthetic ops, for prefetching: `soon` (second
    /// stage) and `later` (first stage: the last `HINT_BATCH` drawn, every
    /// `HINT_BATCH` ops, else none); see `AHEAD`.
    fn hint(&mut self, _clone: usize, _soon: &Op, _later: &[Op]) {}
    /// Idle-time work (filesystem daemons); called by the daemon tick when
    /// no I/O completed for 100 ms.
    fn idle(&mut self, _now: SimTime) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Periodic work regardless of load (the page-cache flusher).
    fn tick(&mut self, _now: SimTime) -> Result<(), Self::Error> {
        Ok(())
    }
    /// A thread's CPU burst `d` from `at` on the host's cores; returns when
    /// it ends (unlimited cores unless the target models them).
    fn cpu(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        at + d
    }
}

/// Where a clone's synthetic I/O goes, in blocks from the start of its region.
pub(crate) struct OffsetStream {
    sampler: Option<OffsetSampler>,
    seq_cursor: u64,
}

impl OffsetStream {
    pub(crate) fn new(job: &JobSpec, rng: &SimRng) -> Self {
        let items = (job.size_blocks / job.bs_blocks as u64).max(1);
        let sampler = job.rw.is_random().then(|| OffsetSampler::new(&job.distribution, items, rng.fork("offset")));
        OffsetStream { sampler, seq_cursor: 0 }
    }

    pub(crate) fn draw(&mut self, job: &JobSpec) -> u64 {
        let bs = job.bs_blocks as u64;
        match &mut self.sampler {
            Some(s) => s.sample() * bs,
            None => {
                let o = self.seq_cursor;
                let span = (job.size_blocks - job.size_blocks % bs).max(bs);
                self.seq_cursor = (self.seq_cursor + bs) % span;
                o
            }
        }
    }
}

/// How many synthetic ops a clone draws ahead of use, so the target's hints
/// reach memory before the op runs: the last drawn gets the first-stage hint
/// (a mapping entry), the one `HINT_SOON` after the next gets the second
/// (what that entry points to). Preconditioning's overwrites use the same.
pub(super) const AHEAD: usize = 8;
pub(super) const HINT_SOON: usize = 3;

enum Source {
    /// Generated ops, `AHEAD` drawn ahead of use (drawing early keeps the
    /// sequence), a ring with `next` the op to issue.
    Synthetic { offsets: OffsetStream, ahead: [Op; AHEAD], next: usize, primed: bool },
    Replay { next: usize },
}

struct Clone {
    job: usize,
    rng: SimRng,
    source: Source,
    issued_blocks: u64,
    inflight: u32,
    cpu_free: SimTime,
    writes_since_sync: u32,
    /// A sync barrier waits for in-flight I/O (Some(kind) until issued).
    sync_pending: Option<OpKind>,
    sync_inflight: bool,
    wake_at: Option<SimTime>,
    /// File of the last write (what `fsync=N` syncs).
    last_file: u32,
    tag: u64,
    started: Option<SimTime>,
    finished: bool,
}

#[derive(Clone, Copy)]
enum Event {
    Complete { clone: u32, kind: OpKind, blocks: u32, submitted: SimTime },
    Wake { clone: u32 },
    Daemon,
}

pub struct DriverConfig {
    pub costs: HostCosts,
    pub start: SimTime,
    pub limits: Limits,
    pub series_interval: SimDuration,
    /// Wake the target's idle work this often (None: never).
    pub daemon_interval: Option<SimDuration>,
    /// Called every `PROGRESS_EVERY` events (phase Measure: simulated seconds
    /// since `start` of the longest job runtime).
    pub progress: Option<Progress>,
}

/// A phase of a run, as progress reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// fio's file layout (blocks written of the files' total).
    Layout,
    /// Random overwrites of the laid-out files (writes of the total).
    Aging,
    /// Raw-device fill and overwrites (blocks of the total).
    Precondition,
    /// The measured jobs (simulated seconds of the longest runtime; 0 total
    /// when the jobs are bounded by size, not time).
    Measure,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Layout => "layout",
            Phase::Aging => "aging",
            Phase::Precondition => "precondition",
            Phase::Measure => "measure",
        }
    }
}

/// One progress report: how far `phase` is (`done` of `total`, 0 = unknown)
/// and the I/Os completed in it.
#[derive(Clone, Copy, Debug)]
pub struct ProgressTick {
    pub phase: Phase,
    pub done: f64,
    pub total: f64,
    pub ios: u64,
}

/// A progress observer (a progress bar; no effect on results).
pub type Progress = std::rc::Rc<dyn Fn(&ProgressTick)>;
const PROGRESS_EVERY: u64 = 1 << 16;

#[derive(Debug)]
pub enum DriverError<E> {
    Limit(LimitExceeded),
    Target(E),
}

impl<E> From<LimitExceeded> for DriverError<E> {
    fn from(l: LimitExceeded) -> Self {
        DriverError::Limit(l)
    }
}

/// Inlined, so that its `Op` is written into the look-ahead ring a field
/// at a time rather than returned through the stack and reloaded whole.
#[inline(always)]
fn synth(job: &JobSpec, offsets: &mut OffsetStream, rng: &mut SimRng, tag: &mut u64) -> Op {
    let bs = job.bs_blocks as u64;
    // The same arithmetic without its divisions where they are by 1 or
    // give 0 (4 KiB operations, an item in the first file): they were
    // most of this function's time.
    let draw = offsets.draw(job);
    let (item, per_file) = if bs == 1 { (draw, job.file_blocks.max(1)) } else { (draw / bs, (job.file_blocks / bs).max(1)) };
    let (file, within) =
        if item < per_file { (0, item) } else { (((item / per_file) as u32).min(job.nrfiles - 1), item % per_file) };
    let off = job.offset_blocks + within * bs;
    let pct = job.read_pct();
    let is_read = pct == 100 || (pct > 0 && rng.below(100) < pct as u64);
    *tag = tag.wrapping_add(1);
    Op { kind: if is_read { OpKind::Read } else { OpKind::Write }, file, off, blocks: job.bs_blocks, tag: *tag }
}

fn limits_reached(job: &JobSpec, cl: &Clone) -> bool {
    let start = cl.started.expect("running clone has started");
    if let Some(rt) = job.runtime {
        if cl.cpu_free >= start + rt {
            return true;
        }
    }
    let size_limit = if job.time_based { u64::MAX } else { job.size_blocks };
    cl.issued_blocks >= job.io_size_blocks.unwrap_or(size_limit)
}

pub fn run<T: IoTarget>(target: &mut T, jobs: &[JobSpec], rng: &SimRng, cfg: &DriverConfig) -> Result<RunOutcome, DriverError<T::Error>> {
    let start = cfg.start;
    let mut sched: Scheduler<Event> = Scheduler::with_start(cfg.limits, start);
    let mut series = ThroughputSeries::new(start, cfg.series_interval);
    // One result per clone, as fio reports them (merged per job at the end
    // for group_reporting).
    let mut results: Vec<JobResult> = Vec::new();
    let mut clones = Vec::new();
    for (ji, job) in jobs.iter().enumerate() {
        for c in 0..job.numjobs {
            results.push(JobResult { job: ji, ..JobResult::new(&job.name, start) });
            let crng = rng.fork_indexed(&format!("job{ji}"), c as u64);
            let source = match job.iolog {
                Some(_) => Source::Replay { next: 0 },
                None => Source::Synthetic {
                    offsets: OffsetStream::new(job, &crng),
                    ahead: [Op { kind: OpKind::Read, file: 0, off: 0, blocks: 0, tag: 0 }; AHEAD],
                    next: 0,
                    primed: false,
                },
            };
            clones.push(Clone {
                job: ji,
                tag: mix64(crng.fork("data").next_u64()),
                rng: crng,
                source,
                issued_blocks: 0,
                inflight: 0,
                cpu_free: start,
                writes_since_sync: 0,
                sync_pending: None,
                sync_inflight: false,
                wake_at: None,
                last_file: 0,
                started: None,
                finished: false,
            });
        }
    }
    let groups: Vec<u32> = {
        let mut g: Vec<u32> = jobs.iter().map(|j| j.group).collect();
        g.sort_unstable();
        g.dedup();
        g
    };
    let mut group_idx = 0;
    start_group(groups[0], start, jobs, &mut clones, &mut results);
    for ci in 0..clones.len() {
        pump(ci, &mut clones, jobs, target, &mut sched, cfg.costs).map_err(DriverError::Target)?;
    }
    // A group can finish without any event (e.g. an empty iolog): advance now.
    advance_groups(start, &groups, &mut group_idx, jobs, &mut clones, &mut results, target, &mut sched, cfg.costs)
        .map_err(DriverError::Target)?;
    if let Some(d) = cfg.daemon_interval {
        sched.schedule(start + d, Event::Daemon);
    }
    let quiet = SimDuration::from_ms(100);
    let mut last_io = start;
    let (mut events, mut ios_done) = (0u64, 0u64);
    let total = jobs.iter().filter_map(|j| j.runtime).map(|r| r.as_secs_f64()).fold(0.0, f64::max);
    while let Some((t, ev)) = sched.pop()? {
        events += 1;
        if let Some(p) = cfg.progress.as_ref().filter(|_| events % PROGRESS_EVERY == 0) {
            p(&ProgressTick { phase: Phase::Measure, done: t.saturating_since(start).as_secs_f64(), total, ios: ios_done });
        }
        let ci = match ev {
            Event::Daemon => {
                if clones.iter().any(|c| !c.finished) {
                    target.tick(t).map_err(DriverError::Target)?;
                    if t.saturating_since(last_io) >= quiet {
                        target.idle(t).map_err(DriverError::Target)?;
                    }
                    sched.schedule(t + cfg.daemon_interval.expect("daemon scheduled"), Event::Daemon);
                }
                continue;
            }
            Event::Wake { clone } => {
                let cl = &mut clones[clone as usize];
                cl.wake_at = None;
                // The thread slept until now.
                cl.cpu_free = cl.cpu_free.max(t);
                clone as usize
            }
            Event::Complete { clone, kind, blocks, submitted } => {
                let cl = &mut clones[clone as usize];
                cl.inflight -= 1;
                if kind.is_sync() {
                    cl.sync_inflight = false;
                }
                let begin = t.max(cl.cpu_free);
                cl.cpu_free = target.cpu(begin, SimDuration(cfg.costs.complete_ns));
                last_io = t;
                let r = &mut results[clone as usize];
                let bytes = blocks as u64 * SLOT_BYTES;
                let dir = match kind {
                    OpKind::Read => &mut r.read,
                    OpKind::Write => &mut r.write,
                    OpKind::Trim => &mut r.trim,
                    OpKind::Sync | OpKind::Datasync => &mut r.sync,
                };
                dir.record(bytes, cl.cpu_free - submitted);
                ios_done += 1;
                r.end = r.end.max(cl.cpu_free);
                match kind {
                    OpKind::Read => series.record_io(cl.cpu_free, bytes, 0),
                    OpKind::Write => series.record_io(cl.cpu_free, 0, bytes),
                    OpKind::Sync | OpKind::Datasync | OpKind::Trim => {}
                }
                clone as usize
            }
        };
        pump(ci, &mut clones, jobs, target, &mut sched, cfg.costs).map_err(DriverError::Target)?;
        if clones[ci].finished {
            advance_groups(t, &groups, &mut group_idx, jobs, &mut clones, &mut results, target, &mut sched, cfg.costs)
                .map_err(DriverError::Target)?;
        }
    }
    // The run ends with the last job, not with the daemon's last tick.
    let end = results.iter().map(|r| r.end).max().unwrap_or(start);
    Ok(RunOutcome { jobs: group(results, jobs), end, events: sched.events_popped_count(), series })
}

/// A stonewall group ends when all its clones have finished; start the next
/// (repeatedly, if a group finishes as soon as it starts).
#[allow(clippy::too_many_arguments)]
fn advance_groups<T: IoTarget>(
    t: SimTime,
    groups: &[u32],
    group_idx: &mut usize,
    jobs: &[JobSpec],
    clones: &mut [Clone],
    results: &mut [JobResult],
    target: &mut T,
    sched: &mut Scheduler<Event>,
    costs: HostCosts,
) -> Result<(), T::Error> {
    while *group_idx + 1 < groups.len()
        && clones.iter().filter(|c| jobs[c.job].group == groups[*group_idx]).all(|c| c.finished)
    {
        *group_idx += 1;
        let prev = groups[*group_idx - 1];
        let at = clones.iter().filter(|c| jobs[c.job].group == prev).map(|c| c.cpu_free).max().unwrap_or(t).max(t);
        start_group(groups[*group_idx], at, jobs, clones, results);
        for cj in 0..clones.len() {
            if jobs[clones[cj].job].group == groups[*group_idx] {
                pump(cj, clones, jobs, target, sched, costs)?;
            }
        }
    }
    Ok(())
}

fn start_group(group: u32, at: SimTime, jobs: &[JobSpec], clones: &mut [Clone], results: &mut [JobResult]) {
    for (ci, c) in clones.iter_mut().enumerate().filter(|(_, c)| jobs[c.job].group == group) {
        c.started = Some(at);
        c.cpu_free = at;
        results[ci].start = at;
        results[ci].end = at;
    }
}

/// Issue as much of clone `ci`'s work as its queue depth and barriers allow.
fn pump<T: IoTarget>(
    ci: usize,
    clones: &mut [Clone],
    jobs: &[JobSpec],
    target: &mut T,
    sched: &mut Scheduler<Event>,
    costs: HostCosts,
) -> Result<(), T::Error> {
    let cl = &mut clones[ci];
    let job = &jobs[cl.job];
    let Some(started) = cl.started else { return Ok(()) };
    if cl.finished {
        return Ok(());
    }
    loop {
        if cl.sync_inflight {
            return Ok(());
        }
        if let Some(kind) = cl.sync_pending {
            if cl.inflight > 0 {
                return Ok(());
            }
            cl.sync_pending = None;
            let op = Op { kind, file: cl.last_file, off: 0, blocks: 0, tag: 0 };
            issue(ci, cl, op, target, sched, costs)?;
            continue;
        }
        if cl.inflight >= job.iodepth {
            return Ok(());
        }
        // Out of ops: the clone ends once nothing is in flight. (No
        // `Option<Op>` between here and `issue`: moving one went through
        // the stack a few bytes at a time, and its reload stalled.)
        fn out_of_ops(cl: &mut Clone) {
            if cl.inflight == 0 && cl.sync_pending.is_none() {
                cl.finished = true;
            }
        }
        if limits_reached(job, cl) {
            out_of_ops(cl);
            return Ok(());
        }
        let op = match &mut cl.source {
            Source::Synthetic { offsets, ahead, next, primed } => {
                if !*primed {
                    for a in ahead.iter_mut() {
                        *a = synth(job, offsets, &mut cl.rng, &mut cl.tag);
                    }
                    *primed = true;
                }
                // A copy out, then the new op assigned in place: not
                // `mem::replace`, whose temporary is stored a field at
                // a time and reloaded whole (a store-forwarding stall).
                let op = ahead[*next];
                ahead[*next] = synth(job, offsets, &mut cl.rng, &mut cl.tag);
                *next = (*next + 1) % AHEAD;
                // The last `HINT_BATCH` drawn sit just before `next`.
                let batch = const { assert!(T::HINT_BATCH > 0 && AHEAD % T::HINT_BATCH == 0); T::HINT_BATCH };
                let later: &[Op] =
                    if *next % batch == 0 { &ahead[(*next + AHEAD - batch) % AHEAD..][..batch] } else { &[] };
                target.hint(ci, &ahead[(*next + HINT_SOON) % AHEAD], later);
                op
            }
            Source::Replay { next } => {
                let log = job.iolog.as_ref().expect("replay job has a log");
                match log.ops.get(*next) {
                    None => {
                        out_of_ops(cl);
                        return Ok(());
                    }
                    Some(o) => {
                        let due = started + o.at;
                        if !job.replay_no_stall && due > cl.cpu_free {
                            if cl.wake_at.is_none() {
                                cl.wake_at = Some(due);
                                sched.schedule(due, Event::Wake { clone: ci as u32 });
                            }
                            return Ok(());
                        }
                        *next += 1;
                        cl.tag = cl.tag.wrapping_add(1);
                        let kind = match o.action {
                            IologAction::Read => OpKind::Read,
                            IologAction::Write => OpKind::Write,
                            IologAction::Trim => OpKind::Trim,
                            IologAction::Sync | IologAction::Datasync => {
                                let kind =
                                    if o.action == IologAction::Sync { OpKind::Sync } else { OpKind::Datasync };
                                cl.sync_pending = Some(kind);
                                cl.last_file = o.file;
                                continue;
                            }
                        };
                        Op { kind, file: o.file, off: o.off_blocks, blocks: o.blocks, tag: cl.tag }
                    }
                }
            }
        };
        issue(ci, cl, op, target, sched, costs)?;
        if op.kind == OpKind::Write {
            cl.last_file = op.file;
        }
        if op.kind == OpKind::Write && job.fsync_every > 0 {
            cl.writes_since_sync += 1;
            if cl.writes_since_sync >= job.fsync_every {
                cl.writes_since_sync = 0;
                cl.sync_pending = Some(OpKind::Sync);
            }
        }
    }
}

fn issue<T: IoTarget>(
    ci: usize,
    cl: &mut Clone,
    op: Op,
    target: &mut T,
    sched: &mut Scheduler<Event>,
    costs: HostCosts,
) -> Result<(), T::Error> {
    let submitted = cl.cpu_free;
    cl.cpu_free = target.cpu(submitted, SimDuration(costs.submit_ns));
    cl.issued_blocks += op.blocks as u64;
    let done = target.issue(ci, &op, cl.cpu_free)?;
    cl.inflight += 1;
    if op.kind.is_sync() {
        cl.sync_inflight = true;
    }
    sched.schedule(done, Event::Complete { clone: ci as u32, kind: op.kind, blocks: op.blocks, submitted });
    Ok(())
}
