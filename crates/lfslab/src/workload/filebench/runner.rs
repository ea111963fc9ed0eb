//! Filebench threads in simulated time: each thread runs its flowops in a
//! loop, one after another (filebench's synchronous flowops), until the
//! runtime is over; threads interleave in time order. Each filesystem call
//! pays the host's submit and completion costs, as a fio I/O does.

use super::fileset::{entry_name, Fileset, BLOCK};
use super::{FilebenchSpec, FlowopKind};
use crate::fs::{FsError, Ino, IoMode, Vfs};
use crate::metrics::{LatencyHistogram, ThroughputSeries};
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{mix64, Scheduler, SimDuration, SimRng, SimTime};
use crate::workload::{DriverConfig, DriverError, JobResult, Phase, ProgressTick, RunOutcome};
use std::collections::BTreeMap;

/// What one flowop did over the run (filebench's per-flowop line).
#[derive(Clone, Debug)]
pub struct FlowopResult {
    pub name: String,
    pub kind: FlowopKind,
    pub ops: u64,
    pub bytes: u64,
    /// Flowops that found nothing to work on (no file to pick, fd not open).
    pub skipped: u64,
    pub lat: LatencyHistogram,
}

pub struct FilebenchOutcome {
    pub outcome: RunOutcome,
    pub flowops: Vec<FlowopResult>,
}

#[derive(Clone, Copy)]
struct OpenFile {
    ino: Ino,
    fileset: usize,
    entry: u32,
}

struct Thread {
    rng: SimRng,
    pc: usize,
    fds: [Option<OpenFile>; 4],
    tag: u64,
    /// Its group, and which instance of it.
    group: usize,
    instance: usize,
    /// When its asynchronous writes are all done (`aiowait` waits for it).
    aio_done: SimTime,
    /// opennext: the next file of a fileset to use.
    next_file: u32,
    /// A flowop it is blocked in (a semaphore), and since when.
    blocked: Option<(usize, SimTime)>,
    /// sempost: the next target instance to post to, and since when it posts.
    post_idx: usize,
    post_since: Option<SimTime>,
}

/// A semblock's System V semaphore pair (flowop_library.c): `lw` counts
/// posts not yet consumed; `hw` the posts allowed before a blocking poster
/// waits (it starts at `highwater` and each semblock adds its value).
#[derive(Default)]
struct Sem {
    lw: u64,
    hw: u64,
    /// The semblock's thread waiting for `lw` to reach this.
    waiter: Option<(usize, u64)>,
    /// Posters waiting for `hw`, first come first served.
    posters: std::collections::VecDeque<(usize, u64)>,
}

/// Assumed cost of one `hog` iteration (filebench loops storing to memory).
const HOG_NS_PER_ITER: f64 = 0.5;

#[derive(Clone, Copy)]
enum Event {
    Thread(u32),
    Daemon,
}

/// Calls of one flowop: the time runs on through them.
struct Ctx<'a, V: Vfs> {
    fs: &'a mut V,
    t: SimTime,
    submit: SimDuration,
    complete: SimDuration,
    job: &'a mut JobResult,
    series: &'a mut ThroughputSeries,
    bytes: u64,
}

impl<V: Vfs> Ctx<'_, V> {
    fn call<T>(&mut self, f: impl FnOnce(&mut V, SimTime) -> Result<(T, SimTime), FsError>) -> Result<T, FsError> {
        let (v, done) = f(self.fs, self.t + self.submit)?;
        self.t = done + self.complete;
        Ok(v)
    }
    /// Close the file in `slot`, if any; whether there was one.
    fn close_fd(&mut self, slot: &mut Option<OpenFile>) -> Result<bool, FsError> {
        let Some(f) = slot.take() else { return Ok(false) };
        self.call(|fs, t| fs.close(t, f.ino).map(|d| ((), d)))?;
        Ok(true)
    }
    /// Open `f` into the (closed) `slot`.
    fn open_fd(&mut self, slot: &mut Option<OpenFile>, f: OpenFile) -> Result<(), FsError> {
        self.call(|fs, t| fs.open(t, f.ino).map(|d| ((), d)))?;
        *slot = Some(f);
        Ok(())
    }
    fn io(&mut self, dir: Dir, bytes: u64, f: impl FnOnce(&mut V, SimTime) -> Result<SimTime, FsError>) -> Result<(), FsError> {
        let start = self.t;
        self.call(|fs, t| f(fs, t).map(|d| ((), d)))?;
        let d = match dir {
            Dir::Read => &mut self.job.read,
            Dir::Write => &mut self.job.write,
            Dir::Sync => &mut self.job.sync,
        };
        d.record(bytes, self.t - start);
        match dir {
            Dir::Read => self.series.record_io(self.t, bytes, 0),
            Dir::Write => self.series.record_io(self.t, 0, bytes),
            Dir::Sync => {}
        }
        self.bytes += bytes;
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Dir {
    Read,
    Write,
    Sync,
}

fn data(tag: &mut u64, n: u64) -> Vec<Fingerprint> {
    *tag = tag.wrapping_add(1);
    (0..n).map(|i| DataTag(*tag).block(i)).collect()
}

/// Run `spec` on `fs` over the populated `sets` from `cfg.start`.
pub fn run<V: Vfs>(
    fs: &mut V,
    spec: &FilebenchSpec,
    sets: &mut [Fileset],
    rng: &SimRng,
    cfg: &DriverConfig,
) -> Result<FilebenchOutcome, DriverError<FsError>> {
    let start = cfg.start;
    let end_at = start + spec.runtime;
    let mode = if spec.directio { IoMode::Direct } else { IoMode::Buffered };
    let mut sched: Scheduler<Event> = Scheduler::with_start(cfg.limits, start);
    let mut series = ThroughputSeries::new(start, cfg.series_interval);
    let mut job = JobResult::new(&spec.personality, start);
    let mut flowops: Vec<FlowopResult> = spec
        .flowops
        .iter()
        .map(|o| FlowopResult { name: o.name.clone(), kind: o.kind, ops: 0, bytes: 0, skipped: 0, lat: LatencyHistogram::new() })
        .collect();
    // Byte size of each live file (files hold whole blocks; filebench sizes are bytes).
    let mut sizes: BTreeMap<Ino, u64> = BTreeMap::new();
    for set in sets.iter() {
        for e in &set.entries {
            if let Some(ino) = e.ino {
                sizes.insert(ino, e.size_bytes);
            }
        }
    }
    let mut threads: Vec<Thread> = Vec::new();
    for (g, group) in spec.groups.iter().enumerate() {
        for instance in 0..group.instances as usize {
            let r = rng.fork_indexed("filebench-thread", threads.len() as u64);
            threads.push(Thread {
                tag: mix64(r.fork("data").next_u64()),
                rng: r,
                pc: group.ops.start,
                fds: [None; 4],
                group: g,
                instance,
                aio_done: start,
                next_file: instance as u32,
                blocked: None,
                post_idx: 0,
                post_since: None,
            });
        }
    }
    // One semaphore pair per semblock flowop and instance of its group.
    let mut sems: Vec<Vec<Sem>> = spec
        .flowops
        .iter()
        .enumerate()
        .map(|(k, o)| match o.kind {
            FlowopKind::SemBlock => {
                let g = spec.groups.iter().find(|g| g.ops.contains(&k)).expect("a flowop belongs to a group");
                (0..g.instances).map(|_| Sem { hw: o.highwater, ..Sem::default() }).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    for i in 0..threads.len() {
        sched.schedule(start, Event::Thread(i as u32));
    }
    if let Some(d) = cfg.daemon_interval {
        sched.schedule(start + d, Event::Daemon);
    }
    let (submit, complete) = (SimDuration(cfg.costs.submit_ns), SimDuration(cfg.costs.complete_ns));
    let mut running = threads.len();
    let mut events = 0u64;
    while let Some((t, ev)) = sched.pop()? {
        events += 1;
        if let Some(p) = cfg.progress.as_ref().filter(|_| events % (1 << 16) == 0) {
            let ios = job.read.ios + job.write.ios;
            p(&ProgressTick { phase: Phase::Measure, done: t.saturating_since(start).as_secs_f64(), total: spec.runtime.as_secs_f64(), ios });
        }
        let ti = match ev {
            Event::Daemon => {
                // Threads blocked on a semaphore at the end never run again.
                let blocked = threads.iter().filter(|th| th.blocked.is_some()).count();
                if running > blocked {
                    fs.background(t).map_err(DriverError::Target)?;
                    sched.schedule(t + cfg.daemon_interval.expect("daemon scheduled"), Event::Daemon);
                }
                continue;
            }
            Event::Thread(i) => i as usize,
        };
        if t >= end_at {
            running -= 1;
            continue;
        }
        // A thread woken from a semaphore: that flowop is done now.
        // (A sempost woken for one target goes on to the next.)
        if let Some((k, since)) = threads[ti].blocked.take() {
            if spec.flowops[k].kind == FlowopKind::SemBlock {
                let r = &mut flowops[k];
                r.ops += 1;
                r.lat.record(t - since);
                advance(&mut threads[ti], spec);
                sched.schedule(t, Event::Thread(ti as u32));
                continue;
            }
            threads[ti].post_since.get_or_insert(since);
        }
        let k = threads[ti].pc;
        let op = &spec.flowops[k];
        if matches!(op.kind, FlowopKind::SemBlock | FlowopKind::SemPost) {
            match semaphore(&mut threads, &mut sems, spec, ti, k, t) {
                Some(woken) => {
                    for w in woken {
                        sched.schedule(t, Event::Thread(w as u32));
                    }
                    let r = &mut flowops[k];
                    if threads[ti].blocked.is_none() {
                        r.ops += 1;
                        r.lat.record(t - threads[ti].post_since.take().unwrap_or(t));
                        advance(&mut threads[ti], spec);
                        sched.schedule(t, Event::Thread(ti as u32));
                    }
                }
                None => unreachable!("semaphore() handles semblock and sempost"),
            }
            continue;
        }
        let th = &mut threads[ti];
        advance(th, spec);
        let mut cx = Ctx { fs: &mut *fs, t, submit, complete, job: &mut job, series: &mut series, bytes: 0 };
        let did = match op.kind {
            FlowopKind::Read | FlowopKind::AioWrite | FlowopKind::AioWait | FlowopKind::Hog => {
                oltp_io(&mut cx, th, op, sets, &sizes, mode).map_err(DriverError::Target)?
            }
            _ => exec(&mut cx, th, op, sets, &mut sizes, mode).map_err(DriverError::Target)?,
        };
        let (done, bytes) = (cx.t, cx.bytes);
        let r = &mut flowops[k];
        if did {
            // filebench counts each of a flowop's `iters` repetitions.
            r.ops += op.iters as u64;
            r.bytes += bytes;
            r.lat.record(done - t);
        } else {
            r.skipped += 1;
        }
        job.end = job.end.max(done);
        // A flowop that found nothing to do still costs its thread a syscall.
        let next = if did { done } else { t + submit + complete };
        sched.schedule(next, Event::Thread(ti as u32));
    }
    // Files a thread still holds open are closed when the run ends.
    for th in &mut threads {
        for f in th.fds.iter_mut().filter_map(Option::take) {
            fs.close(job.end, f.ino).map_err(DriverError::Target)?;
        }
    }
    let end = job.end;
    Ok(FilebenchOutcome {
        outcome: RunOutcome { jobs: vec![job], end, events: sched.events_popped_count(), series },
        flowops,
    })
}

/// Move `th` to its group's next flowop.
fn advance(th: &mut Thread, spec: &FilebenchSpec) {
    let ops = &spec.groups[th.group].ops;
    th.pc = if th.pc + 1 >= ops.end { ops.start } else { th.pc + 1 };
}

/// semblock / sempost of thread `ti` at flowop `k` (flowop_library.c's
/// System V path): a semblock adds its value to `hw`, then waits for `lw`
/// to hold its value and takes it; a sempost adds to each target's `lw`,
/// a blocking one first waiting for `hw` to hold its value and taking it.
/// Returns the threads it woke; leaves `ti` blocked if it must wait.
fn semaphore(threads: &mut [Thread], sems: &mut [Vec<Sem>], spec: &FilebenchSpec, ti: usize, k: usize, t: SimTime) -> Option<Vec<usize>> {
    let op = &spec.flowops[k];
    let mut woken = Vec::new();
    // Give `sem` a post of `v`; wake its semblock if it now has enough.
    fn post(sem: &mut Sem, v: u64, woken: &mut Vec<usize>) {
        sem.lw += v;
        if let Some((w, need)) = sem.waiter {
            if sem.lw >= need {
                sem.lw -= need;
                sem.waiter = None;
                woken.push(w);
            }
        }
    }
    match op.kind {
        FlowopKind::SemBlock => {
            let sem = &mut sems[k][threads[ti].instance];
            sem.hw += op.value;
            while let Some(&(p, v)) = sem.posters.front() {
                if sem.hw < v {
                    break;
                }
                sem.posters.pop_front();
                sem.hw -= v;
                post(sem, v, &mut woken);
                threads[p].post_idx += 1;
                woken.push(p);
            }
            if sem.lw >= op.value {
                sem.lw -= op.value;
            } else {
                sem.waiter = Some((ti, op.value));
                threads[ti].blocked = Some((k, t));
            }
        }
        FlowopKind::SemPost => {
            let targets = &mut sems[op.target];
            while threads[ti].post_idx < targets.len() {
                let sem = &mut targets[threads[ti].post_idx];
                if op.blocking {
                    if sem.hw < op.value {
                        sem.posters.push_back((ti, op.value));
                        threads[ti].blocked = Some((k, t));
                        return Some(woken);
                    }
                    sem.hw -= op.value;
                }
                post(sem, op.value, &mut woken);
                threads[ti].post_idx += 1;
            }
            threads[ti].post_idx = 0;
        }
        _ => return None,
    }
    Some(woken)
}

/// oltp's I/O flowops: `read` and `aiowrite` at random offsets of the next
/// file of their fileset (opennext), `aiowait`, and `hog`.
fn oltp_io<V: Vfs>(
    cx: &mut Ctx<'_, V>,
    th: &mut Thread,
    op: &super::Flowop,
    sets: &[Fileset],
    sizes: &BTreeMap<Ino, u64>,
    mode: IoMode,
) -> Result<bool, FsError> {
    match op.kind {
        FlowopKind::Hog => {
            // On the host's cores (unlimited: its own length).
            cx.t = cx.fs.host_cpu(cx.t, SimDuration((op.value as f64 * HOG_NS_PER_ITER) as u64));
            return Ok(true);
        }
        FlowopKind::AioWait => {
            cx.t = cx.t.max(th.aio_done);
            return Ok(true);
        }
        _ => {}
    }
    let set = &sets[op.fileset];
    let n = set.entries.len() as u32;
    let e = &set.entries[(th.next_file % n) as usize];
    th.next_file = th.next_file.wrapping_add(1);
    let Some(ino) = e.ino else { return Ok(false) };
    let file_blocks = sizes.get(&ino).copied().unwrap_or(e.size_bytes).div_ceil(BLOCK).max(1);
    let io = op.iosize.div_ceil(BLOCK).clamp(1, file_blocks);
    if op.kind == FlowopKind::Read {
        let off = th.rng.below(file_blocks - io + 1);
        cx.io(Dir::Read, op.iosize, |fs, t| fs.read(t, ino, off, io, mode))?;
        return Ok(true);
    }
    // aiowrite: each request is served after the thread's previous one;
    // the thread goes on after submitting them.
    for _ in 0..op.iters {
        let off = th.rng.below(file_blocks - io + 1);
        let d = data(&mut th.tag, io);
        let at = th.aio_done.max(cx.t + cx.submit);
        let mut done = cx.fs.write(at, ino, off, &d, mode)?;
        if op.dsync {
            done = cx.fs.fsync(done, ino, true)?;
        }
        th.aio_done = done;
        cx.job.write.record(op.iosize, done - at);
        cx.series.record_io(done, 0, op.iosize);
        cx.bytes += op.iosize;
        cx.job.end = cx.job.end.max(done);
        cx.t += cx.submit;
    }
    Ok(true)
}

/// Run one flowop for thread `th`; false if it found nothing to work on.
fn exec<V: Vfs>(
    cx: &mut Ctx<'_, V>,
    th: &mut Thread,
    op: &super::Flowop,
    sets: &mut [Fileset],
    sizes: &mut BTreeMap<Ino, u64>,
    mode: IoMode,
) -> Result<bool, FsError> {
let fd = op.fd as usize;
let set = &mut sets[op.fileset];
Ok(match op.kind {
        FlowopKind::CreateFile => match set.pick_absent(&mut th.rng) {
            None => false,
            Some(i) => {
                cx.close_fd(&mut th.fds[fd])?;
                let dir = set.entries[i as usize].dir;
                let ino = cx.call(|fs, t| fs.create(t, dir, &entry_name(i)))?;
                cx.open_fd(&mut th.fds[fd], OpenFile { ino, fileset: op.fileset, entry: i })?;
                set.created(i, ino);
                sizes.insert(ino, 0);
                true
            }
        },
        FlowopKind::OpenFile => match set.pick_existing(&mut th.rng) {
            None => false,
            Some(i) => {
                cx.close_fd(&mut th.fds[fd])?;
                let ino = set.entries[i as usize].ino.expect("existing entry has an inode");
                cx.open_fd(&mut th.fds[fd], OpenFile { ino, fileset: op.fileset, entry: i })?;
                true
            }
        },
        FlowopKind::CloseFile => cx.close_fd(&mut th.fds[fd])?,
        FlowopKind::DeleteFile => match set.pick_existing(&mut th.rng) {
            None => false,
            Some(i) => {
                let e = set.entries[i as usize].clone();
                cx.call(|fs, t| fs.unlink(t, e.dir, &entry_name(i)).map(|d| ((), d)))?;
                set.deleted(i);
                true
            }
        },
        FlowopKind::StatFile => match set.pick_existing(&mut th.rng) {
            None => false,
            Some(i) => {
                let ino = set.entries[i as usize].ino.expect("existing entry has an inode");
                cx.call(|fs, t| fs.stat(t, ino))?;
                true
            }
        },
        FlowopKind::Fsync => match th.fds[fd] {
            None => false,
            Some(f) => {
                cx.io(Dir::Sync, 0, |fs, t| fs.fsync(t, f.ino, false))?;
                true
            }
        },
        FlowopKind::WriteWholeFile | FlowopKind::ReadWholeFile | FlowopKind::AppendFileRand => {
            // appendfilerand opens a file of its fileset when its fd is closed.
            if th.fds[fd].is_none() && op.kind == FlowopKind::AppendFileRand {
                if let Some(i) = set.pick_existing(&mut th.rng) {
                    let ino = set.entries[i as usize].ino.expect("existing entry has an inode");
                    cx.open_fd(&mut th.fds[fd], OpenFile { ino, fileset: op.fileset, entry: i })?;
                }
            }
            match th.fds[fd] {
                None => false,
                Some(f) => {
                    let chunk = op.iosize.div_ceil(BLOCK).max(1);
                    let cur = match sizes.get(&f.ino) {
                        Some(&b) => b,
                        None => cx.call(|fs, t| fs.stat(t, f.ino))?.size_blocks * BLOCK,
                    };
                    match op.kind {
                        FlowopKind::WriteWholeFile => {
                            let want = sets[f.fileset].entries[f.entry as usize].size_bytes;
                            let blocks = want.div_ceil(BLOCK);
                            let mut off = 0;
                            while off < blocks {
                                let n = chunk.min(blocks - off);
                                let d = data(&mut th.tag, n);
                                let bytes = (want - off * BLOCK).min(n * BLOCK);
                                cx.io(Dir::Write, bytes, |fs, t| fs.write(t, f.ino, off, &d, mode))?;
                                off += n;
                            }
                            sizes.insert(f.ino, want.max(cur));
                        }
                        FlowopKind::ReadWholeFile => {
                            let blocks = cur.div_ceil(BLOCK);
                            let mut off = 0;
                            while off < blocks {
                                let n = chunk.min(blocks - off);
                                let bytes = (cur - off * BLOCK).min(n * BLOCK);
                                cx.io(Dir::Read, bytes, |fs, t| fs.read(t, f.ino, off, n, mode))?;
                                off += n;
                            }
                        }
                        _ => {
                            // 1 byte to iosize bytes at the end; the partial last block is rewritten.
                            let add = 1 + th.rng.below(op.iosize);
                            let (first, last) = (cur / BLOCK, (cur + add).div_ceil(BLOCK));
                            let d = data(&mut th.tag, last - first);
                            cx.io(Dir::Write, add, |fs, t| fs.write(t, f.ino, first, &d, mode))?;
                            sizes.insert(f.ino, cur + add);
                        }
                    }
                    true
                }
            }
        }
        FlowopKind::Read
        | FlowopKind::AioWrite
        | FlowopKind::AioWait
        | FlowopKind::Hog
        | FlowopKind::SemBlock
        | FlowopKind::SemPost => unreachable!("oltp's flowops run in oltp_io and semaphore()"),
    })
}
