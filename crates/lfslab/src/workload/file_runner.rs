//! Runs fio-like jobs on files of a filesystem in simulated time.
//!
//! fio semantics kept: each clone (numjobs) owns `nrfiles` files of
//! `filesize` that are laid out (written sequentially) before the measured
//! phase; offsets are drawn over the clone's files as one region; `fsync=N`
//! issues an fsync after every N writes. Each clone is a host thread with
//! up to `iodepth` direct I/Os in flight. A daemon wakes every
//! `daemon_interval` and, when no I/O completed in the last 100 ms, lets
//! the filesystem do idle work (background GC, batched discard).

use super::job::JobSpec;
use super::runner::{HostCosts, JobResult, OffsetStream, RunOutcome};
use crate::fs::{F2fs, FsError, Ino};
use crate::metrics::ThroughputSeries;
use crate::nand::SLOT_BYTES;
use crate::nvme::BlockDevice;
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{mix64, LimitExceeded, Limits, Scheduler, SimDuration, SimRng, SimTime};

enum Event {
    Complete { clone: u32, kind: IoKind, blocks: u32, submitted: SimTime },
    Daemon,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum IoKind {
    Read,
    Write,
    Sync,
}

struct FileClone {
    job: usize,
    files: Vec<Ino>,
    rng: SimRng,
    offsets: OffsetStream,
    issued_blocks: u64,
    inflight: u32,
    cpu_free: SimTime,
    writes_since_fsync: u32,
    tag: u64,
}

#[derive(Debug)]
pub enum FileRunError {
    Limit(LimitExceeded),
    Fs(FsError),
}

impl std::fmt::Display for FileRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileRunError::Limit(l) => write!(f, "{l}"),
            FileRunError::Fs(e) => write!(f, "filesystem error: {e}"),
        }
    }
}

impl From<FsError> for FileRunError {
    fn from(e: FsError) -> Self {
        FileRunError::Fs(e)
    }
}

/// Files created and laid out for each clone, in clone order.
pub struct FileSet {
    files: Vec<Vec<Ino>>,
}

/// fio's layout step: create each clone's files and write them sequentially
/// (128 KiB direct writes). Returns when the last write completes.
pub fn layout_files<D: BlockDevice>(
    fs: &mut F2fs<D>,
    jobs: &[JobSpec],
    rng: &SimRng,
    start: SimTime,
) -> Result<(FileSet, SimTime), FsError> {
    let mut t = start;
    let mut files = Vec::new();
    let mut tag = mix64(rng.fork("layout").next_u64());
    for job in jobs {
        for _ in 0..job.numjobs {
            let mut mine = Vec::new();
            for _ in 0..job.nrfiles {
                let (ino, t2) = fs.create(t)?;
                t = t2;
                let mut off = 0;
                while off < job.file_blocks {
                    let n = 32.min(job.file_blocks - off);
                    tag = tag.wrapping_add(1);
                    let data: Vec<Fingerprint> = (0..n).map(|i| DataTag(tag).block(i)).collect();
                    t = fs.write(t, ino, off, &data)?;
                    off += n;
                }
                mine.push(ino);
            }
            files.push(mine);
        }
    }
    Ok((FileSet { files }, t))
}

/// Random 4 KiB overwrites of all laid-out files, `multiple` x their size.
pub fn age_files<D: BlockDevice>(
    fs: &mut F2fs<D>,
    set: &FileSet,
    multiple: f64,
    rng: &SimRng,
    start: SimTime,
) -> Result<SimTime, FsError> {
    let all: Vec<(Ino, u64)> =
        set.files.iter().flatten().map(|&i| (i, fs.file_size_blocks(i).expect("laid-out file exists"))).collect();
    let total: u64 = all.iter().map(|f| f.1).sum();
    let mut r = rng.fork("age");
    let mut t = start;
    let n = (total as f64 * multiple).round() as u64;
    for k in 0..n {
        let mut x = r.below(total.max(1));
        let (ino, off) = all
            .iter()
            .find_map(|&(i, s)| if x < s { Some((i, x)) } else { x -= s; None })
            .expect("x < total");
        t = fs.write(t, ino, off, &[DataTag(mix64(k ^ 0xA6E)).block(off)])?;
    }
    Ok(t)
}

#[allow(clippy::too_many_arguments)]
pub fn run_file_jobs<D: BlockDevice>(
    fs: &mut F2fs<D>,
    set: &FileSet,
    jobs: &[JobSpec],
    costs: HostCosts,
    rng: &SimRng,
    start: SimTime,
    limits: Limits,
    series_interval: SimDuration,
    daemon_interval: SimDuration,
) -> Result<RunOutcome, FileRunError> {
    let mut sched: Scheduler<Event> = Scheduler::with_start(limits, start);
    let mut series = ThroughputSeries::new(start, series_interval);
    let mut results: Vec<JobResult> = jobs.iter().map(|j| JobResult::new(&j.name, start)).collect();
    let mut clones = Vec::new();
    let mut k = 0;
    for (ji, job) in jobs.iter().enumerate() {
        for c in 0..job.numjobs {
            let crng = rng.fork_indexed(&format!("job{ji}"), c as u64);
            clones.push(FileClone {
                job: ji,
                files: set.files[k].clone(),
                offsets: OffsetStream::new(job, &crng),
                tag: mix64(crng.fork("data").next_u64()),
                rng: crng,
                issued_blocks: 0,
                inflight: 0,
                cpu_free: start,
                writes_since_fsync: 0,
            });
            k += 1;
        }
    }
    for ci in 0..clones.len() {
        submit(ci, &mut clones, jobs, fs, &mut sched, costs, start)?;
    }
    sched.schedule(start + daemon_interval, Event::Daemon);
    let mut last_io = start;
    let quiet = SimDuration::from_ms(100);
    while let Some((t, ev)) = sched.pop().map_err(FileRunError::Limit)? {
        match ev {
            Event::Daemon => {
                if clones.iter().any(|c| c.inflight > 0 || !done(&jobs[c.job], c, start)) {
                    if t.saturating_since(last_io) >= quiet {
                        fs.on_idle(t);
                    }
                    sched.schedule(t + daemon_interval, Event::Daemon);
                }
            }
            Event::Complete { clone, kind, blocks, submitted } => {
                let ci = clone as usize;
                let cl = &mut clones[ci];
                cl.inflight -= 1;
                let begin = t.max(cl.cpu_free);
                cl.cpu_free = begin + SimDuration(costs.complete_ns);
                last_io = t;
                let r = &mut results[cl.job];
                let bytes = blocks as u64 * SLOT_BYTES;
                let dir = match kind {
                    IoKind::Read => &mut r.read,
                    IoKind::Write => &mut r.write,
                    IoKind::Sync => &mut r.sync,
                };
                dir.ios += 1;
                dir.bytes += bytes;
                dir.clat.record(cl.cpu_free - submitted);
                r.end = r.end.max(cl.cpu_free);
                match kind {
                    IoKind::Read => series.record_io(cl.cpu_free, bytes, 0),
                    IoKind::Write => series.record_io(cl.cpu_free, 0, bytes),
                    IoKind::Sync => {}
                }
                submit(ci, &mut clones, jobs, fs, &mut sched, costs, start)?;
            }
        }
    }
    Ok(RunOutcome { jobs: results, end: sched.now(), events: sched.events_popped_count(), series })
}

fn done(job: &JobSpec, cl: &FileClone, start: SimTime) -> bool {
    if let Some(rt) = job.runtime {
        if cl.cpu_free >= start + rt {
            return true;
        }
    }
    let limit = job.io_size_blocks.unwrap_or(if job.runtime.is_some() { u64::MAX } else { job.size_blocks });
    cl.issued_blocks >= limit
}

fn submit<D: BlockDevice>(
    ci: usize,
    clones: &mut [FileClone],
    jobs: &[JobSpec],
    fs: &mut F2fs<D>,
    sched: &mut Scheduler<Event>,
    costs: HostCosts,
    start: SimTime,
) -> Result<(), FsError> {
    let cl = &mut clones[ci];
    let job = &jobs[cl.job];
    while cl.inflight < job.iodepth && !done(job, cl, start) {
        let bs = job.bs_blocks as u64;
        let item = cl.offsets.draw(job) / bs;
        let per_file = (job.file_blocks / bs).max(1);
        let file = cl.files[((item / per_file) as usize).min(cl.files.len() - 1)];
        let off = (item % per_file) * bs;
        let pct = job.read_pct();
        let is_read = pct == 100 || (pct > 0 && cl.rng.below(100) < pct as u64);
        let submitted = cl.cpu_free;
        cl.cpu_free = submitted + SimDuration(costs.submit_ns);
        cl.issued_blocks += bs;
        let (kind, done_at) = if is_read {
            (IoKind::Read, fs.read(cl.cpu_free, file, off, bs)?)
        } else {
            cl.tag = cl.tag.wrapping_add(1);
            let data: Vec<Fingerprint> = (0..bs).map(|i| DataTag(cl.tag).block(i)).collect();
            (IoKind::Write, fs.write(cl.cpu_free, file, off, &data)?)
        };
        cl.inflight += 1;
        sched.schedule(done_at, Event::Complete { clone: ci as u32, kind, blocks: bs as u32, submitted });
        if kind == IoKind::Write && job.fsync_every > 0 {
            cl.writes_since_fsync += 1;
            if cl.writes_since_fsync >= job.fsync_every {
                cl.writes_since_fsync = 0;
                // fio issues the fsync after the write; the thread waits for it.
                let s = done_at.max(cl.cpu_free);
                let e = fs.fsync(s, file)?;
                cl.cpu_free = e;
                cl.inflight += 1;
                sched.schedule(e, Event::Complete { clone: ci as u32, kind: IoKind::Sync, blocks: 0, submitted: s });
            }
        }
    }
    Ok(())
}
