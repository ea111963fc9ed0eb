//! The run report: one serialisable structure (JSON sink) and a text table
//! sink. Per-job read/write sections follow fio's JSON layout
//! (io_bytes, bw_bytes, iops, runtime, clat_ns with percentiles) so fio
//! tooling can read them; lfslab's own fields sit beside them.

use super::latency::LatencySummary;
use super::timeseries::Bucket;
use crate::fs::{FsLockStats, FsStats, RegionSample};
use crate::ftl::{CoupledStats, MappingMemory};
use crate::host::PageCacheStats;
use crate::ftl::FtlStats;
use crate::oracle::OracleStats;
use crate::workload::PreconditionSummary;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// fio's first key, naming what wrote the report ("lfslab-<version>").
    #[serde(rename = "fio version")]
    pub fio_version: String,
    pub lfslab_version: String,
    /// A fio job file's [global] options, as fio reports them.
    #[serde(rename = "global options", skip_serializing_if = "BTreeMap::is_empty")]
    pub global_options: BTreeMap<String, String>,
    pub scenario: String,
    pub seed: u64,
    pub device: DeviceReport,
    pub precondition: PreconditionSummary,
    pub jobs: Vec<JobReport>,
    /// A filebench run: one row per flowop, as filebench prints them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flowops: Vec<FlowopReport>,
    /// A database run: one row per operation (YCSB) or transaction (TPC-C).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<OperationReport>,
    /// A database run: the engine's work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<DatabaseReport>,
    pub ftl: FtlReport,
    /// Present when the jobs ran on a filesystem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsReport>,
    /// Present for D2FS runs (d2fs.txt §4-7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d2fs: Option<D2fsReport>,
    /// Present for CSGC runs (csgc.txt §3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csgc: Option<CsgcReport>,
    /// Present when a parallel GC engine runs or the host's cores are
    /// limited (ScaleLFS, scalelfs.txt §4-5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc: Option<GcReport>,
    pub oracle: OracleStats,
    pub sim: SimReport,
    pub timeseries: Vec<Bucket>,
    /// Where the model simplifies the hardware or papers; printed with results.
    pub simplifications: Vec<String>,
    /// Input the simulation accepted without effect (fio options it ignores).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored_input: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceReport {
    pub preset: String,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub op: f64,
    pub channels: u32,
    pub dies: u32,
    pub page_bytes: u32,
    pub superblocks: u32,
    pub superblock_bytes: u64,
    pub mapping: String,
    pub mapping_memory_bytes: u64,
    /// Interval Mapping: (simulated s since the run began, bytes), once per second.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mapping_memory_series: Vec<(f64, u64)>,
}

/// One direction of a job, in fio's layout (fio 3.33 --output-format=json).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DirReport {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    pub bw_bytes: u64,
    /// KiB/s.
    pub bw: u64,
    pub iops: f64,
    /// Milliseconds, as fio reports.
    pub runtime: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// Submission: the host's fixed cost per I/O (host.submit_ns).
    pub slat_ns: LatencySummary,
    /// Submission to completion (lat less slat).
    pub clat_ns: LatencySummary,
    /// The whole call, as the application sees it.
    pub lat_ns: LatencySummary,
}

/// fio's `sync` section: fsync calls and their latency.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyncReport {
    pub total_ios: u64,
    pub lat_ns: LatencySummary,
    /// Calls per second of the job's runtime (the text report's; fio has none).
    #[serde(skip)]
    pub iops: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobReport {
    pub jobname: String,
    /// The job's options as given (a fio job file's lines, a [[job]] table's fields).
    #[serde(rename = "job options")]
    pub job_options: BTreeMap<String, String>,
    pub read: DirReport,
    pub write: DirReport,
    pub trim: DirReport,
    pub sync: SyncReport,
}

/// One flowop of a filebench run (filebench's per-flowop statistics).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowopReport {
    pub name: String,
    /// The flowop type (createfile, readwholefile, ...).
    pub flowop: String,
    pub ops: u64,
    pub ops_per_s: f64,
    pub mb_per_s: f64,
    /// Runs that found nothing to work on (no file to pick, fd not open).
    pub skipped: u64,
    pub lat_ns: LatencySummary,
}

/// One operation type of a database run, with its latency percentiles
/// (p95, p99 and p99.95 among them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperationReport {
    pub name: String,
    pub ops: u64,
    pub ops_per_s: f64,
    pub lat_ns: LatencySummary,
}

/// What the database model's engine did (the InnoDB I/O model).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DatabaseReport {
    /// "ycsb-<workload>" or "tpcc".
    pub benchmark: String,
    pub threads: u32,
    /// Operations (transactions) per second over the measured phase.
    pub ops_per_s: f64,
    /// TPC-C: New-Order transactions per minute (tpmC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpmc: Option<f64>,
    pub buffer_pool_pages: u32,
    pub buffer_pool_hit_ratio: f64,
    /// Commits per redo-log fsync (group commit).
    pub commits_per_log_fsync: f64,
    pub engine: crate::workload::database::InnoDbStats,
}

#[derive(Clone, Debug, Serialize)]
pub struct FsReport {
    pub kind: String,
    pub mode: String,
    pub ipu_policy: String,
    pub discard: String,
    pub partition_bytes: u64,
    pub section_bytes: u64,
    pub main_sections: u32,
    pub overprovision_pct: f64,
    pub ovp_segments: u32,
    pub reserved_segments: u32,
    pub user_bytes: u64,
    /// Counters of the measured phase only.
    pub counters: FsStats,
    /// FS writes (data + node + metadata) / application writes.
    pub fs_waf: f64,
    /// NAND writes / application writes: the whole stack.
    pub total_waf: f64,
    /// Mean size of the read commands application reads turned into.
    pub mean_read_request_kib: f64,
    pub utilization_end_pct: f64,
    pub free_sections_end: u32,
    pub locks: FsLockStats,
    pub page_cache: PageCacheStats,
}

impl PartialEq for FsReport {
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_string(self).ok() == serde_json::to_string(other).ok()
    }
}

/// The filesystem's foreground GC engine and the host's cores: ScaleLFS's
/// techniques, the GC paths' lock table (Table 3), CPU utilisation (Fig. 9e).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GcReport {
    pub engine: String,
    pub threads: u32,
    pub svp: bool,
    pub dws: bool,
    pub lsu: bool,
    pub cvs: bool,
    pub dpb: bool,
    /// Host cores (0 = unlimited).
    pub host_cores: u32,
    /// Foreground GC time in the measured phase, s (Table 3's "GC s").
    pub gc_time_s: f64,
    /// Collectors at work on average while a round ran (whole run).
    pub mean_active_collectors: f64,
    /// Whole run.
    pub stats: crate::fs::ParallelGcStats,
    /// False-positive GC reads in the measured phase (ScaleLFS §5.5's
    /// figure is per request of the measured run).
    pub measured_false_positive_reads: u64,
    /// The GC paths' locks over the whole run.
    pub locks: crate::host::LockTable,
    /// Host CPU busy per simulated second, percent of the cores (of one
    /// core when unlimited).
    pub cpu_utilisation_pct: Vec<f64>,
    /// Read and write MB the filesystem submitted to the device per
    /// simulated second, whole run (Fig. 9b).
    pub fs_submitted_mb_per_s: Vec<(f64, f64)>,
    /// The assumed costs in effect, ns.
    pub assumed_ns: BTreeMap<String, u64>,
}

/// D2FS: virtual overprovisioning, Coupled GC and upcall activity (device
/// counters of the measured phase), FTL memory (Table 1) and region
/// utilisation over the whole run (Fig. 11).
/// CSGC's offloaded GC (counters of the measured phase): the host
/// offloader's switches and time, the device executor's work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsgcReport {
    pub offload: bool,
    pub pipeline_depth: u32,
    pub piggyback: bool,
    pub coalesce_window: u32,
    pub executor_cores: u32,
    /// FS GC time per block it moved, all stages, in us (csgc.txt Fig. 7a).
    pub block_migration_us: f64,
    /// Mean time from a migrate's arrival to its completion, in ms.
    pub request_ms: f64,
    /// Descriptor bytes over PCIe per block migrated.
    pub pcie_bytes_per_block: f64,
    pub device: crate::ftl::CsdStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct D2fsReport {
    /// p_regular and p_v = partition / device capacity.
    pub vop_regular: f64,
    pub vop_total: f64,
    pub regular_sections: u32,
    pub gc_region_sections: u32,
    pub device: CoupledStats,
    pub memory: MappingMemory,
    pub regions: Vec<RegionSample>,
    /// Fig. 17: (second since the run began, most outstanding migration
    /// records after a CGC round in that second).
    pub record_buffer: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtlReport {
    pub gc_policy: String,
    /// Counters of the measured phase only.
    pub counters: FtlStats,
    /// NAND writes / host writes during the measured phase.
    pub waf: f64,
    pub gc_busy_s: f64,
    pub free_superblocks_end: u64,
    pub erase_count_min: u32,
    pub erase_count_max: u32,
    pub erase_count_mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    pub measured_sim_time_s: f64,
    pub events: u64,
    pub invariants_checked: bool,
}

fn fmt_bytes(b: f64) -> String {
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}

impl RunReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// Human-readable summary table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let d = &self.device;
        let _ = writeln!(
            s,
            "device   {} | {} exported, {} flash (OP {:.1}%) | {} ch, {} dies, {} KiB pages, {} superblocks of {} | {} mapping {}",
            d.preset,
            fmt_bytes(d.logical_bytes as f64),
            fmt_bytes(d.physical_bytes as f64),
            d.op * 100.0,
            d.channels,
            d.dies,
            d.page_bytes / 1024,
            d.superblocks,
            fmt_bytes(d.superblock_bytes as f64),
            d.mapping,
            fmt_bytes(d.mapping_memory_bytes as f64),
        );
        let _ = writeln!(
            s,
            "precond  {} written in {:.2}s simulated",
            fmt_bytes((self.precondition.blocks_written * 4096) as f64),
            self.precondition.sim_time_s
        );
        let _ = writeln!(
            s,
            "\n{:<16} {:<5} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
            "job", "dir", "IOPS", "MB/s", "mean us", "p50 us", "p99 us", "p99.9 us", "p99.99 us", "max us"
        );
        for j in &self.jobs {
            let rows = [
                ("read", j.read.total_ios, j.read.iops, j.read.bw_bytes, &j.read.lat_ns),
                ("write", j.write.total_ios, j.write.iops, j.write.bw_bytes, &j.write.lat_ns),
                ("trim", j.trim.total_ios, j.trim.iops, j.trim.bw_bytes, &j.trim.lat_ns),
                ("fsync", j.sync.total_ios, j.sync.iops, 0, &j.sync.lat_ns),
            ];
            for (dir, ios, iops, bw, c) in rows {
                if ios == 0 {
                    continue;
                }
                let _ = writeln!(
                    s,
                    "{:<16} {:<5} {:>10.0} {:>10.1} {:>9.1} {:>9} {:>9} {:>9} {:>10} {:>10}",
                    j.jobname,
                    dir,
                    iops,
                    bw as f64 / 1e6,
                    c.mean / 1000.0,
                    us(c.at(50.0)),
                    us(c.at(99.0)),
                    us(c.at(99.9)),
                    us(c.at(99.99)),
                    us(c.max),
                );
            }
        }
        if !self.flowops.is_empty() {
            let _ = writeln!(s, "\n{:<18} {:<15} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}", "flowop", "type", "ops", "ops/s", "MB/s", "mean ms", "p99 ms", "skipped");
            let ms = |ns: f64| ns / 1e6;
            for o in &self.flowops {
                let _ = writeln!(
                    s,
                    "{:<18} {:<15} {:>10} {:>10.1} {:>10.1} {:>9.3} {:>9.3} {:>9}",
                    o.name,
                    o.flowop,
                    o.ops,
                    o.ops_per_s,
                    o.mb_per_s,
                    ms(o.lat_ns.mean),
                    ms(o.lat_ns.at(99.0) as f64),
                    o.skipped
                );
            }
            let secs = self.sim.measured_sim_time_s.max(1e-9);
            let ops: u64 = self.flowops.iter().map(|o| o.ops).sum();
            let mb: f64 = self.flowops.iter().map(|o| o.mb_per_s).sum();
            let _ = writeln!(s, "IO Summary: {ops} ops {:.1} ops/s {mb:.1} MB/s", ops as f64 / secs);
        }
        if let Some(db) = &self.database {
            let _ = writeln!(
                s,
                "\n{:<18} {:>10} {:>10} {:>9} {:>9} {:>9} {:>10} {:>9}",
                db.benchmark, "ops", "ops/s", "mean ms", "p95 ms", "p99 ms", "p99.95 ms", "max ms"
            );
            let ms = |ns: f64| ns / 1e6;
            for o in &self.operations {
                if o.ops == 0 {
                    continue;
                }
                let l = &o.lat_ns;
                let _ = writeln!(
                    s,
                    "{:<18} {:>10} {:>10.1} {:>9.3} {:>9.3} {:>9.3} {:>10.3} {:>9.3}",
                    o.name,
                    o.ops,
                    o.ops_per_s,
                    ms(l.mean),
                    ms(l.at(95.0) as f64),
                    ms(l.at(99.0) as f64),
                    ms(l.at(99.95) as f64),
                    ms(l.max as f64)
                );
            }
            let e = &db.engine;
            let _ = writeln!(
                s,
                "database {:.1} ops/s{} | {} threads | buffer pool {} pages, hit ratio {:.4} | redo {} in {} fsyncs ({:.2} commits each) | pages flushed: list {} LRU {} single {} sync {} ({} stalls, {:.3}s) | doublewrite {} pages",
                db.ops_per_s,
                db.tpmc.map(|t| format!(" ({t:.0} tpmC)")).unwrap_or_default(),
                db.threads,
                db.buffer_pool_pages,
                db.buffer_pool_hit_ratio,
                fmt_bytes(e.redo_bytes as f64),
                e.log_fsyncs,
                db.commits_per_log_fsync,
                e.pages_flushed_list,
                e.pages_flushed_lru,
                e.single_page_flushes,
                e.pages_flushed_sync,
                e.sync_flush_stalls,
                e.sync_flush_s,
                e.doublewrite_pages
            );
        }
        let f = &self.ftl;
        let c = &f.counters;
        let _ = writeln!(
            s,
            "\nftl      WAF {:.3} | host {}{} NAND {} (GC copies {}, padding {}) | GC {} victims ({}{}), busy {:.3}s",
            f.waf,
            fmt_bytes((c.host_write_slots * 4096) as f64),
            if c.offload_write_slots > 0 { format!(" + offloaded migrations {}", fmt_bytes((c.offload_write_slots * 4096) as f64)) } else { String::new() },
            fmt_bytes((c.nand_write_slots() * 4096) as f64),
            fmt_bytes((c.gc_write_slots * 4096) as f64),
            fmt_bytes((c.padding_slots * 4096) as f64),
            c.gc_count,
            f.gc_policy,
            if c.gc_background_count > 0 { format!("; {} in the background", c.gc_background_count) } else { String::new() },
            f.gc_busy_s,
        );
        if let Some([(_, read), (_, program), (_, erase)]) = c.gc_stages_per_victim() {
            let _ = writeln!(
                s,
                "dev-gc   per victim {:.2} ms once a die is free: reads {read:.2}, copies programmed {program:.2}, erase {erase:.2}",
                read + program + erase,
            );
        }
        let _ = writeln!(
            s,
            "wear     erase count min {} max {} mean {:.2} | free superblocks at end {} | buffer-full waits {}",
            f.erase_count_min, f.erase_count_max, f.erase_count_mean, f.free_superblocks_end, c.buffer_full_waits
        );
        if let Some(fs) = &self.fs {
            let c = &fs.counters;
            if fs.kind == "ext4" {
                // ext4: block groups, no overprovisioning, a journal instead of GC.
                let _ = writeln!(
                    s,
                    "fs       ext4 {} (in-place, discard {}) | partition {}, {} block groups of {} | util at end {:.1}%, {} groups' worth free",
                    fs.mode,
                    fs.discard,
                    fmt_bytes(fs.partition_bytes as f64),
                    fs.main_sections,
                    fmt_bytes(fs.section_bytes as f64),
                    fs.utilization_end_pct,
                    fs.free_sections_end,
                );
                let _ = writeln!(
                    s,
                    "jbd2     {} commits ({:.3}s) | log {} | metadata written in place {}",
                    c.journal_commits,
                    c.checkpoint_time_ns as f64 / 1e9,
                    fmt_bytes((c.journal_write_blocks * 4096) as f64),
                    fmt_bytes((c.meta_inplace_blocks * 4096) as f64),
                );
            } else {
                let _ = writeln!(
                    s,
                    "fs       {} {} (ipu {}, discard {}) | partition {}, {} sections of {}, OP {:.2}% ({} ovp / {} reserved segs) | util at end {:.1}%, {} free sections",
                    fs.kind,
                    fs.mode,
                    fs.ipu_policy,
                    fs.discard,
                    fmt_bytes(fs.partition_bytes as f64),
                    fs.main_sections,
                    fmt_bytes(fs.section_bytes as f64),
                    fs.overprovision_pct,
                    fs.ovp_segments,
                    fs.reserved_segments,
                    fs.utilization_end_pct,
                    fs.free_sections_end,
                );
                let _ = writeln!(
                    s,
                    "fs-gc    FG {} (writers stalled {:.3}s), BG {} | moved {} data + {} node blocks | {} checkpoints ({:.3}s) | SSR {} IPU {} blocks",
                    c.gc_fg_count,
                    c.fg_gc_stall_ns as f64 / 1e9,
                    c.gc_bg_count,
                    c.gc_moved_data_blocks,
                    c.gc_moved_node_blocks,
                    c.checkpoints,
                    c.checkpoint_time_ns as f64 / 1e9,
                    c.ssr_blocks,
                    c.ipu_blocks,
                );
            }
            if let Some(stages) = c.gc_stages_per_section() {
                let mut stages = stages.to_vec();
                if c.offload_requests > 0 {
                    // CSGC: the offloaded segments' host preparation, wait and sync.
                    let secs = (c.gc_fg_count + c.gc_bg_count) as f64;
                    stages.push(("offload", (c.offload_prep_ns + c.offload_wait_ns + c.offload_sync_ns) as f64 / secs / 1e6));
                }
                let total: f64 = stages.iter().map(|(_, ms)| ms).sum();
                let parts: Vec<String> =
                    stages.iter().map(|(name, ms)| format!("{name} {:.0}%", 100.0 * ms / total.max(1e-12))).collect();
                let _ = writeln!(s, "fs-gc    per section {total:.2} ms: {}", parts.join(", "));
            }
            let _ = writeln!(
                s,
                "waf      FS {:.3} x FTL {:.3} = {:.3} | app {} -> FS data {} node {} meta {} | discards {} | mean read request {:.1} KiB",
                fs.fs_waf,
                self.ftl.waf,
                fs.total_waf,
                fmt_bytes((c.app_write_blocks * 4096) as f64),
                fmt_bytes((c.data_write_blocks * 4096) as f64),
                fmt_bytes((c.node_write_blocks * 4096) as f64),
                fmt_bytes((c.meta_write_blocks * 4096) as f64),
                c.discard_cmds,
                fs.mean_read_request_kib,
            );
            let l = &fs.locks;
            let p = &fs.page_cache;
            let _ = writeln!(s, "host     page cache {} hits / {} misses, {} evictions", p.hits, p.misses, p.evictions);
            let table =
                [("gc_lock", &l.gc_lock), ("cp_rwsem read", &l.cp_rwsem_read), ("cp_rwsem write", &l.cp_rwsem_write), ("curseg (warm data)", &l.curseg_warm_data)];
            if table.iter().any(|(_, u)| u.acquisitions > 0) {
                let row: Vec<String> = table.iter().map(|(n, u)| lock_cell(n, u)).collect();
                let _ = writeln!(s, "locks    {}", row.join(" | "));
            }
        }
        if let Some(g) = &self.gc {
            let on: Vec<&str> = [("svp", g.svp), ("dws", g.dws), ("lsu", g.lsu), ("cvs", g.cvs), ("dpb", g.dpb)]
                .iter()
                .filter(|x| x.1 && g.engine == "dgc")
                .map(|x| x.0)
                .collect();
            let cores = if g.host_cores == 0 { "unlimited cores".to_string() } else { format!("{} cores", g.host_cores) };
            let peak = g.cpu_utilisation_pct.iter().cloned().fold(0.0, f64::max);
            let _ = writeln!(
                s,
                "gc       engine {} x{}{} on {} | foreground GC {:.3}s, {:.2} collectors at work in rounds, {} rounds, {} victim scans, {} segments searched by SSR | CPU peak {:.1}%",
                g.engine,
                g.threads,
                if on.is_empty() { String::new() } else { format!(" ({})", on.join(" ")) },
                cores,
                g.gc_time_s,
                g.mean_active_collectors,
                g.stats.rounds,
                g.stats.victim_scans,
                g.stats.ssr_scanned_segments,
                peak,
            );
            let row: Vec<String> = g
                .locks
                .0
                .iter()
                .map(|(n, u)| lock_cell(n, u))
                .collect();
            let _ = writeln!(s, "gc locks {}", row.join(" | "));
            let st = &g.stats;
            let _ = writeln!(
                s,
                "gc meets {} writers allocated during a round: {} false-positive GC reads, {} skipped writes, {} SVP conflicts, {} stale moves",
                st.writers_in_rounds, st.false_positive_reads, st.skipped_writes, st.svp_conflicts, st.stale_moves,
            );
        }
        if let (Some(g), Some(fs)) = (&self.csgc, &self.fs) {
            let c = &fs.counters;
            let _ = writeln!(
                s,
                "csgc     offload {} (pipeline depth {}, piggyback {}, coalesce window {}, {} executor cores) | {} requests, {} blocks migrated in the device, {:.3} ms each, {:.1} B of descriptors per block | {:.1} us per block moved | host prep {:.3}s, waiting {:.3}s, sync {:.3}s",
                g.offload, g.pipeline_depth, g.piggyback, g.coalesce_window, g.executor_cores, g.device.requests, g.device.blocks_migrated,
                g.request_ms, g.pcie_bytes_per_block, g.block_migration_us, c.offload_prep_ns as f64 / 1e9, c.offload_wait_ns as f64 / 1e9,
                c.offload_sync_ns as f64 / 1e9,
            );
        }
        if let Some(fs) = self.fs.as_ref().filter(|f| f.kind == "csgc") {
            let _ = writeln!(
                s,
                "sftl     {} section resets | the device collects only its page-mapped metadata (IPU) partition; the host frees OPU sections",
                fs.counters.zone_resets
            );
        }
        if let Some(fs) = self.fs.as_ref().filter(|f| f.kind == "zf2fs") {
            let _ = writeln!(
                s,
                "zns      {} zone resets | the device collects only its page-mapped metadata area; zones are freed by resets",
                fs.counters.zone_resets
            );
        }
        if let (Some(d), Some(fs)) = (&self.d2fs, &self.fs) {
            let c = &fs.counters;
            let v = &d.device;
            let _ = writeln!(
                s,
                "d2fs     p_v {:.2} (regular {:.2}: {} + GC region {} sections) | CGC {} victims, {} records in {} upcalls ({} UPCALL completions), redirects {} read / {} discard",
                d.vop_total, d.vop_regular, d.regular_sections, d.gc_region_sections, v.cgc_victims, v.records_created,
                v.upcalls_placed, v.upcall_signals, v.read_redirects, v.discard_redirects,
            );
            let _ = writeln!(
                s,
                "upcall   handler: {} upcalls, {} records applied, {} skipped, {:.3}s busy | free-section faults {} (writers stalled {:.3}s, {} host-requested CGC) | discards at invalidation {} blocks",
                c.upcalls_handled, c.records_applied, c.records_skipped, c.upcall_handler_ns as f64 / 1e9, c.free_section_faults,
                c.fault_stall_ns as f64 / 1e9, v.host_reclaims, c.immediate_discard_blocks,
            );
            let _ = writeln!(
                s,
                "memory   FTL mapping {} = page map (metadata) {} + block map {} + record buffer (peak {} records) {}",
                fmt_bytes(d.memory.total() as f64),
                fmt_bytes(d.memory.page_map_bytes as f64),
                fmt_bytes(d.memory.block_map_bytes as f64),
                v.peak_outstanding_records,
                fmt_bytes(d.memory.record_buffer_bytes as f64),
            );
        }
        let o = &self.oracle;
        let _ = writeln!(
            s,
            "oracle   {} blocks checked, {} mismatches{} | {:.3}s simulated, {} events",
            o.blocks_checked_count,
            o.mismatches_count,
            if self.sim.invariants_checked { ", FTL invariants checked" } else { "" },
            self.sim.measured_sim_time_s,
            self.sim.events
        );
        for note in &self.simplifications {
            let _ = writeln!(s, "note     {note}");
        }
        for note in &self.ignored_input {
            let _ = writeln!(s, "ignored  {note}");
        }
        s
    }

    /// D2FS region utilisation samples as CSV (Fig. 11); None for other runs.
    pub fn regions_csv(&self) -> Option<String> {
        let d = self.d2fs.as_ref()?;
        let mut s = String::from("t_s,regular_region_pct,gc_region_pct\n");
        for r in &d.regions {
            let _ = writeln!(s, "{:.3},{:.3},{:.3}", r.t_s, r.regular_pct, r.gc_pct);
        }
        Some(s)
    }

    /// Time series as CSV (one row per bucket).
    pub fn timeseries_csv(&self) -> String {
        let mut s = String::from("t_s,read_mbps,write_mbps,iops,nand_write_mbps,gc_count\n");
        let width = if self.timeseries.len() > 1 { self.timeseries[1].t_s - self.timeseries[0].t_s } else { 1.0 };
        for b in &self.timeseries {
            let _ = writeln!(
                s,
                "{:.3},{:.3},{:.3},{:.1},{:.3},{}",
                b.t_s,
                b.read_bytes as f64 / width / 1e6,
                b.write_bytes as f64 / width / 1e6,
                b.ios as f64 / width,
                (b.nand_write_slots * 4096) as f64 / width / 1e6,
                b.gc_count
            );
        }
        s
    }
}

/// One lock of a report's lock table: wait, contended of acquired, held.
fn lock_cell(name: &str, u: &crate::host::LockStats) -> String {
    format!("{name} {:.3}s wait ({}x of {}), {:.3}s held", u.wait_ns as f64 / 1e9, u.contended, u.acquisitions, u.hold_ns as f64 / 1e9)
}
