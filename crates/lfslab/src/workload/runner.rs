//! Runs fio-like jobs against the raw device in simulated time.
//!
//! Each job clone (fio `numjobs`) is one host thread with its own queue
//! pair of depth `iodepth`. The thread is a serial CPU: submitting and
//! reaping each I/O costs `HostCosts`. A command reaches the device when
//! its submission finishes, the device computes its completion instant,
//! and the scheduler delivers the completion then. Latency is fio's clat
//! as seen by the thread: from the start of submission to the end of
//! completion processing.

use super::distribution::OffsetSampler;
use super::job::JobSpec;
use crate::ftl::Ssd;
use crate::metrics::{LatencyHistogram, ThroughputSeries};
use crate::nand::{Lpn, SLOT_BYTES};
use crate::nvme::{Command, CommandId, Completion, Opcode, QueuePair, Status};
use crate::oracle::{DataOracle, DataTag, Fingerprint};
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
    pub clat: LatencyHistogram,
}

#[derive(Clone, Debug)]
pub struct JobResult {
    pub name: String,
    pub read: DirResult,
    pub write: DirResult,
    /// fsync calls (filesystem jobs with `fsync = N`).
    pub sync: DirResult,
    pub start: SimTime,
    pub end: SimTime,
}

impl JobResult {
    pub fn new(name: &str, start: SimTime) -> Self {
        JobResult {
            name: name.to_string(),
            read: DirResult::default(),
            write: DirResult::default(),
            sync: DirResult::default(),
            start,
            end: start,
        }
    }
}

/// Where the next I/O of a job clone goes: a random draw from the access
/// distribution or the sequential cursor, in units of 4 KiB blocks from the
/// start of the job's region.
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

pub struct RunOutcome {
    pub jobs: Vec<JobResult>,
    pub end: SimTime,
    pub events: u64,
    pub series: ThroughputSeries,
}

struct Event {
    clone: u32,
    is_read: bool,
    blocks: u32,
    submitted: SimTime,
    completion: Completion,
}

struct CloneState {
    job: usize,
    qp: QueuePair,
    rng: SimRng,
    offsets: OffsetStream,
    issued_blocks: u64,
    cpu_free: SimTime,
    next_id: u64,
    tag_base: u64,
    /// Offsets drawn ahead of use (oldest first), so table entries can be
    /// prefetched before the I/O is issued. Drawing early does not change
    /// the sequence.
    ahead: [u64; 2],
    ahead_len: usize,
}

impl CloneState {
    /// The next offset to use, keeping two more drawn behind it.
    fn next_offset(&mut self, job: &JobSpec) -> u64 {
        while self.ahead_len < 2 {
            self.ahead[self.ahead_len] = self.offsets.draw(job);
            self.ahead_len += 1;
        }
        let o = self.ahead[0];
        self.ahead[0] = self.ahead[1];
        self.ahead[1] = self.offsets.draw(job);
        o
    }
}

#[allow(clippy::too_many_arguments)]
pub fn run_jobs(
    ssd: &mut Ssd,
    oracle: &mut DataOracle,
    jobs: &[JobSpec],
    costs: HostCosts,
    rng: &SimRng,
    start: SimTime,
    limits: Limits,
    series_interval: SimDuration,
) -> Result<RunOutcome, LimitExceeded> {
    let mut sched: Scheduler<Event> = Scheduler::with_start(limits, start);
    let mut series = ThroughputSeries::new(start, series_interval);
    let mut results: Vec<JobResult> = jobs.iter().map(|j| JobResult::new(&j.name, start)).collect();
    let mut clones = Vec::new();
    for (ji, job) in jobs.iter().enumerate() {
        for c in 0..job.numjobs {
            let crng = rng.fork_indexed(&format!("job{ji}"), c as u64);
            clones.push(CloneState {
                job: ji,
                qp: QueuePair::new(job.iodepth as usize),
                tag_base: mix64(crng.fork("data").next_u64()),
                offsets: OffsetStream::new(job, &crng),
                rng: crng,
                issued_blocks: 0,
                cpu_free: start,
                next_id: 0,
                ahead: [0; 2],
                ahead_len: 0,
            });
        }
    }
    let mut data: Vec<Option<Fingerprint>> = Vec::new();
    for ci in 0..clones.len() {
        submit_more(ci, &mut clones, jobs, ssd, oracle, &mut sched, costs, start, &mut data);
    }
    ssd.start_activity_log(start, series_interval);
    while let Some((t, ev)) = sched.pop()? {
        let ci = ev.clone as usize;
        let cl = &mut clones[ci];
        cl.qp.post(ev.completion);
        let c = cl.qp.reap().expect("just posted");
        assert_eq!(c.status, Status::Success, "workload issued an invalid command {:?}", c);
        let begin = t.max(cl.cpu_free);
        cl.cpu_free = begin + SimDuration(costs.complete_ns);
        let lat = cl.cpu_free - ev.submitted;
        let r = &mut results[cl.job];
        let bytes = ev.blocks as u64 * SLOT_BYTES;
        let dir = if ev.is_read { &mut r.read } else { &mut r.write };
        dir.ios += 1;
        dir.bytes += bytes;
        dir.clat.record(lat);
        r.end = r.end.max(cl.cpu_free);
        if ev.is_read {
            series.record_io(cl.cpu_free, bytes, 0);
        } else {
            series.record_io(cl.cpu_free, 0, bytes);
        }
        submit_more(ci, &mut clones, jobs, ssd, oracle, &mut sched, costs, start, &mut data);
    }
    let end = sched.now();
    let activity = ssd.take_activity_log().expect("started above");
    series.add_device_activity(&activity.program_slots, &activity.gc_victims, end);
    Ok(RunOutcome { jobs: results, end, events: sched.events_popped_count(), series })
}

fn job_done(job: &JobSpec, cl: &CloneState, start: SimTime) -> bool {
    if let Some(rt) = job.runtime {
        if cl.cpu_free >= start + rt {
            return true;
        }
    }
    let limit = job.io_size_blocks.unwrap_or(if job.runtime.is_some() { u64::MAX } else { job.size_blocks });
    cl.issued_blocks >= limit
}

#[allow(clippy::too_many_arguments)]
fn submit_more(
    ci: usize,
    clones: &mut [CloneState],
    jobs: &[JobSpec],
    ssd: &mut Ssd,
    oracle: &mut DataOracle,
    sched: &mut Scheduler<Event>,
    costs: HostCosts,
    run_start: SimTime,
    data: &mut Vec<Option<Fingerprint>>,
) {
    let cl = &mut clones[ci];
    let job = &jobs[cl.job];
    while cl.qp.outstanding_count() < cl.qp.depth() && !job_done(job, cl, run_start) {
        let bs = job.bs_blocks;
        let offset = cl.next_offset(job);
        let slba = Lpn(job.offset_blocks + offset);
        let soon = Lpn(job.offset_blocks + cl.ahead[0]);
        let later = Lpn(job.offset_blocks + cl.ahead[1]);
        ssd.prefetch_write(later, 0);
        oracle.prefetch(later);
        ssd.prefetch_write(soon, 1);
        let pct = job.read_pct();
        let is_read = pct == 100 || (pct > 0 && cl.rng.below(100) < pct as u64);
        cl.next_id += 1;
        let id = CommandId(cl.next_id);
        let op = if is_read {
            Opcode::Read { slba, nlb: bs }
        } else {
            let tag = DataTag(cl.tag_base.wrapping_add(cl.next_id));
            for i in 0..bs as u64 {
                oracle.record_write(Lpn(slba.0 + i), tag.block(i));
            }
            Opcode::Write { slba, nlb: bs, stream: job.stream, data: tag }
        };
        let submitted = cl.cpu_free;
        cl.cpu_free = submitted + SimDuration(costs.submit_ns);
        cl.qp.submit(cl.cpu_free, Command { id, op }).expect("checked depth");
        cl.issued_blocks += bs as u64;
        let (at, cmd) = cl.qp.fetch().expect("just submitted");
        let completion = ssd.execute(at, &cmd, data);
        if is_read {
            for (i, got) in data.iter().enumerate() {
                oracle.check(Lpn(slba.0 + i as u64), *got);
            }
        }
        sched.schedule(completion.at, Event { clone: ci as u32, is_read, blocks: bs, submitted, completion });
    }
}
