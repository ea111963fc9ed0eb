//! A database I/O model: an InnoDB-like storage engine (`innodb`, a model
//! of MySQL InnoDB's I/O, not MySQL) driven by YCSB (`ycsb`) or TPC-C
//! (`tpcc`) client threads. The papers run MySQL under these benchmarks
//! (d2fs.txt §8.1, iplfs.txt, csgc.txt §5, scalelfs.txt §5, rm-ipu.txt §4);
//! what reaches the filesystem is what matters to them: 16 KiB page reads
//! on buffer-pool misses, page-cleaner and doublewrite writes with their
//! fsyncs, and a redo-log fsync per commit.
//!
//! A benchmark turns each client call into a transaction: the index pages
//! it reads or changes (B+tree geometry in `btree`), the redo it logs, and
//! whether it commits. The runner (`runner`) plays the client threads in
//! simulated time against the engine.

pub mod btree;
pub mod buffer_pool;
pub mod innodb;
mod runner;
pub mod tpcc;
pub mod ycsb;

pub use innodb::{InnoDbConfig, InnoDbStats};
pub use runner::{populate, run, Database, DatabaseOutcome, OpResult};

use crate::sim::{SimDuration, SimRng};
use crate::workload::parse_size;

/// The run note of a database run.
pub const SIMPLIFICATION: &str = "database: a model of MySQL InnoDB's I/O, not MySQL: B+tree geometry from row sizes and fill factors with no real keys or splits beyond YCSB inserts; undo pages, the change buffer, purge, foreign-key and unused secondary indexes are not modelled (undo shows only as redo volume); redo per change is assumed 2 x the changed bytes + 64; each SQL statement costs database.statement_cpu_us of CPU on its thread, threads never compete for cores or row locks; the tables are written sequentially by the load and the buffer pool starts empty";

/// A page an operation touches, as a key of `innodb::page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read (or find in the buffer pool).
    Read(u64),
    /// Read and change, logging this many redo bytes.
    Write(u64, u32),
    /// A page new to its file (no read), changed.
    Create(u64, u32),
}

/// One client call: what it touches, and which operation it counts as.
#[derive(Clone, Debug, Default)]
pub struct Txn {
    /// Index into `Workload::op_names`.
    pub op: usize,
    /// SQL statements it runs (each costs statement CPU).
    pub statements: u32,
    pub steps: Vec<Step>,
}

/// Walk index `ix` of table file `file` from the root to `leaf`: a read of
/// each page, the leaf changed (logging `change` redo bytes) if given.
fn walk(steps: &mut Vec<Step>, file: usize, ix: &btree::Index, leaf: u64, change: Option<u32>) {
    steps.extend(ix.path(leaf).map(|p| Step::Read(innodb::page(file, p))));
    if let (Some(r), Some(Step::Read(k))) = (change, steps.last().copied()) {
        *steps.last_mut().expect("a path has a leaf") = Step::Write(k, r);
    }
}

/// A benchmark's clients: the next call of each thread.
pub trait Workload {
    fn op_names(&self) -> Vec<String>;
    /// Fill `txn` with thread `thread`'s next call; false when it is done.
    fn next_txn(&mut self, thread: usize, rng: &mut SimRng, txn: &mut Txn) -> bool;
}

/// The `[database]` table: the benchmark, the engine's settings (MySQL 8.0
/// defaults, names without `innodb_`) and the benchmark's parameters.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DatabaseVars {
    /// "ycsb" or "tpcc".
    pub benchmark: String,
    /// Client threads (YCSB threadcount, TPC-C terminals); default 1, as
    /// YCSB's and tpcc-mysql's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// A file written once before the database is loaded and never touched
    /// again (D2FS §8.1: "we fill the disk with 60 GByte cold file"); default none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold_file: Option<String>,
    /// innodb_buffer_pool_size (default 128m, MySQL's; the papers do not give theirs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_pool: Option<String>,
    /// innodb_log_file_size (default 48m).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_file_size: Option<String>,
    /// innodb_log_files_in_group (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_files: Option<u32>,
    /// innodb_io_capacity, pages per second (default 200).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_capacity: Option<u64>,
    /// innodb_io_capacity_max (default 2000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_capacity_max: Option<u64>,
    /// innodb_max_dirty_pages_pct (default 90).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_dirty_pages_pct: Option<f64>,
    /// innodb_max_dirty_pages_pct_lwm (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_dirty_pages_pct_lwm: Option<f64>,
    /// innodb_adaptive_flushing_lwm, percent of the redo log (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive_flushing_lwm: Option<f64>,
    /// innodb_lru_scan_depth (default 1024, or a quarter of a smaller pool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lru_scan_depth: Option<u32>,
    /// innodb_old_blocks_pct (default 37).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_blocks_pct: Option<u32>,
    /// innodb_old_blocks_time in ms (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_blocks_time_ms: Option<u64>,
    /// innodb_doublewrite (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doublewrite: Option<bool>,
    /// innodb_flush_log_at_trx_commit: 1 (default) fsyncs the log per
    /// commit, 2 writes per commit and fsyncs once a second, 0 does both
    /// once a second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flush_log_at_trx_commit: Option<u8>,
    /// CPU per SQL statement in microseconds (default 10, an assumption).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement_cpu_us: Option<f64>,
    /// YCSB: a, b, c, d, e, f (the core workloads), update-only (ScaleLFS),
    /// d2fs-a (20% read, 80% update) or d2fs-f (20% read, 80% read-modify-write),
    /// as D2FS §8.1 defines its YCSB-A and YCSB-F. Default a.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// YCSB recordcount (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recordcount: Option<u64>,
    /// YCSB operationcount (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operationcount: Option<u64>,
    /// YCSB fieldcount (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fieldcount: Option<u64>,
    /// YCSB fieldlength in bytes (default 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fieldlength: Option<u64>,
    /// YCSB writeallfields (default false: an update changes one field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writeallfields: Option<bool>,
    /// YCSB readproportion (default the workload's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readproportion: Option<f64>,
    /// YCSB updateproportion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updateproportion: Option<f64>,
    /// YCSB insertproportion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insertproportion: Option<f64>,
    /// YCSB scanproportion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scanproportion: Option<f64>,
    /// YCSB readmodifywriteproportion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readmodifywriteproportion: Option<f64>,
    /// YCSB requestdistribution: zipfian, uniform, latest, hotspot (default the workload's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requestdistribution: Option<String>,
    /// YCSB maxscanlength (default 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maxscanlength: Option<u64>,
    /// TPC-C warehouses (default 1, tpcc-mysql's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warehouses: Option<u64>,
    /// TPC-C measured time in seconds (default 20, tpcc-mysql's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<f64>,
    /// TPC-C transaction mix: "standard" (default: 45/43/4/4/4 drawn at
    /// random) or "tpcc-mysql" (its shared deck of 10:10:1:1:1, which the
    /// papers' tpcc_start ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpcc_mix: Option<String>,
}

/// What drives the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Bench {
    Ycsb(ycsb::YcsbSpec),
    Tpcc(tpcc::TpccSpec),
}

/// A resolved `[database]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseSpec {
    pub engine: InnoDbConfig,
    pub threads: u32,
    pub cold_file_bytes: u64,
    pub statement_cpu: SimDuration,
    pub bench: Bench,
}

impl DatabaseSpec {
    pub fn name(&self) -> String {
        match &self.bench {
            Bench::Ycsb(y) => format!("ycsb-{}", y.workload),
            Bench::Tpcc(_) => "tpcc".into(),
        }
    }
    /// Bytes the database's files take after loading (tables, logs, ibdata1).
    pub fn footprint_bytes(&self) -> u64 {
        let tables = match &self.bench {
            Bench::Ycsb(y) => ycsb::Ycsb::new_index(y).end_page(),
            Bench::Tpcc(t) => tpcc::Tpcc::table_pages(t),
        } * innodb::PAGE_BYTES;
        tables + self.engine.log_file_bytes * self.engine.log_files as u64 + runner::IBDATA_PAGES * innodb::PAGE_BYTES
    }
}

fn size(field: &str, v: &Option<String>, default: u64) -> Result<u64, String> {
    match v {
        None => Ok(default),
        Some(s) => parse_size(s).map_err(|e| format!("database.{field}: {e}")),
    }
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(field: &str, v: T, lo: T, hi: T) -> Result<T, String> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(format!("database.{field} = {v}: must be {lo} to {hi}"))
    }
}

impl DatabaseVars {
    /// Resolve against MySQL's and the benchmark's defaults. Errors name the field.
    pub fn resolve(&self) -> Result<DatabaseSpec, String> {
        let mib = 1u64 << 20;
        let pool = size("buffer_pool", &self.buffer_pool, 128 * mib)?;
        let pool_pages = pool / innodb::PAGE_BYTES;
        if !(320..=1 << 28).contains(&pool_pages) {
            return Err(format!(
                "database.buffer_pool = {pool}: must be 5 MiB (InnoDB's smallest innodb_buffer_pool_size) to 4 TiB"
            ));
        }
        let log_file_bytes = size("log_file_size", &self.log_file_size, 48 * mib)?;
        if log_file_bytes < mib || log_file_bytes % 4096 != 0 || log_file_bytes > 512 << 30 {
            return Err(format!("database.log_file_size = {log_file_bytes}: must be a multiple of 4 KiB, 1 MiB to 512 GiB"));
        }
        let io_capacity = in_range("io_capacity", self.io_capacity.unwrap_or(200), 100, 1 << 40)?;
        let io_capacity_max = self.io_capacity_max.unwrap_or(2000.max(io_capacity));
        if io_capacity_max < io_capacity {
            return Err(format!("database.io_capacity_max = {io_capacity_max}: must be at least io_capacity ({io_capacity})"));
        }
        let max_dirty = in_range("max_dirty_pages_pct", self.max_dirty_pages_pct.unwrap_or(90.0), 0.0, 99.999)?;
        let lwm = in_range("max_dirty_pages_pct_lwm", self.max_dirty_pages_pct_lwm.unwrap_or(10.0), 0.0, max_dirty)?;
        let engine = InnoDbConfig {
            buffer_pool_pages: pool_pages as u32,
            log_file_bytes,
            log_files: in_range("log_files", self.log_files.unwrap_or(2), 2, 64)?,
            io_capacity,
            io_capacity_max,
            max_dirty_pages_pct: max_dirty,
            max_dirty_pages_pct_lwm: lwm,
            adaptive_flushing_lwm: in_range("adaptive_flushing_lwm", self.adaptive_flushing_lwm.unwrap_or(10.0), 0.0, 70.0)?,
            lru_scan_depth: match self.lru_scan_depth {
                Some(d) => in_range("lru_scan_depth", d, 1, (pool_pages / 2) as u32)?,
                None => 1024.min(pool_pages as u32 / 4),
            },
            old_blocks_pct: in_range("old_blocks_pct", self.old_blocks_pct.unwrap_or(37), 5, 95)?,
            old_blocks_time: SimDuration::from_ms(in_range("old_blocks_time_ms", self.old_blocks_time_ms.unwrap_or(1000), 0, 1 << 32)?),
            doublewrite: self.doublewrite.unwrap_or(true),
            flush_log_at_trx_commit: in_range("flush_log_at_trx_commit", self.flush_log_at_trx_commit.unwrap_or(1), 0, 2)?,
        };
        let threads = in_range("threads", self.threads.unwrap_or(1), 1, 10_000)?;
        let cold_file_bytes = size("cold_file", &self.cold_file, 0)?;
        let cpu = in_range("statement_cpu_us", self.statement_cpu_us.unwrap_or(10.0), 0.0, 1e6)?;
        let ycsb_only = [
            ("workload", self.workload.is_some()),
            ("recordcount", self.recordcount.is_some()),
            ("operationcount", self.operationcount.is_some()),
            ("fieldcount", self.fieldcount.is_some()),
            ("fieldlength", self.fieldlength.is_some()),
            ("writeallfields", self.writeallfields.is_some()),
            ("readproportion", self.readproportion.is_some()),
            ("updateproportion", self.updateproportion.is_some()),
            ("insertproportion", self.insertproportion.is_some()),
            ("scanproportion", self.scanproportion.is_some()),
            ("readmodifywriteproportion", self.readmodifywriteproportion.is_some()),
            ("requestdistribution", self.requestdistribution.is_some()),
            ("maxscanlength", self.maxscanlength.is_some()),
        ];
        let tpcc_only =
            [("warehouses", self.warehouses.is_some()), ("runtime", self.runtime.is_some()), ("tpcc_mix", self.tpcc_mix.is_some())];
        let misplaced = |fields: &[(&str, bool)], other: &str| {
            fields.iter().find(|(_, set)| *set).map(|(f, _)| format!("database.{f} applies to benchmark = \"{other}\", not {:?}", self.benchmark))
        };
        let bench = match self.benchmark.as_str() {
            "ycsb" => {
                if let Some(e) = misplaced(&tpcc_only, "tpcc") {
                    return Err(e);
                }
                let w = self.workload.clone().unwrap_or_else(|| "a".into());
                let Some((mut p, dist)) = ycsb::preset(&w) else {
                    return Err(format!("database.workload = {w:?}: choose one of {}", ycsb::PRESETS.join(", ")));
                };
                for (i, (f, v)) in [
                    ("readproportion", self.readproportion),
                    ("updateproportion", self.updateproportion),
                    ("insertproportion", self.insertproportion),
                    ("scanproportion", self.scanproportion),
                    ("readmodifywriteproportion", self.readmodifywriteproportion),
                ]
                .into_iter()
                .enumerate()
                {
                    if let Some(v) = v {
                        p[i] = in_range(f, v, 0.0, 1.0)?;
                    }
                }
                if p.iter().sum::<f64>() <= 0.0 {
                    return Err(format!("database.readproportion = {}: the operation proportions add up to 0", p[0]));
                }
                let dist_s = self.requestdistribution.clone().unwrap_or_else(|| dist.into());
                let distribution = ycsb::RequestDistribution::parse(&dist_s).map_err(|e| format!("database.requestdistribution = {e}"))?;
                let recordcount = in_range("recordcount", self.recordcount.unwrap_or(1000), 1, u32::MAX as u64 - 1)?;
                let fieldlength = in_range("fieldlength", self.fieldlength.unwrap_or(100), 1, 1 << 20)?;
                let fieldcount = in_range("fieldcount", self.fieldcount.unwrap_or(10), 1, 1000)?;
                let spec = ycsb::YcsbSpec {
                    workload: w,
                    recordcount,
                    operationcount: in_range("operationcount", self.operationcount.unwrap_or(1000), 1, 1 << 40)?,
                    fieldcount,
                    fieldlength,
                    writeallfields: self.writeallfields.unwrap_or(false),
                    proportions: p,
                    distribution,
                    maxscanlength: in_range("maxscanlength", self.maxscanlength.unwrap_or(100), 1, 1 << 20)?,
                };
                // InnoDB keeps a record on its page only up to half a page
                // (off-page columns are not modelled).
                let rec = ycsb::Ycsb::record_bytes(&spec);
                if rec as f64 > btree::PAGE_USABLE / 2.0 {
                    return Err(format!(
                        "database.fieldlength = {fieldlength}: a record of {rec} bytes does not fit half a 16 KiB page (at most {:.0}); lfslab does not model off-page columns",
                        btree::PAGE_USABLE / 2.0
                    ));
                }
                Bench::Ycsb(spec)
            }
            "tpcc" => {
                if let Some(e) = misplaced(&ycsb_only, "ycsb") {
                    return Err(e);
                }
                let runtime = in_range("runtime", self.runtime.unwrap_or(20.0), 0.001, 1e6)?;
                let deck = match self.tpcc_mix.as_deref().unwrap_or("standard") {
                    "standard" => false,
                    "tpcc-mysql" => true,
                    m => return Err(format!("database.tpcc_mix = {m:?}: choose standard or tpcc-mysql")),
                };
                Bench::Tpcc(tpcc::TpccSpec {
                    warehouses: in_range("warehouses", self.warehouses.unwrap_or(1), 1, 100_000)?,
                    runtime: SimDuration::from_secs_f64(runtime),
                    deck,
                })
            }
            b => return Err(format!("database.benchmark = {b:?}: choose ycsb or tpcc")),
        };
        Ok(DatabaseSpec { engine, threads, cold_file_bytes, statement_cpu: SimDuration::from_secs_f64(cpu / 1e6), bench })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(b: &str) -> DatabaseVars {
        DatabaseVars { benchmark: b.into(), ..DatabaseVars::default() }
    }

    #[test]
    fn defaults_are_mysqls_and_the_benchmarks() {
        let s = vars("ycsb").resolve().unwrap();
        assert_eq!((s.engine.buffer_pool_pages, s.engine.log_file_bytes, s.engine.log_files), (8192, 48 << 20, 2));
        assert_eq!((s.engine.io_capacity, s.engine.io_capacity_max, s.engine.lru_scan_depth), (200, 2000, 1024));
        assert!(s.engine.doublewrite && s.engine.flush_log_at_trx_commit == 1);
        match s.bench {
            Bench::Ycsb(y) => assert_eq!((y.recordcount, y.fieldcount, y.fieldlength, y.proportions[0]), (1000, 10, 100, 0.5)),
            Bench::Tpcc(_) => panic!("ycsb"),
        }
        assert!(matches!(vars("tpcc").resolve().unwrap().bench, Bench::Tpcc(t) if t.warehouses == 1));
    }

    #[test]
    fn bad_values_name_their_field() {
        assert!(vars("mongo").resolve().unwrap_err().contains("database.benchmark"));
        let mut v = vars("ycsb");
        v.workload = Some("z".into());
        assert!(v.resolve().unwrap_err().contains("database.workload"));
        v.workload = None;
        v.warehouses = Some(3);
        assert!(v.resolve().unwrap_err().contains("database.warehouses applies to benchmark = \"tpcc\""));
        v.warehouses = None;
        v.fieldlength = Some(1000);
        assert!(v.resolve().unwrap_err().contains("database.fieldlength"));
        v.fieldlength = None;
        v.buffer_pool = Some("lots".into());
        assert!(v.resolve().unwrap_err().contains("database.buffer_pool"));
        let mut t = vars("tpcc");
        t.recordcount = Some(5);
        assert!(t.resolve().unwrap_err().contains("database.recordcount applies to benchmark = \"ycsb\""));
    }
}
