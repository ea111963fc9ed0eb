//! Assembles a scenario into a running stack (workload -> [filesystem] ->
//! NVMe -> FTL -> NAND) and runs it in phases: precondition, measure,
//! report. Phases are separate calls so a benchmark can time them; the
//! library itself never reads the wall clock.

use crate::fs::{F2fs, FsStats};
use crate::ftl::{mapping_checker, FtlStats, Ssd};
use crate::host::PageCacheStats;
use crate::metrics::{
    D2fsReport, DatabaseReport, DeviceReport, DirReport, FlowopReport, FsReport, FtlReport, JobReport, LatencySummary,
    OperationReport, RunReport, SimReport, SyncReport,
};
use crate::nvme::Partition;
use crate::oracle::DataOracle;
use crate::scenario::Scenario;
use crate::sim::{LimitExceeded, SimRng, SimTime};
pub use crate::workload::Progress;
use crate::workload::database::Database;
use crate::workload::filebench::{self, Fileset, FlowopResult};
use crate::workload::{
    self, DirResult, DriverConfig, DriverError, FileSet, FsTarget, PreconditionSummary, RawTarget, RunOutcome,
};

#[derive(Debug)]
pub enum RunError {
    Limit(LimitExceeded),
    /// A full consistency check failed: a simulator bug, with context.
    Invariant(String),
    /// The filesystem refused an operation (e.g. the files do not fit).
    Fs(String),
    /// An aged state could not be saved, read, or does not fit the scenario.
    Aged(String),
    /// The run would not fit in the machine's memory (`check_memory`).
    Memory(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Limit(l) => write!(f, "{l}"),
            RunError::Invariant(m) => write!(f, "invariant violated: {m}"),
            RunError::Fs(m) | RunError::Aged(m) | RunError::Memory(m) => write!(f, "{m}"),
        }
    }
}
impl std::error::Error for RunError {}

impl RunError {
    /// The run was refused before it could start (an aged state that does
    /// not fit, a run too large for memory): bad input, not a failed run.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, RunError::Aged(_) | RunError::Memory(_))
    }
}

impl<E: std::fmt::Display> From<DriverError<E>> for RunError {
    fn from(e: DriverError<E>) -> Self {
        match e {
            DriverError::Limit(l) => RunError::Limit(l),
            DriverError::Target(e) => RunError::Fs(format!("filesystem error: {e}")),
        }
    }
}

type FsStack = crate::fs::AnyFs<Partition<Ssd>>;

#[derive(serde::Serialize, serde::Deserialize)]
enum Stack {
    Raw { ssd: Ssd, oracle: DataOracle },
    Fs {
        fs: Box<FsStack>,
        files: Option<FileSet>,
        /// A filebench run's filesets, once populated.
        filesets: Option<Vec<Fileset>>,
        /// A database run's files and tables, once loaded.
        database: Option<Database>,
        before: FsStats,
        cache_before: PageCacheStats,
        /// The GC engine's counters when the measured phase began.
        gc_before: crate::fs::ParallelGcStats,
    },
}

/// What the precondition phase leaves behind: the aged state a later run
/// can start from (`Run::save_aged`, `Run::from_aged`).
/// `AgedRef` saves it by reference, field for field (bincode is positional).
#[derive(serde::Deserialize)]
struct Aged {
    stack: Stack,
    now: SimTime,
    precondition: PreconditionSummary,
    stats_before: FtlStats,
    coupled_before: Option<crate::ftl::CoupledStats>,
    csd_before: Option<crate::ftl::CsdStats>,
}

#[derive(serde::Serialize)]
struct AgedRef<'a> {
    stack: &'a Stack,
    now: SimTime,
    precondition: &'a PreconditionSummary,
    stats_before: &'a FtlStats,
    coupled_before: &'a Option<crate::ftl::CoupledStats>,
    csd_before: &'a Option<crate::ftl::CsdStats>,
}

pub struct Run {
    scenario: Scenario,
    stack: Stack,
    rng: SimRng,
    now: SimTime,
    precondition: PreconditionSummary,
    stats_before: FtlStats,
    coupled_before: Option<crate::ftl::CoupledStats>,
    csd_before: Option<crate::ftl::CsdStats>,
    progress: Option<Progress>,
    outcome: Option<RunOutcome>,
    flowops: Vec<FlowopResult>,
    operations: Vec<OperationReport>,
    database: Option<DatabaseReport>,
}

const SIMPLIFICATIONS: [&str; 4] = [
    "device GC collects a whole victim superblock synchronously when free superblocks fall below the threshold (NVMeVirt-style foreground GC); the femu preset (ftl.gc_background_pct) also runs FEMU's background GC, one victim after each command while at most 25% of the superblocks are free and only one at least 1/8 invalid, and forces GC at 5% (hw/femu/bbssd/ftl.c), but copies to a GC log head of its own where FEMU's GC shares the host's write pointer (gc_write_page); there is no idle-time background GC otherwise",
    "a read of data whose program was already issued waits for the NAND program instead of hitting the write buffer",
    "host CPU costs per I/O are fixed assumptions (host.submit_ns, host.complete_ns, fs.*_ns), not measured kernel paths",
    "data checking: each 4 KiB block carries a 32-bit fingerprint, so a read of wrong data goes unnoticed with probability 2^-31 per block",
];

const PARALLEL_GC_SIMPLIFICATION: &str = "gc: a parallel GC round runs inside the call that triggered it, its collectors stepping in time order (round2 spec option B); applications stay blocked for the round and a writer that arrived during it sees the round's end; only writers that allocate before they balance (LFS-mode O_DIRECT, a writeback chunk's first page) can meet a collector, and each is checked against the moved blocks' instants at its arrival, which counts false-positive GC reads, skipped writes, SVP conflicts and stale moves (gc.stats) while the moves stay booked whole; i_gc_rwsem is held per segment, the other GC locks per step; lock costs, the victim scan and the page buffer are assumed knobs (listed under gc.assumed_ns), not measurements";

const VICTIM_SCAN_SIMPLIFICATION: &str = "gc: a victim search costs victim_scan_ns_per_segment per dirty segment it visits, GC's and a data write's SSR search alike (under seglist_lock); an SSR search for a node log costs no time";

const FS_SIMPLIFICATIONS: [&str; 6] = [
    "page cache: balance_dirty_pages as Linux 3.2+ runs it (host.background_writeback = threshold, the default) starts the flusher past dirty_background_ratio and, IO-less, has the writer sleep at most wb_max_pause at a time while dirty plus under-writeback pages are above the control setpoint, the last sleep ending at the setpoint or the cap, not for the kernel's rate-based pauses; wb_max_pause's write bandwidth is the drain rate of the pages now under writeback; the flusher is a thread of its own in F2FS and its variants (kupdate's files, then background work while over dirty_background_ratio), run in time order before each filesystem call and yielding where foreground GC blocks it, but it writes a file to its end before the next (the kernel moves on after writeback_chunk_size); F2FS's range-cyclic sweep stops at a file's end, and a file it leaves dirty is requeued with a fresh dirtied_when (requeue_inode -> redirty_tail), always, as if another inode were on b_dirty; ext4's flusher pass still runs whole at its start; the block layer has no queue-depth limit; a run with volume_scale scales the kernel's periods (dirty_expire, dirty_writeback, cp_interval, jbd2's commit) with it. host.background_writeback = tick is lfslab's earlier model (a writer past dirty_ratio writes back itself)",
    "filesystem: node blocks are always cached in memory (GC reads data and SSA blocks, not nodes); lookups hit the dcache; directory hashing uses FNV-1a, not F2FS's TEA hash, and counts free dentry slots, not contiguous runs; files are whole 4 KiB blocks (no inline data)",
    "filesystem: f2fs_balance_fs_bg's checkpoint triggers are checked at the daemon tick (fs.daemon_interval_ms), standing for the GC thread and node writeback, which the kernel runs them from, a few seconds apart; the application's writes never run them (its f2fs_balance_fs does so only on excess cached NAT entries, not modelled); excess_dirty_threshold counts node pages only; the discard thread issues the 50 ms rounds since its last look together",
    "filesystem: background GC migrates a victim synchronously (the kernel dirties its pages for writeback); has_not_enough_free_secs (Linux 6.0's) counts a dirty inode once, as its node page, and a log not yet open or with a full segment as holding a fresh segment; GC's victim searches take as dirty the sections in use, partly valid and not open by a log (the kernel's dirty_secmap also keeps a large section a log reopened for SSR); FS GC's CPU per block and stage is the D2FS artifact's measurement of zoned F2FS on its host, applied to every design; GC's data reads run under phase 3's CPU as gc_data_segment issues them, submitted in chunks of 16 blocks when phase 3 reaches a chunk's last block, and phase 4 waits for a block's whole chunk (the parallel engines submit a share's reads at its start)",
    "filesystem: crash recovery (checkpoint + roll-forward of fsync'd inodes, D2FS redo) assumes a power-loss-protected device; runs here do not crash (lfslab swarm cuts the power, remounts and goes on)",
    "filesystem: lock wait totals cover the whole run (layout included); FS, FTL and page-cache counters cover the measured phase",
];

const INTERVAL_SIMPLIFICATIONS: [&str; 2] = [
    "interval mapping: lookups and new entries cost no firmware time (only compaction does); iplfs.txt gives their cost only relative to page mapping (88% longer lookups, 3.3x longer inserts) and reports end-to-end read and write latency almost identical to page mapping's",
    "interval mapping: memory and compaction follow the IPLFS authors' NVMeVirt code (D2FS artifact, conv_ftl.c MEM_CALC), which accounts the tree's size rather than building it; a compaction pass costs an assumed 1 ns per bitmap bit per walk (two walks per dirty 2^20-block node) and 5 ns per entry rebuilt",
];

const CSGC_SIMPLIFICATIONS: [&str; 4] = [
    "csgc: the paper gives no executor, host-offloader or wire costs; csd.* and fs.offload_* are assumptions (see docs/scenario.md), as are the openssd-csgc flash timings (FEMU bbssd's, tR and tPROG scaled by 0.315 so IPLFS writes the paper's 85 GB in 300 s)",
    "csgc: a section is one superblock striped over all dies (device.pages_per_block follows fs.segs_per_sec: 256-page blocks at 8 segments, the paper's are 512), so a section's blocks spread over every die",
    "csgc: node segments are collected by F2FS's own path (node pages are in host memory); only data segments are offloaded. The chunk allocator has no switch: lfslab's GC allocates serially, so destinations are contiguous anyway",
    "csgc: coalescing merges consecutive source blocks into one flash-scheduler operation; it saves scheduler time only, since consecutive blocks sit on different dies",
];

/// F2FS in adaptive mode on a scaled volume: its SSR window is scaled with
/// the volume, which keeps the share of the volume searched but not the
/// window's length, and SSR's choices depend on both (docs/performance.md,
/// twenty-fifth session: on `compare`'s workload, steady IOPS at scale 1
/// ranged over 1.6x across windows of 64 to 4096 segments; 1.5x since
/// the twenty-seventh session). The twenty-ninth session found where the
/// length acts: the cursor's one-segment step after a wrapped search
/// (`SegmentManager::get_victim_ssr`).
fn ssr_window_caveat(s: &Scenario) -> Option<String> {
    let f = s.fs.as_ref()?;
    let vs = s.resolved.volume_scale.unwrap_or(1.0);
    let ssr = f.config.mode == crate::fs::FsMode::Adaptive && f.config.ext4.is_none() && f.config.iplfs_device_blocks.is_none();
    (ssr && vs < 1.0).then(|| {
        format!(
            "scaled volume (volume_scale {vs}), F2FS adaptive mode: SSR and background GC search fs.max_victim_search = {} segments, the kernel's 4096 times volume_scale, so the window covers the share of the volume it covers at paper size; but which segments SSR fills, and with that throughput and both WAFs, depends on the window's length as well as its share, and no one scaling keeps both: after a search that wraps past the volume's end the kernel moves its cursor one segment (get_victim_by_default), so SSR searches nearly the same window of the volume's tail and head while the cursor crawls a segment a search, for about max_victim_search x main/dirty searches a sweep against dirty/max_victim_search for the rest, and that crawl's share grows with the volume (on compare's workload 75% of SSR searches at scale 1, 99.6% at paper size; docs/performance.md). Check a figure that matters at volume_scale 1 (--scale 16 for the built-in experiments)",
            f.config.tuning.max_victim_search
        )
    })
}

/// D2FS on a scaled volume: its checkpoint triggers (dirty node pages past
/// `excess_dirty_nodes`' 8 segments, and invalidated blocks past
/// `rec_prefree_segments / 6`, the artifact's `excess_prefree_segs`) are
/// shares of the volume, as every scaled threshold is, so per written block
/// it checkpoints about 1/volume_scale times as often as the represented
/// volume; each checkpoint holds cp_rwsem over two cache flushes and its
/// pack, device time that does not shrink with the volume
/// (docs/performance.md, twenty-ninth session). F2FS and zoned F2FS
/// checkpoint mostly at their foreground GC rounds, which come per written
/// block at any scale (F2FS: 33.7 and 28.2 per written GiB at 1/16 and
/// paper size), so the note is D2FS's.
fn d2fs_checkpoint_caveat(s: &Scenario) -> Option<String> {
    let f = s.fs.as_ref()?;
    let vs = s.resolved.volume_scale.unwrap_or(1.0);
    (f.config.d2fs.is_some() && vs < 1.0).then(|| {
        format!(
            "scaled volume (volume_scale {vs}), D2FS: its checkpoint triggers (dirty node pages past excess_dirty_nodes' 8 segments, and the artifact's invalidated blocks past rec_prefree_segments / 6) are shares of the volume, so per written block this run checkpoints about 1/volume_scale times as often as the volume it stands for, and each checkpoint holds cp_rwsem over two cache flushes and its pack, device time that does not shrink with the volume. On compare's workload D2FS checkpoints 16.4 times per written GiB at volume_scale 1/16 against 1.24 at paper size, its writers wait on cp_rwsem 12.8% of the run against 3.2%, and its steady IOPS are 139.9 K against 172.5 K (docs/performance.md). Check a figure that matters at volume_scale 1 (--scale 16 for the built-in experiments)"
        )
    })
}

const RMIPU_SIMPLIFICATION: &str = "rmipu: each batch of written pages is remapped in the call that wrote it (the device flushes the batch's data first), so no remap is pending between calls: reads, overwrites, truncates, unlinks and GC never meet one; the paper tracks pairs across writeback and excludes their segments from cleaning. Its known crash window (remapped updates visible after a crash before fsync returns, rm-ipu.txt §3) is what lfslab swarm counts as unsynced-visible blocks";

const D2FS_SIMPLIFICATIONS: [&str; 6] = [
    "d2fs: the upcall handler runs on its own simulated thread but its filemap/SIT/SSA updates take effect at the next filesystem entry (or 512-page writeback chunk) after the UPCALL-flagged completion",
    "d2fs: blocks the last checkpoint still references, and node blocks (roll-forward's chain), are discarded right after the next checkpoint (F2FS add_discard_addrs), others at invalidation; the paper discards all at invalidation, which would let a crash recover erased blocks",
    "d2fs: below 10% of the regular region free a writer checkpoints synchronously (the artifact's VOLFS_WRITE_STALL); with no free section left it takes a free-section fault and asks the device for Coupled GC rounds, a floor the artifact lacks (its F2FS GC panics there); balance_fs runs per 512-page writeback chunk, not per page",
    "d2fs: a checkpoint keeps prefree any regular section that an unprocessed migration record still names, so a late record cannot move a reused LBA (the paper does not say how it avoids this)",
    "d2fs: a flush does not pad an open block-mapped unit (its data stays in the power-loss-protected buffer); migration records survive power loss, as the paper assumes",
    "d2fs: FTL memory counts 4 B per page-mapped metadata block, 4 B per section entry and 8 B per outstanding record (peak); valid-page bitmaps are not counted",
];

impl Run {
    pub fn new(scenario: Scenario) -> Result<Run, RunError> {
        let ssd = match &scenario.fs {
            None => Ssd::new(scenario.ssd.clone()).expect("scenario validated the device"),
            Some(f) => f.device(&scenario.ssd).map_err(|e| RunError::Fs(format!("device: {e}")))?,
        };
        let stack = match &scenario.fs {
            None => Stack::Raw { oracle: DataOracle::new(scenario.ssd.logical_pages), ssd },
            Some(f) => {
                let part = Partition::new(ssd, f.partition_blocks);
                let fs = match f.config.ext4 {
                    Some(_) => crate::fs::AnyFs::Ext4(crate::fs::Ext4::format(part, f.config.clone()).map_err(RunError::Fs)?),
                    None => crate::fs::AnyFs::F2fs(F2fs::format(part, f.config.clone()).map_err(|e| RunError::Fs(e.to_string()))?),
                };
                Stack::Fs {
                    fs: Box::new(fs),
                    files: None,
                    filesets: None,
                    database: None,
                    before: FsStats::default(),
                    cache_before: PageCacheStats::default(),
                    gc_before: Default::default(),
                }
            }
        };
        Ok(Run {
            rng: SimRng::new(scenario.seed),
            scenario,
            stack,
            now: SimTime::ZERO,
            precondition: PreconditionSummary::default(),
            stats_before: FtlStats::default(),
            coupled_before: None,
            csd_before: None,
            progress: None,
            outcome: None,
            flowops: Vec::new(),
            operations: Vec::new(),
            database: None,
        })
    }

    /// Save what `precondition` built, for runs of the same setup to start
    /// from (`--save-aged`).
    pub fn save_aged(&self, path: &std::path::Path) -> Result<(), RunError> {
        let aged = AgedRef {
            stack: &self.stack,
            now: self.now,
            precondition: &self.precondition,
            stats_before: &self.stats_before,
            coupled_before: &self.coupled_before,
            csd_before: &self.csd_before,
        };
        crate::aged::save(path, &self.scenario, &aged).map_err(|e| RunError::Aged(e.0))
    }

    /// A run whose precondition phase is the aged state in `path`, which
    /// must have been saved by a run of the same setup (`--from-aged`):
    /// `measure` then gives the same bits as after `precondition`.
    pub fn from_aged(scenario: Scenario, path: &std::path::Path) -> Result<Run, RunError> {
        let a: Aged = crate::aged::load(path, &scenario).map_err(|e| RunError::Aged(e.0))?;
        Ok(Run {
            rng: SimRng::new(scenario.seed),
            scenario,
            stack: a.stack,
            now: a.now,
            precondition: a.precondition,
            stats_before: a.stats_before,
            coupled_before: a.coupled_before,
            csd_before: a.csd_before,
            progress: None,
            outcome: None,
            flowops: Vec::new(),
            operations: Vec::new(),
            database: None,
        })
    }

    pub fn set_progress(&mut self, progress: Option<Progress>) {
        self.progress = progress;
    }

    pub fn ssd(&self) -> &Ssd {
        match &self.stack {
            Stack::Raw { ssd, .. } => ssd,
            Stack::Fs { fs, .. } => &fs.dev().dev,
        }
    }

    fn ssd_mut(&mut self) -> &mut Ssd {
        match &mut self.stack {
            Stack::Raw { ssd, .. } => ssd,
            Stack::Fs { fs, .. } => &mut fs.dev_mut().dev,
        }
    }

    /// Raw device: fill + random overwrite. Filesystem: fio's layout of every
    /// job's files, then `random_overwrite` x their size of 4 KiB overwrites.
    pub fn precondition(&mut self) -> Result<(), RunError> {
        let prng = self.rng.fork("precondition");
        match &mut self.stack {
            Stack::Raw { ssd, oracle } => {
                let mut r = prng;
                let (end, summary) = workload::precondition(
                    ssd,
                    oracle,
                    &self.scenario.precondition,
                    &mut r,
                    self.now,
                    self.progress.as_ref(),
                );
                self.now = end;
                self.precondition = summary;
            }
            Stack::Fs { fs, files, filesets, database, before, cache_before, gc_before } => {
                let (set, mut t) =
                    workload::layout_files(&mut **fs, &self.scenario.jobs, &prng, self.now, self.progress.as_ref())
                        .map_err(|e| RunError::Fs(format!("laying out files: {e}")))?;
                if let Some(fb) = &self.scenario.filebench {
                    let mut sets = Vec::new();
                    for spec in &fb.filesets {
                        let (set, t2) = filebench::populate(&mut **fs, spec, &prng, t, self.progress.as_ref())
                            .map_err(|e| RunError::Fs(format!("creating fileset {}: {e}", spec.name)))?;
                        t = t2;
                        sets.push(set);
                    }
                    *filesets = Some(sets);
                }
                if let Some(spec) = &self.scenario.database {
                    let (db, t2) = workload::database::populate(&mut **fs, spec, &prng, t, self.progress.as_ref())
                        .map_err(|e| RunError::Fs(format!("loading the database: {e}")))?;
                    t = t2;
                    *database = Some(db);
                }
                if self.scenario.precondition.random_overwrite > 0.0 {
                    t = workload::age_files(
                        &mut **fs,
                        &set,
                        self.scenario.precondition.random_overwrite,
                        &prng,
                        t,
                        self.progress.as_ref(),
                    )
                    .map_err(|e| RunError::Fs(format!("aging files: {e}")))?;
                }
                // The prepared data set is synced (F2FS: a checkpoint; ext4:
                // writeback and a commit), as a user would before measuring.
                t = fs.sync_fs(t).map_err(|e| RunError::Fs(format!("syncing the prepared files: {e}")))?;
                self.precondition = PreconditionSummary {
                    blocks_written: fs.stats().app_write_blocks,
                    sim_time_s: t.saturating_since(self.now).as_secs_f64(),
                };
                *before = fs.stats().clone();
                *cache_before = fs.page_cache_stats();
                *gc_before = fs.as_f2fs().map(|f| f.gc_engine_stats().clone()).unwrap_or_default();
                *files = Some(set);
                self.now = t;
            }
        }
        self.stats_before = self.ssd().stats();
        self.coupled_before = self.ssd().coupled_stats();
        self.csd_before = self.ssd().csd_stats();
        Ok(())
    }

    pub fn measure(&mut self) -> Result<(), RunError> {
        let wrng = self.rng.fork("workload");
        let (now, interval) = (self.now, self.scenario.series_interval);
        self.ssd_mut().start_activity_log(now, interval);
        let s = &self.scenario;
        let mut cfg = DriverConfig {
            costs: s.host,
            start: self.now,
            limits: s.limits,
            series_interval: s.series_interval,
            daemon_interval: s.fs.as_ref().map(|f| f.daemon_interval),
            progress: self.progress.clone(),
        };
        let mut outcome = match &mut self.stack {
            Stack::Raw { ssd, oracle } => {
                cfg.daemon_interval = None;
                let mut target = RawTarget::new(ssd, oracle);
                workload::run(&mut target, &s.jobs, &wrng, &cfg).map_err(|e| match e {
                    DriverError::Limit(l) => RunError::Limit(l),
                    DriverError::Target(never) => match never {},
                })?
            }
            Stack::Fs { fs, database: Some(db), .. } => {
                let spec = s.database.as_ref().expect("a loaded database belongs to a database scenario");
                let out = workload::database::run(&mut **fs, spec, db, &wrng, &cfg)?;
                let secs = out.outcome.end.saturating_since(self.now).as_secs_f64().max(1e-9);
                let round = |x: f64| (x * 1000.0).round() / 1000.0;
                let total: u64 = out.ops.iter().map(|o| o.ops).sum();
                self.operations = out
                    .ops
                    .iter()
                    .map(|o| OperationReport { name: o.name.clone(), ops: o.ops, ops_per_s: round(o.ops as f64 / secs), lat_ns: o.lat.summary() })
                    .collect();
                let e = &out.stats;
                let lookups = (e.buffer_pool_hits + e.buffer_pool_misses).max(1);
                self.database = Some(DatabaseReport {
                    benchmark: spec.name(),
                    threads: spec.threads,
                    ops_per_s: round(total as f64 / secs),
                    tpmc: matches!(spec.bench, workload::database::Bench::Tpcc(_))
                        .then(|| round(out.ops[0].ops as f64 * 60.0 / secs)),
                    buffer_pool_pages: out.buffer_pool_pages,
                    buffer_pool_hit_ratio: (e.buffer_pool_hits as f64 / lookups as f64 * 1e6).round() / 1e6,
                    commits_per_log_fsync: round(e.commits as f64 / e.log_fsyncs.max(1) as f64),
                    engine: e.clone(),
                });
                out.outcome
            }
            Stack::Fs { fs, filesets: Some(sets), .. } => {
                let fb = s.filebench.as_ref().expect("filesets belong to a filebench scenario");
                let out = filebench::run(&mut **fs, fb, sets, &wrng, &cfg)?;
                self.flowops = out.flowops;
                out.outcome
            }
            Stack::Fs { fs, files, .. } => {
                let set = files.as_ref().expect("precondition() lays out the files first");
                let direct = s.jobs.iter().flat_map(|j| (0..j.numjobs).map(|_| j.direct)).collect();
                let mut target = FsTarget { fs: &mut **fs, files: set, direct, data: Vec::new() };
                workload::run(&mut target, &s.jobs, &wrng, &cfg)?
            }
        };
        let activity = self.ssd_mut().take_activity_log().expect("started above");
        outcome.series.add_device_activity(&activity.program_slots, &activity.gc_victims, outcome.end);
        self.outcome = Some(outcome);
        Ok(())
    }

    pub fn report(self) -> Result<RunReport, RunError> {
        let s = &self.scenario;
        if s.check_invariants {
            mapping_checker::check(self.ssd()).map_err(|e| RunError::Invariant(format!("FTL: {e}")))?;
            if let Stack::Fs { fs, .. } = &self.stack {
                fs.check_consistency().map_err(|e| RunError::Invariant(format!("F2FS: {e}")))?;
            }
        }
        let outcome = self.outcome.as_ref().expect("measure() before report()");
        let start = self.now;
        let g = &s.ssd.geometry;
        let counters = self.ssd().stats().since(&self.stats_before);
        let erases = self.ssd().erase_counts();
        let device = DeviceReport {
            preset: s.preset.name().into(),
            logical_bytes: s.ssd.logical_pages * 4096,
            physical_bytes: g.total_bytes(),
            op: (s.ssd.op() * 1e6).round() / 1e6,
            channels: g.channels,
            dies: g.dies(),
            page_bytes: g.page_bytes,
            superblocks: g.superblocks(),
            superblock_bytes: g.superblock_bytes(),
            mapping: match s.fs.as_ref().and_then(|f| f.coupled.as_ref()) {
                Some(c) if c.personality == crate::ftl::MainArea::Zns => "zoned (page-mapped conventional metadata area; with device.flash_gib its device-GC reserve is flash beyond that size)".into(),
                Some(c) if c.personality == crate::ftl::MainArea::Sftl => "sFTL: OPU partition mapped directly, host-freed; IPU (metadata) partition page-mapped".into(),
                Some(_) => "block-associative (page-mapped metadata)".into(),
                None => s.ssd.ftl.mapping.clone(),
            },
            mapping_memory_bytes: self.ssd().mapping_memory_bytes(),
            mapping_memory_series: self
                .ssd()
                .mapping_memory_series()
                .iter()
                .map(|&(t, b)| ((t.saturating_since(SimTime::ZERO).as_secs_f64() * 1000.0).round() / 1000.0, b))
                .collect(),
        };
        let submit_ns = s.host.submit_ns;
        let jobs = outcome
            .jobs
            .iter()
            .map(|j| {
                // fio: a job's runtime runs from its own start (a
                // stonewalled job starts when the earlier ones finish).
                let runtime_ns = j.end.saturating_since(j.start.max(start)).ns().max(1);
                let iops = |d: &DirResult| ((d.ios as f64 * 1e9 / runtime_ns as f64) * 1000.0).round() / 1000.0;
                let dir = |d: &DirResult| {
                    let bw_bytes = (d.bytes as u128 * 1_000_000_000 / runtime_ns as u128) as u64;
                    let lat = d.clat.summary();
                    DirReport {
                        io_bytes: d.bytes,
                        io_kbytes: d.bytes >> 10,
                        bw_bytes,
                        bw: bw_bytes >> 10,
                        iops: iops(d),
                        runtime: runtime_ns / 1_000_000,
                        total_ios: d.ios,
                        short_ios: 0,
                        drop_ios: 0,
                        slat_ns: LatencySummary::constant(submit_ns, d.ios),
                        clat_ns: lat.less(submit_ns),
                        lat_ns: lat,
                    }
                };
                JobReport {
                    jobname: j.name.clone(),
                    job_options: s.job_options.get(j.job).cloned().unwrap_or_default(),
                    read: dir(&j.read),
                    write: dir(&j.write),
                    trim: dir(&j.trim),
                    sync: SyncReport { total_ios: j.sync.ios, lat_ns: j.sync.clat.summary(), iops: iops(&j.sync) },
                }
            })
            .collect();
        let ftl = FtlReport {
            gc_policy: s.ssd.ftl.victim_policy.clone(),
            waf: (counters.waf() * 1e6).round() / 1e6,
            gc_busy_s: counters.gc_busy_ns as f64 / 1e9,
            free_superblocks_end: self.ssd().free_superblocks() as u64,
            erase_count_min: erases.iter().copied().min().unwrap_or(0),
            erase_count_max: erases.iter().copied().max().unwrap_or(0),
            erase_count_mean: ((erases.iter().map(|&e| e as f64).sum::<f64>() / erases.len().max(1) as f64) * 1e4)
                .round()
                / 1e4,
            counters: counters.clone(),
        };
        let (fs_report, oracle) = match &self.stack {
            Stack::Raw { oracle, .. } => (None, oracle.stats().clone()),
            Stack::Fs { fs, before, cache_before, .. } => 'fsr: {
                let c = fs.stats().since(before);
                let round = |x: f64| (x * 1e6).round() / 1e6;
                let total = if c.app_write_blocks == 0 {
                    0.0
                } else {
                    counters.nand_write_slots() as f64 / c.app_write_blocks as f64
                };
                if let Some(e) = fs.as_ext4() {
                    let l = e.layout();
                    let group_bytes = crate::fs::ext4::BLOCKS_PER_GROUP * 4096;
                    let report = FsReport {
                        kind: "ext4".into(),
                        mode: "ordered".into(),
                        ipu_policy: "in-place".into(),
                        discard: if e.options().discard { "immediate" } else { "off" }.into(),
                        partition_bytes: l.blocks * 4096,
                        section_bytes: group_bytes,
                        main_sections: l.groups as u32,
                        overprovision_pct: 0.0,
                        ovp_segments: 0,
                        reserved_segments: 0,
                        user_bytes: e.user_blocks() * 4096,
                        fs_waf: round(c.waf()),
                        total_waf: round(total),
                        mean_read_request_kib: round(c.mean_read_request_kib()),
                        utilization_end_pct: round(e.utilization_pct()),
                        free_sections_end: (e.free_blocks() / crate::fs::ext4::BLOCKS_PER_GROUP) as u32,
                        locks: e.lock_stats(),
                        page_cache: e.page_cache_stats().since(cache_before),
                        counters: c,
                    };
                    break 'fsr (Some(report), e.oracle().clone());
                }
                let fs = fs.as_f2fs().expect("F2FS or ext4");
                let l = fs.layout();
                let cfg = fs.config();
                (
                    Some(FsReport {
                        kind: if fs.is_d2fs() {
                            "d2fs"
                        } else if cfg.csgc.is_some() {
                            "csgc"
                        } else if cfg.gc_engine.kind == crate::fs::GcEngineKind::Dgc {
                            "scalelfs"
                        } else if cfg.rmipu {
                            "rmipu"
                        } else if cfg.zoned {
                            "zf2fs"
                        } else if fs.iplfs() {
                            "iplfs"
                        } else {
                            "f2fs"
                        }
                        .into(),
                        mode: enum_name(&cfg.mode),
                        ipu_policy: enum_name(&cfg.ipu_policy),
                        discard: if fs.is_d2fs() {
                            "on-invalidate".into()
                        } else if cfg.zoned {
                            "zone-reset".into()
                        } else if fs.iplfs() {
                            "checkpoint".into()
                        } else {
                            enum_name(&cfg.discard)
                        },
                        partition_bytes: l.blocks * 4096,
                        section_bytes: l.blocks_per_sec() * 4096,
                        main_sections: l.main_sections,
                        overprovision_pct: l.overprovision_pct,
                        ovp_segments: l.ovp_segments,
                        reserved_segments: l.reserved_segments,
                        user_bytes: l.user_blocks * 4096,
                        fs_waf: round(c.waf()),
                        total_waf: round(total),
                        mean_read_request_kib: round(c.mean_read_request_kib()),
                        utilization_end_pct: round(fs.utilization_pct()),
                        free_sections_end: fs.free_sections(),
                        locks: fs.lock_stats(),
                        page_cache: fs.page_cache_stats().since(cache_before),
                        counters: c,
                    }),
                    fs.oracle().clone(),
                )
            }
        };
        let mut simplifications: Vec<String> = SIMPLIFICATIONS.iter().map(|s| s.to_string()).collect();
        match &self.stack {
            Stack::Fs { fs, .. } if fs.as_ext4().is_some() => {
                simplifications.extend(crate::fs::ext4::SIMPLIFICATIONS.iter().map(|s| s.to_string()))
            }
            Stack::Fs { .. } => simplifications.extend(FS_SIMPLIFICATIONS.iter().map(|s| s.to_string())),
            Stack::Raw { .. } => {}
        }
        if matches!(self.stack, Stack::Fs { .. }) {
            simplifications.push(crate::host::EVICTION_SIMPLIFICATION.to_string());
        }
        simplifications.extend(ssr_window_caveat(s));
        simplifications.extend(d2fs_checkpoint_caveat(s));
        if let Some(fb) = &s.filebench {
            simplifications.push(workload::filebench::SIMPLIFICATION.to_string());
            if fb.personality == "oltp" {
                simplifications.push(workload::filebench::OLTP_SIMPLIFICATION.to_string());
            }
        }
        if s.database.is_some() {
            simplifications.push(workload::database::SIMPLIFICATION.to_string());
        }
        if s.ssd.timing.cmd_ns > 0 {
            simplifications.push(format!(
                "device: every command takes {} us on one command-processing core, in turn (device.cmd_us; the femu preset's 8.5 us is FEMU's per-request overhead, fitted once on RM-IPU's fragmented-read gap, docs/calibration.md); the host block layer's per-command CPU is fs.bio_ns",
                s.ssd.timing.cmd_ns as f64 / 1000.0
            ));
        }
        if s.ssd.ftl.mapping.starts_with("interval") {
            simplifications.extend(INTERVAL_SIMPLIFICATIONS.iter().map(|s| s.to_string()));
        }
        if s.fs.as_ref().is_some_and(|f| f.config.rmipu) {
            simplifications.push(RMIPU_SIMPLIFICATION.to_string());
        }
        let csgc = match (&self.stack, self.ssd().csd_stats(), s.fs.as_ref()) {
            (Stack::Fs { fs, before, .. }, Some(now), Some(f)) => {
                let fs = fs.as_f2fs().expect("CSGC runs F2FS");
                simplifications.extend(CSGC_SIMPLIFICATIONS.iter().map(|s| s.to_string()));
                let device = now.since(self.csd_before.as_ref().unwrap_or(&Default::default()));
                let c = fs.stats().since(before);
                let cfg = fs.config().csgc.clone().unwrap_or_default();
                let csd = f.csd.clone().unwrap_or_default();
                let moved = c.gc_moved_data_blocks + c.gc_moved_node_blocks;
                let round = |x: f64| (x * 1e4).round() / 1e4;
                Some(crate::metrics::CsgcReport {
                    offload: cfg.offload,
                    pipeline_depth: cfg.pipeline_depth,
                    piggyback: cfg.piggyback,
                    coalesce_window: csd.coalesce_window,
                    executor_cores: csd.executor_cores,
                    block_migration_us: round(if moved == 0 { 0.0 } else { c.gc_time_ns as f64 / moved as f64 / 1e3 }),
                    request_ms: round(if device.requests == 0 { 0.0 } else { device.request_ns as f64 / device.requests as f64 / 1e6 }),
                    pcie_bytes_per_block: round(if device.blocks_migrated == 0 { 0.0 } else { device.pcie_bytes as f64 / device.blocks_migrated as f64 }),
                    device,
                })
            }
            _ => None,
        };
        let gc = match (&self.stack, s.fs.as_ref()) {
            (Stack::Fs { fs, before, gc_before, .. }, Some(f))
                if f.config.ext4.is_none() && (f.config.gc_engine.kind != crate::fs::GcEngineKind::Serial || f.config.host_cores > 0) =>
            {
                let fs = fs.as_f2fs().expect("the F2FS family");
                let e = &fs.engine();
                if e.kind != crate::fs::GcEngineKind::Serial {
                    simplifications.push(PARALLEL_GC_SIMPLIFICATION.to_string());
                }
                if e.victim_scan_ns_per_segment > 0 {
                    simplifications.push(VICTIM_SCAN_SIMPLIFICATION.to_string());
                }
                let st = fs.gc_engine_stats().clone();
                let assumed_ns: std::collections::BTreeMap<String, u64> = [
                    ("dpb_ns", e.dpb_ns),
                    ("victim_scan_ns_per_segment", e.victim_scan_ns_per_segment),
                    ("sentry_hold_ns", e.sentry_hold_ns),
                    ("atomic_ns", e.atomic_ns),
                    ("svp_op_ns", e.svp_op_ns),
                    ("lock_wake_ns", e.lock_wake_ns),
                    ("alloc_ns", f.config.costs.alloc_ns),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
                Some(crate::metrics::GcReport {
                    engine: e.kind.name().into(),
                    threads: e.threads,
                    svp: e.svp,
                    dws: e.dws,
                    lsu: e.lsu,
                    cvs: e.cvs,
                    dpb: e.dpb,
                    host_cores: f.config.host_cores,
                    gc_time_s: fs.stats().since(before).gc_time_ns as f64 / 1e9,
                    mean_active_collectors: if st.round_ns == 0 { 0.0 } else { (st.worker_busy_ns as f64 / st.round_ns as f64 * 1e3).round() / 1e3 },
                    measured_false_positive_reads: st.false_positive_reads - gc_before.false_positive_reads,
                    stats: st,
                    locks: fs.gc_lock_table(),
                    cpu_utilisation_pct: fs.cpu_utilisation_pct().into_iter().map(|u| (u * 100.0).round() / 100.0).collect(),
                    fs_submitted_mb_per_s: fs.submitted_mb_per_s().into_iter().map(|(r, w)| ((r * 100.0).round() / 100.0, (w * 100.0).round() / 100.0)).collect(),
                    assumed_ns,
                })
            }
            _ => None,
        };
        let d2fs = match (&self.stack, &self.coupled_before, s.fs.as_ref().and_then(|f| f.coupled.as_ref())) {
            (Stack::Fs { fs, .. }, Some(before), Some(cc)) if cc.personality == crate::ftl::MainArea::D2fs => {
                let fs = fs.as_f2fs().expect("D2FS runs F2FS");
                simplifications.extend(D2FS_SIMPLIFICATIONS.iter().map(|s| s.to_string()));
                let cap = s.ssd.logical_pages as f64;
                let per_sec = fs.layout().blocks_per_sec();
                let gc_secs = ((cc.partition_blocks - cc.gc_region_start) / per_sec) as u32;
                Some(D2fsReport {
                    vop_regular: (cc.gc_region_start as f64 / cap * 1000.0).round() / 1000.0,
                    vop_total: (cc.partition_blocks as f64 / cap * 1000.0).round() / 1000.0,
                    regular_sections: fs.layout().main_sections - gc_secs,
                    gc_region_sections: gc_secs,
                    device: self.ssd().coupled_stats().expect("coupled device").since(before),
                    memory: self.ssd().mapping_memory(),
                    regions: fs.region_samples().to_vec(),
                    record_buffer: self.ssd().record_buffer_samples(),
                })
            }
            _ => None,
        };
        Ok(RunReport {
            fio_version: concat!("lfslab-", env!("CARGO_PKG_VERSION")).into(),
            lfslab_version: env!("CARGO_PKG_VERSION").into(),
            global_options: s.global_options.clone(),
            scenario: s.name.clone(),
            seed: s.seed,
            device,
            precondition: self.precondition.clone(),
            jobs,
            flowops: self
                .flowops
                .iter()
                .map(|o| {
                    let secs = outcome.end.saturating_since(start).as_secs_f64().max(1e-9);
                    FlowopReport {
                        name: o.name.clone(),
                        flowop: o.kind.name().into(),
                        ops: o.ops,
                        ops_per_s: (o.ops as f64 / secs * 1000.0).round() / 1000.0,
                        mb_per_s: (o.bytes as f64 / 1e6 / secs * 1000.0).round() / 1000.0,
                        skipped: o.skipped,
                        lat_ns: o.lat.summary(),
                    }
                })
                .collect(),
            operations: self.operations.clone(),
            database: self.database.clone(),
            ftl,
            fs: fs_report,
            d2fs,
            csgc,
            gc,
            oracle,
            sim: SimReport {
                measured_sim_time_s: outcome.end.saturating_since(start).as_secs_f64(),
                events: outcome.events,
                invariants_checked: s.check_invariants,
            },
            timeseries: outcome.series.buckets().to_vec(),
            simplifications,
            ignored_input: s.input_notes.clone(),
        })
    }
}

/// The serde name of a unit enum variant ("adaptive", "idle-batched", ...).
fn enum_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// Resident memory a run of `s` needs, roughly (docs/performance.md's
/// bytes per 4 KiB, rounded up): the flash store and reverse map per
/// physical slot, the mapping and oracle per logical block, the SSA and
/// the oracle per filesystem block, and the page cache once full.
pub fn memory_estimate_bytes(s: &Scenario) -> u64 {
    let slots = s.ssd.geometry.total_slots();
    // Interval Mapping (IPLFS) maps a logical space far larger than the
    // flash sparsely: what it holds is bounded by the flash.
    let logical = if s.ssd.ftl.mapping.starts_with("interval") { slots } else { s.ssd.logical_pages };
    let mut bytes = 8 * slots + 8 * logical + (64 << 20);
    if let Some(f) = &s.fs {
        // IPLFS's partition is mostly never written: count the flash.
        let blocks = f.partition_blocks.min(2 * slots);
        let cached = (f.config.page_cache_pages as u64).min(f.user_blocks);
        bytes += 14 * blocks + 40 * cached;
    }
    // The database model: YCSB sorts (hash, key) pairs and keeps a rank per
    // record; the buffer pool's frames cost about 64 bytes each.
    if let Some(db) = &s.database {
        if let crate::workload::database::Bench::Ycsb(y) = &db.bench {
            bytes += 16 * y.recordcount;
        }
        bytes += 64 * db.engine.buffer_pool_pages as u64;
    }
    bytes
}

/// Refuse a run that would not fit in `available` bytes of memory, with the
/// estimate, before allocating anything.
pub fn check_memory(s: &Scenario, available: u64) -> Result<(), RunError> {
    let need = memory_estimate_bytes(s);
    if need <= available {
        return Ok(());
    }
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    Err(RunError::Memory(format!(
        "device.capacity_gib = {}: this run needs about {:.1} GiB of memory and the machine has {:.1} GiB available; \
         lower device.capacity_gib (or compare's --scale, or run fewer designs at once with --jobs)",
        s.resolved.device.capacity_gib.unwrap_or(0.0),
        gib(need),
        gib(available)
    )))
}

/// Precondition, measure and report in one call.
pub fn run(scenario: Scenario) -> Result<RunReport, RunError> {
    run_with_progress(scenario, None)
}

/// `run`, reporting every phase's progress to `progress`.
pub fn run_with_progress(scenario: Scenario, progress: Option<Progress>) -> Result<RunReport, RunError> {
    run_aged(scenario, progress, &AgedPaths::default())
}

/// Where a run's aged state comes from (instead of the precondition phase)
/// or is saved to after it (`--from-aged`, `--save-aged`).
#[derive(Clone, Debug, Default)]
pub struct AgedPaths {
    pub from: Option<std::path::PathBuf>,
    pub save: Option<std::path::PathBuf>,
}

/// `run_with_progress`, with the precondition phase loaded or saved.
pub fn run_aged(scenario: Scenario, progress: Option<Progress>, aged: &AgedPaths) -> Result<RunReport, RunError> {
    let mut r = match &aged.from {
        Some(path) => Run::from_aged(scenario, path)?,
        None => {
            let mut r = Run::new(scenario)?;
            r.progress = progress.clone();
            r.precondition()?;
            r
        }
    };
    if let Some(path) = &aged.save {
        r.save_aged(path)?;
    }
    r.progress = progress;
    r.measure()?;
    r.report()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report warns of the SSR window on a scaled volume in adaptive
    /// mode only: not at the represented volume's own size, not in LFS
    /// mode, not on a raw device.
    #[test]
    fn the_ssr_window_caveat_marks_scaled_adaptive_runs() {
        let base = "[device]\ncapacity_gib = 8\n[[job]]\nsize = \"10%\"\n";
        let of = |text: &str| ssr_window_caveat(&Scenario::from_toml_str(text).unwrap());
        let adaptive = format!("{base}[fs]\nkind = \"f2fs\"\nmode = \"adaptive\"\n");
        let note = of(&format!("volume_scale = 0.0625\n{adaptive}")).expect("scaled adaptive run");
        assert!(note.contains("max_victim_search = 256"), "{note}");
        assert_eq!(of(&adaptive), None);
        assert_eq!(of(&format!("volume_scale = 0.0625\n{base}[fs]\nkind = \"f2fs\"\nmode = \"lfs\"\n")), None);
        assert_eq!(of(&format!("volume_scale = 0.0625\n{base}")), None);
    }

    /// The checkpoint note marks scaled D2FS runs, and nothing else.
    #[test]
    fn the_checkpoint_caveat_marks_scaled_d2fs_runs() {
        let base = "[device]\npreset = \"970pro\"\nflash_gib = 16\n[[job]]\nsize = \"10%\"\n";
        let of = |text: &str| d2fs_checkpoint_caveat(&Scenario::from_toml_str(text).unwrap());
        let scaled = "volume_scale = 0.0625\n";
        let note = of(&format!("{scaled}{base}[fs]\nkind = \"d2fs\"\n")).expect("scaled D2FS run");
        assert!(note.contains("volume_scale 0.0625") && note.contains("rec_prefree_segments / 6"), "{note}");
        assert_eq!(of(&format!("{base}[fs]\nkind = \"d2fs\"\n")), None, "at the represented size");
        assert_eq!(of(&format!("{scaled}{base}[fs]\nkind = \"f2fs\"\n")), None, "F2FS");
    }
}
