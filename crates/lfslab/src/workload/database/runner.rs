//! Loading the database and running its clients in simulated time.
//!
//! Each client thread runs its calls one after another (YCSB's and
//! tpcc-mysql's synchronous clients, no think time). A call pays its
//! statements' CPU, then walks its pages through the engine (reads on
//! misses, frames freed on demand), logs its changes and commits; a commit
//! that must wait for a log flush under way resumes when it ends. The page
//! cleaner runs on its own thread once a second; the filesystem's daemons
//! as in every run.

use super::innodb::{self, Commit, DbFile, Engine, InnoDbStats, BLOCKS_PER_PAGE, FIRST_LOG, IBDATA};
use super::tpcc::Tpcc;
use super::ycsb::Ycsb;
use super::{Bench, DatabaseSpec, Step, Txn, Workload};
use crate::fs::{FsError, Vfs};
use crate::metrics::{LatencyHistogram, ThroughputSeries};
use crate::sim::{mix64, Scheduler, SimDuration, SimRng, SimTime};
use crate::workload::fs_target::write_sequentially;
use crate::workload::{DriverConfig, DriverError, JobResult, Phase, Progress, ProgressTick, RunOutcome};

/// ibdata1's size: `innodb_data_file_path = ibdata1:12M:autoextend`.
pub const IBDATA_PAGES: u64 = 768;

/// The loaded database: its files and the benchmark's view of its tables.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Database {
    pub files: Vec<DbFile>,
    bench: BenchState,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
enum BenchState {
    Ycsb(Box<Ycsb>),
    Tpcc(Box<Tpcc>),
}

impl BenchState {
    fn workload(&mut self) -> &mut dyn Workload {
        match self {
            BenchState::Ycsb(y) => &mut **y,
            BenchState::Tpcc(t) => &mut **t,
        }
    }
}

/// Create and write the cold file, the system tablespace, the redo logs
/// and the tables (the benchmark's load, written in page order).
pub fn populate<V: Vfs>(
    fs: &mut V,
    spec: &DatabaseSpec,
    rng: &SimRng,
    start: SimTime,
    progress: Option<&Progress>,
) -> Result<(Database, SimTime), FsError> {
    let root = fs.root();
    let mut t = start;
    let mut tag = mix64(rng.fork("database-load").next_u64());
    let bench = match &spec.bench {
        Bench::Ycsb(y) => {
            BenchState::Ycsb(Box::new(Ycsb::new(y.clone(), FIRST_LOG + spec.engine.log_files as usize, spec.threads)))
        }
        Bench::Tpcc(c) => {
            BenchState::Tpcc(Box::new(Tpcc::new(c.clone(), FIRST_LOG + spec.engine.log_files as usize, rng)))
        }
    };
    let log_pages = spec.engine.log_file_bytes / innodb::PAGE_BYTES;
    let mut plan: Vec<(String, u64)> = vec![("ibdata1".into(), IBDATA_PAGES)];
    plan.extend((0..spec.engine.log_files).map(|i| (format!("ib_logfile{i}"), log_pages)));
    match &bench {
        BenchState::Ycsb(y) => plan.push(("usertable.ibd".into(), y.table_pages())),
        BenchState::Tpcc(c) => plan.extend(c.files()),
    }
    let cold_blocks = spec.cold_file_bytes.div_ceil(4096);
    let total = cold_blocks + plan.iter().map(|(_, p)| p * BLOCKS_PER_PAGE).sum::<u64>();
    let mut laid = 0u64;
    let mut tick = |k: u64| {
        laid += k;
        if let Some(p) = progress.filter(|_| laid % (1 << 14) < k) {
            p(&ProgressTick { phase: Phase::Layout, done: laid as f64, total: total as f64, ios: laid });
        }
    };
    if cold_blocks > 0 {
        let (ino, t2) = fs.create(t, root, "cold")?;
        t = write_sequentially(fs, ino, 0..cold_blocks, &mut tag, t2, &mut tick)?;
    }
    let mut files = Vec::new();
    for (name, pages) in plan {
        let (ino, t2) = fs.create(t, root, &name)?;
        t = write_sequentially(fs, ino, 0..pages * BLOCKS_PER_PAGE, &mut tag, t2, &mut tick)?;
        files.push(DbFile { name, ino, pages });
    }
    debug_assert_eq!(files[IBDATA].name, "ibdata1");
    Ok((Database { files, bench }, t))
}

/// One operation type's results (YCSB's per-operation lines, TPC-C's per transaction).
#[derive(Clone, Debug)]
pub struct OpResult {
    pub name: String,
    pub ops: u64,
    pub lat: LatencyHistogram,
}

pub struct DatabaseOutcome {
    pub outcome: RunOutcome,
    pub ops: Vec<OpResult>,
    pub stats: InnoDbStats,
    pub buffer_pool_pages: u32,
}

#[derive(Clone, Copy)]
enum Event {
    Thread(u32),
    /// A commit waiting for the log flush under way.
    Commit(u32),
    Cleaner,
    LruFlush,
    /// A thread woke the page cleaner for an LRU batch.
    LruWake,
    Daemon,
}

struct Client {
    rng: SimRng,
    txn: Txn,
    /// A call waiting in commit: its start and its last change's LSN.
    waiting: Option<(SimTime, u64)>,
}

const CLEANER_INTERVAL: SimDuration = SimDuration::from_secs(1);

/// Run `spec`'s clients on the loaded `db` from `cfg.start`.
pub fn run<V: Vfs>(
    fs: &mut V,
    spec: &DatabaseSpec,
    db: &mut Database,
    rng: &SimRng,
    cfg: &DriverConfig,
) -> Result<DatabaseOutcome, DriverError<FsError>> {
    let start = cfg.start;
    let end_at = match &spec.bench {
        Bench::Tpcc(c) => Some(start + c.runtime),
        Bench::Ycsb(_) => None,
    };
    let total_ops = match &spec.bench {
        Bench::Ycsb(y) => y.operationcount,
        Bench::Tpcc(_) => 0,
    };
    let series = ThroughputSeries::new(start, cfg.series_interval);
    let mut eng = Engine::new(
        spec.engine.clone(),
        db.files.clone(),
        JobResult::new(&spec.name(), start),
        series,
        mix64(rng.fork("pages").next_u64()),
    );
    let wl = db.bench.workload();
    let mut ops: Vec<OpResult> =
        wl.op_names().into_iter().map(|name| OpResult { name, ops: 0, lat: LatencyHistogram::new() }).collect();
    let mut clients: Vec<Client> = (0..spec.threads)
        .map(|i| Client { rng: rng.fork_indexed("db-client", i as u64), txn: Txn::default(), waiting: None })
        .collect();
    let mut sched: Scheduler<Event> = Scheduler::with_start(cfg.limits, start);
    for i in 0..spec.threads {
        sched.schedule(start, Event::Thread(i));
    }
    sched.schedule(start + CLEANER_INTERVAL, Event::Cleaner);
    let lru_interval = CLEANER_INTERVAL;
    sched.schedule(start + lru_interval, Event::LruFlush);
    if let Some(d) = cfg.daemon_interval {
        sched.schedule(start + d, Event::Daemon);
    }
    let mut running = spec.threads;
    // The LRU flusher is one thread: busy until this, a wake-up pending.
    let (mut lru_busy, mut lru_woken) = (start, false);
    let (mut done_ops, mut events, mut end) = (0u64, 0u64, start);
    let fse = DriverError::Target;
    while let Some((t, ev)) = sched.pop()? {
        events += 1;
        if let Some(p) = cfg.progress.as_ref().filter(|_| events % (1 << 14) == 0) {
            let (done, total) = match end_at {
                Some(e) => (t.saturating_since(start).as_secs_f64(), e.saturating_since(start).as_secs_f64()),
                None => (done_ops as f64, total_ops as f64),
            };
            p(&ProgressTick { phase: Phase::Measure, done, total, ios: eng.job.read.ios + eng.job.write.ios });
        }
        'ev: {
            let i = match ev {
                Event::Cleaner | Event::LruFlush | Event::LruWake | Event::Daemon if running == 0 => break 'ev,
                Event::LruFlush | Event::LruWake => {
                    if matches!(ev, Event::LruWake) {
                        lru_woken = false;
                    }
                    let done = eng.lru_flush(fs, t.max(lru_busy)).map_err(fse)?;
                    lru_busy = done;
                    if matches!(ev, Event::LruFlush) {
                        sched.schedule(done.max(t + lru_interval), Event::LruFlush);
                    }
                    break 'ev;
                }
                Event::Cleaner => {
                    let done = eng.page_cleaner(fs, t).map_err(fse)?;
                    sched.schedule(done.max(t + CLEANER_INTERVAL), Event::Cleaner);
                    break 'ev;
                }
                Event::Daemon => {
                    fs.background(t).map_err(fse)?;
                    sched.schedule(t + cfg.daemon_interval.expect("daemon scheduled"), Event::Daemon);
                    break 'ev;
                }
                Event::Commit(i) => {
                    let c = &mut clients[i as usize];
                    let (began, lsn) = c.waiting.take().expect("a waiting commit");
                    match eng.commit(fs, t, lsn).map_err(fse)? {
                        Commit::Wait(w) => {
                            c.waiting = Some((began, lsn));
                            sched.schedule(w, Event::Commit(i));
                        }
                        Commit::Done(d) => {
                            finish(&mut ops[c.txn.op], &mut eng, began, d, &mut done_ops, &mut end);
                            sched.schedule(d, Event::Thread(i));
                        }
                    }
                    break 'ev;
                }
                Event::Thread(i) => i,
            };
            let c = &mut clients[i as usize];
            if end_at.is_some_and(|e| t >= e) || !wl.next_txn(i as usize, &mut c.rng, &mut c.txn) {
                running -= 1;
                break 'ev;
            }
            // The statements' CPU runs on the host's cores (unlimited: its own length).
            let mut now = fs.host_cpu(t, SimDuration(spec.statement_cpu.ns() * c.txn.statements as u64));
            let mut last_lsn = None;
            for &step in &c.txn.steps {
                let (f, redo) = match step {
                    Step::Read(k) => {
                        now = eng.access(fs, now, k).map_err(fse)?.1;
                        continue;
                    }
                    Step::Write(k, r) => {
                        let (f, d) = eng.access(fs, now, k).map_err(fse)?;
                        now = d;
                        (f, r)
                    }
                    Step::Create(k, r) => {
                        let (f, d) = eng.create(fs, now, k).map_err(fse)?;
                        now = d;
                        (f, r)
                    }
                };
                let (lsn, d) = eng.modify(fs, now, f, redo as u64).map_err(fse)?;
                now = d;
                last_lsn = Some(lsn);
            }
            let Some(lsn) = last_lsn else {
                finish(&mut ops[c.txn.op], &mut eng, t, now, &mut done_ops, &mut end);
                sched.schedule(now, Event::Thread(i));
                break 'ev;
            };
            match eng.commit(fs, now, lsn).map_err(fse)? {
                Commit::Done(d) => {
                    finish(&mut ops[c.txn.op], &mut eng, t, d, &mut done_ops, &mut end);
                    sched.schedule(d, Event::Thread(i));
                }
                Commit::Wait(w) => {
                    c.waiting = Some((t, lsn));
                    sched.schedule(w, Event::Commit(i));
                }
            }
        }
        // A thread that found no free frame woke the page cleaner.
        if let Some(w) = eng.take_cleaner_wake() {
            if !lru_woken {
                lru_woken = true;
                sched.schedule(w.max(lru_busy).max(t), Event::LruWake);
            }
        }
    }
    let mut job = eng.job;
    job.end = job.end.max(end);
    let outcome =
        RunOutcome { jobs: vec![job], end: end.max(start), events: sched.events_popped_count(), series: eng.series };
    Ok(DatabaseOutcome { outcome, ops, stats: eng.stats, buffer_pool_pages: spec.engine.buffer_pool_pages })
}

fn finish(op: &mut OpResult, eng: &mut Engine, began: SimTime, done: SimTime, done_ops: &mut u64, end: &mut SimTime) {
    op.ops += 1;
    op.lat.record(done - began);
    eng.series.record_op(done);
    *done_ops += 1;
    *end = (*end).max(done);
}
