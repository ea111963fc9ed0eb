//! The scenario TOML schema. Every field is optional and documented with its
//! default and unit; unknown fields are rejected by name. A resolved scenario
//! is the same structure with every field filled in, so printing it shows
//! every knob and saving it lets a run be repeated exactly.

use serde::{Deserialize, Serialize};

/// A size: bytes as an integer, or a string with a k/m/g/t suffix ("4k"),
/// or a percentage of the device ("100%") where the field allows it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SizeValue {
    Bytes(u64),
    Text(String),
}

/// A duration: seconds as a number, or a string with a unit ("500ms", "10s", "2m").
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum DurationValue {
    Seconds(f64),
    Text(String),
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Scenario name, used in reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Root seed of the run (default 1). `--seed` overrides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// This run's size relative to the volume it stands for (default 1;
    /// 0.0625 = a 16 GiB run of a 256 GiB experiment). F2FS derives its
    /// size-dependent tuning (f2fs_tuning_parameters) from the volume the
    /// run stands for and scales its absolute thresholds (dirty nodes,
    /// prefree segments, victim search) by this factor, and the kernel's
    /// writeback and checkpoint periods (dirty_expire, dirty_writeback,
    /// cp_interval, jbd2's commit) with them: the run's time is scaled as
    /// its volume, so a period's dirty data stays the same share of the
    /// volume. `compare --scale` multiplies it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_scale: Option<f64>,
    #[serde(default)]
    pub device: DeviceSection,
    #[serde(default)]
    pub ftl: FtlSection,
    #[serde(default)]
    pub host: HostSection,
    #[serde(default)]
    pub precondition: PreconditionSection,
    /// A filesystem on the device; absent = jobs run on the raw device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsSection>,
    #[serde(default, rename = "job", skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobSection>,
    /// A filebench personality instead of [[job]] tables: `personality` is
    /// fileserver, varmail or webserver (filebench's workloads/*.f), the
    /// other keys override its `$variables`. Needs an [fs] table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filebench: Option<crate::workload::filebench::FilebenchVars>,
    /// A database model instead of [[job]] tables: an InnoDB-like engine
    /// (MySQL 8.0 defaults) under `benchmark` = "ycsb" or "tpcc". Needs an
    /// [fs] table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<crate::workload::database::DatabaseVars>,
    /// A fio job file whose jobs run after the [[job]] tables (path relative
    /// to the scenario file). The resolved scenario inlines its jobs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fio_job_file: Option<String>,
    /// CSGC's computational SSD controller (fs.kind = "csgc" only): the
    /// executor's cores and costs (csgc.txt §3.1, §4; every cost assumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csd: Option<CsdSection>,
    #[serde(default)]
    pub limits: LimitsSection,
    #[serde(default)]
    pub output: OutputSection,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CsdSection {
    /// Controller cores running the migration executor (default 2, csgc.txt §4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executor_cores: Option<u32>,
    /// NVMe core time per command in ns (default 2000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvme_cmd_ns: Option<u64>,
    /// Executor time per migrate request in ns (default 10000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec_req_ns: Option<u64>,
    /// Executor time per valid block migrated in ns (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec_block_ns: Option<u64>,
    /// Flash-scheduling core time per submitted flash operation in ns (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flash_op_ns: Option<u64>,
    /// Coalescing scheduler window in queued transfers (default 8; 1 = no merging).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesce_window: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceSection {
    /// "970pro" (default), "femu" or "openssd-csgc".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// Exported (logical) capacity in GiB; default 8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_gib: Option<f64>,
    /// The device sized by its raw flash in GiB instead: a conventional
    /// device exports flash / (1 + op), a zoned one (fs.kind = "zf2fs") all
    /// of it, as the D2FS artifact's NVMeVirt does (239.25 and 256 GiB of
    /// 256 GiB). capacity_gib, if also given, must be what this derives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flash_gib: Option<f64>,
    /// Overprovisioning, spare / exported capacity; default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<f64>,
    /// NAND channels (1 to 65536); default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channels: Option<u32>,
    /// Flash chips on each channel; default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chips_per_channel: Option<u32>,
    /// Dies per chip; default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dies_per_chip: Option<u32>,
    /// Planes per die; default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planes_per_die: Option<u32>,
    /// Flash pages per erase block; default the preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_per_block: Option<u32>,
    /// Flash page size in KiB (multiple of 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_kib: Option<u32>,
    /// Blocks per plane (= superblocks). Derived from capacity and op if absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks_per_plane: Option<u32>,
    /// Page read tR in microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_us: Option<f64>,
    /// Page program tPROG in microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_us: Option<f64>,
    /// Block erase tBERS in microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erase_us: Option<f64>,
    /// NAND channel bandwidth in MB/s (0 = free).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_mbps: Option<u64>,
    /// Host link bandwidth in MB/s (0 = free).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcie_mbps: Option<u64>,
    /// Per-command time on the controller's command-processing core in
    /// microseconds, serialized over all commands (femu: FEMU's per-request
    /// overhead, calibrated; others 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmd_us: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FtlSection {
    /// Mapping scheme: "page" (default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<String>,
    /// GC victim policy: "greedy" (default) or "cost-benefit".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_policy: Option<String>,
    /// GC runs while fewer superblocks than this are free (default 2, as
    /// NVMeVirt's conventional FTL; the openssd-csgc preset: 5% of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_threshold_superblocks: Option<u32>,
    /// The threshold as a percentage of all superblocks instead (csgc.txt
    /// §4: "when available superblocks drops below 5%"); exclusive with
    /// gc_threshold_superblocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_threshold_pct: Option<f64>,
    /// FEMU's background GC: after each command, one victim while at most
    /// this percentage of the superblocks is free, if at least 1/8 of its
    /// slots are invalid (the femu preset: 25, FEMU's gc_thres_pcent 75;
    /// none otherwise; 0: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_background_pct: Option<f64>,
    /// Write buffer in KiB (default: two program units per die).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_buffer_kib: Option<u64>,
    /// Host log heads selected by stream id (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streams: Option<u32>,
    /// Firmware ns per pair of an address-remap command (default 100,
    /// RM-IPU §4.1: 0.1 us per mapping entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remap_entry_ns: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSection {
    /// CPU time to submit one I/O, in ns (default 2000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit_ns: Option<u64>,
    /// CPU time to reap one completion, in ns (default 2000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete_ns: Option<u64>,
    /// Page cache size in MiB for buffered file I/O (default 1024).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_cache_mib: Option<u64>,
    /// vm.dirty_background_ratio, percent of the page cache (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_background_ratio: Option<u32>,
    /// vm.dirty_ratio, percent of the page cache (default 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_ratio: Option<u32>,
    /// vm.dirty_expire in seconds (default 30 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_expire_s: Option<f64>,
    /// vm.dirty_writeback in seconds: how often the flusher's kupdate-style
    /// writeback looks for expired files (default 5 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_writeback_s: Option<f64>,
    /// How balance_dirty_pages runs (fs/dirty_balance.rs): "threshold"
    /// (default, as Linux 3.2 and later: a writer that crosses
    /// dirty_background_ratio starts the flusher and goes on; writers sleep
    /// while dirty plus under-writeback pages are above the control setpoint)
    /// or "tick" (lfslab's earlier model: the flusher looks at each daemon
    /// tick; a writer past dirty_ratio writes back itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_writeback: Option<String>,
    /// CPU cores application threads and GC workers share (default 0 =
    /// unlimited; ScaleLFS's host has 48 logical cores).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreconditionSection {
    /// Fraction of the capacity written sequentially first (0..=1, default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill: Option<f64>,
    /// Random 4 KiB overwrites of the filled range, in multiples of it (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_overwrite: Option<f64>,
    /// Raw device: fraction of the capacity at its end written once with
    /// dummy data that no job touches (d2fs.txt §2, Fig. 1: "we also fill
    /// the non-partitioned storage space with dummy data"); default 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dummy_tail: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobSection {
    /// Job name in reports (default job0, job1, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// fio rw: read, write, randread, randwrite, rw/readwrite, randrw (default randwrite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rw: Option<String>,
    /// Block size, multiple of 4 KiB (default 4k).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bs: Option<SizeValue>,
    /// Outstanding I/Os per job (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iodepth: Option<u32>,
    /// Identical clones of the job, each its own thread (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numjobs: Option<u32>,
    /// Start of the region (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<SizeValue>,
    /// Region size, bytes or "N%" of the device (default "100%").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<SizeValue>,
    /// Stop after this much simulated time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<DurationValue>,
    /// Stop after this many bytes per clone (default: size, unless runtime is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_size: Option<SizeValue>,
    /// Read percentage for rw/randrw (default 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rwmixread: Option<u32>,
    /// fio random_distribution: random, zipf:T, pareto:H, zoned:A/R:... (default random).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_distribution: Option<String>,
    /// NVMe stream id for writes (default 0; raw device only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<u8>,
    /// Files per job clone (fio nrfiles, default 1; filesystem only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nrfiles: Option<u32>,
    /// Size of each file (fio filesize; default size / nrfiles; filesystem only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filesize: Option<SizeValue>,
    /// fio direct: 1 = O_DIRECT, 0 = buffered through the page cache (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direct: Option<u32>,
    /// fio fsync: fsync after every N writes (default 0 = never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u32>,
    /// fio time_based: run for the whole runtime even after `size` is done
    /// (default true when runtime is set in TOML; fio job files default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_based: Option<bool>,
    /// fio stonewall: start after every earlier job has finished (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<bool>,
    /// fio read_iolog: replay this fio iolog (v2 or v3) or block trace (MSR
    /// Cambridge CSV, blkparse text output, UMass/SPC CSV; told apart by
    /// content); path relative to the scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_iolog: Option<String>,
    /// fio replay_time_scale: the log's timestamps in percent (default 100;
    /// 50 replays twice as fast).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_time_scale: Option<u64>,
    /// Fold the log's addresses into the device (offset modulo the device's
    /// blocks) when it spans more than the device; raw device only (default
    /// false: such a log is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_fold: Option<bool>,
    /// fio filename: jobs (and clones) naming the same file share it
    /// (filesystem only; default: each clone has its own files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// fio replay_no_stall: ignore the iolog's timing (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_no_stall: Option<bool>,
    /// fio group_reporting: one report entry for all the job's clones
    /// (default false: one per clone, as fio).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_reporting: Option<bool>,
    /// How missing file blocks are created before the job: "write" (default:
    /// written sequentially, as fio lays files out for reads or overwrite=1)
    /// or "fallocate" (reserved with fallocate(2), no data written, as fio's
    /// extend_file does for a write-only job with overwrite=0; F2FS reserves
    /// the blocks without allocating them). Filesystem only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FsSection {
    /// Filesystem: "f2fs" (default), "d2fs" (F2FS with device-driven GC:
    /// Coupled GC, migration upcalls, virtual overprovisioning), "zf2fs"
    /// (zoned F2FS on a ZNS device with 32 MiB zones = superblocks),
    /// "iplfs", "csgc" (F2FS whose GC migrates data segments inside an
    /// sFTL computational SSD; sections = superblocks, default 8 segments),
    /// "rmipu" (F2FS whose updates the device remaps in place), "scalelfs"
    /// (F2FS in LFS mode with ScaleLFS's dedicated parallel collectors) or
    /// "ext4" (in-place, jbd2 ordered journal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// CSGC: offload data-segment migration to the device (default true;
    /// false runs F2FS's own GC over the sFTL device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload: Option<bool>,
    /// CSGC: migrate requests in flight per section (default 2, the
    /// paper's two-stage pipeline; 1 = none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline_depth: Option<u32>,
    /// CSGC: piggyback the reverse index on requests (default true; false:
    /// the executor reads each dnode block from flash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piggyback: Option<bool>,
    /// CSGC: host CPU ns per migrate request prepared (default 5000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload_req_ns: Option<u64>,
    /// CSGC: host CPU ns per valid block prepared (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload_prep_ns_per_block: Option<u64>,
    /// CSGC: host CPU ns per returned index update applied (default 500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload_sync_ns_per_block: Option<u64>,
    /// D2FS: virtual overprovisioning degree of the regular region,
    /// p_regular (default 1.4, d2fs.txt §8.2); the partition is
    /// (p_regular + 1) x the device capacity, the GC region one capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vop_regular: Option<f64>,
    /// zf2fs: the ZNS device's active zone limit (default 14).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_active_zones: Option<u32>,
    /// D2FS: migration records per upcall (default 256, §5.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upcall_records: Option<u32>,
    /// D2FS: host CPU ns per migration record handled (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upcall_record_ns: Option<u64>,
    /// D2FS: checkpoint once this many sections died since the last one
    /// (default 0: once the blocks invalidated since the last one exceed
    /// rec_prefree_segments / 6 segments, as the D2FS artifact's kernel does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp_dead_sections: Option<u32>,
    /// Partition size in GiB from LBA 0 (default: the whole device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_gib: Option<f64>,
    /// Segments per section, a power of two (default 1 = 2 MiB sections).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segs_per_sec: Option<u32>,
    /// mkfs overprovision percent (default: mkfs.f2fs's best choice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overprovision_pct: Option<f64>,
    /// "adaptive" (default, SSR + IPU policy) or "lfs" (append only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// sysfs ipu_policy: "default" (the kernel's: fsync, or force +
    /// honor-opu-write on volumes of at most 16 GiB, f2fs_tuning_parameters),
    /// "none", or a comma-separated list of force, ssr, util, ssr-util,
    /// fsync, async, honor-opu-write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipu_policy: Option<String>,
    /// sysfs discard_granularity in 4 KiB blocks (default 16; 1 on volumes
    /// of at most 16 GiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discard_granularity: Option<u32>,
    /// sysfs max_victim_search (default 4096 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_victim_search: Option<u32>,
    /// sysfs reclaim_segments: checkpoint when more segments than this are
    /// prefree (default 5% of main segments, at most 4096 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reclaim_segments: Option<u32>,
    /// Checkpoint when this many node pages are dirty (kernel: 8 segments,
    /// 4096 pages; default 4096 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_nodes_pages: Option<u64>,
    /// sysfs gc_min_sleep_time in ms (default 30000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_min_sleep_time: Option<u64>,
    /// sysfs gc_max_sleep_time in ms (default 60000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_max_sleep_time: Option<u64>,
    /// sysfs gc_no_gc_sleep_time in ms (default 300000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_no_gc_sleep_time: Option<u64>,
    /// sysfs gc_idle: 0 (default: background GC by cost-benefit,
    /// foreground GC greedy), 1 (both cost-benefit), 2 (both greedy), as
    /// `select_gc_type` applies it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_idle: Option<u8>,
    /// sysfs idle_interval in s (default 5): background GC, the periodic
    /// checkpoint and the discard thread wait this long after a request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_interval: Option<f64>,
    /// sysfs min_fsync_blocks (default 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_fsync_blocks: Option<u32>,
    /// sysfs dirty_nats_ratio in percent (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dirty_nats_ratio: Option<u32>,
    /// min_ipu_util percent (default 70).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ipu_util: Option<u32>,
    /// "idle-batched" (default, stock F2FS), "immediate" or "off".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discard: Option<String>,
    /// Background GC when idle (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bg_gc: Option<bool>,
    /// sysfs cp_interval: periodic checkpoint interval in seconds (default
    /// 60 x volume_scale), taken only once the filesystem is idle
    /// (f2fs_balance_fs_bg).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp_interval_s: Option<f64>,
    /// Host CPU ns per file system call (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syscall_ns: Option<u64>,
    /// Host CPU ns per 4 KiB block handled (default 500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_block_ns: Option<u64>,
    /// Host block-layer CPU ns per command the filesystem submits, on the
    /// submitting thread (default 0; FEMU's per-request cost is device.cmd_us).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bio_ns: Option<u64>,
    /// Replaced by the four FS GC stage costs (gc_meta_ns, gc_filemap_ns,
    /// gc_page_cache_ns, gc_write_ns); setting it is an error that says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_per_block_ns: Option<u64>,
    /// FS GC host CPU ns per valid block migrated, reading metadata (NAT and
    /// node pages; default 324, measured: see GcStageCosts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_meta_ns: Option<u64>,
    /// FS GC host CPU ns per valid block, traversing the filemap (dnode
    /// lookup and address update; default 2173, measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_filemap_ns: Option<u64>,
    /// FS GC host CPU ns per valid block, allocating its page-cache page
    /// (default 3301, measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_page_cache_ns: Option<u64>,
    /// FS GC host CPU ns per valid block, dispatching its write (default
    /// 598, measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_write_ns: Option<u64>,
    /// Host CPU ns per block allocated under a log's curseg mutex (default 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alloc_ns: Option<u64>,
    /// ext4: jbd2 commit interval in seconds (mount option commit=, default
    /// 5 x volume_scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_interval_s: Option<f64>,
    /// ext4: journal size in MiB (default: mke2fs's for the volume the run
    /// stands for, 1 GiB at 256 GiB; a scaled run keeps its ratio).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal_mib: Option<u64>,
    /// Foreground GC engine: "serial" (F2FS, default), "multi" (F2FS-M /
    /// F2FS-LM: several GC threads serialised on gc_lock), "pgc" (P-GC:
    /// a mostly valid victim split among threads) or "dgc" (ScaleLFS's
    /// dedicated collectors; the default of fs.kind = "scalelfs").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_engine: Option<String>,
    /// GC threads (DGCs, F2FS-M's threads, P-GC's split); default 1, 32 for scalelfs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_threads: Option<u32>,
    /// ScaleLFS M, victims a DGC claims per scan (default 0 = 0.1% of the segments).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_victims_per_scan: Option<u32>,
    /// ScaleLFS SVP (§4.6): page-level victim protection instead of the
    /// file-level i_gc_rwsem (default true; all five false = SPGC, Table 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svp: Option<bool>,
    /// ScaleLFS DWS (§4.4.2): a write stream per collector, no shared curseg_mutex (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dws: Option<bool>,
    /// ScaleLFS LSU (§4.5.2): atomic SIT updates instead of sentry_lock (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lsu: Option<bool>,
    /// ScaleLFS CVS (§4.5.1): lock-free concurrent victim selection, M per scan (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cvs: Option<bool>,
    /// ScaleLFS DPB (§4.4.1): GC reads into a private buffer, not the page cache (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpb: Option<bool>,
    /// P-GC splits a victim more valid than this percent (default 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pgc_split_pct: Option<u32>,
    /// Blocks a GC worker moves per step (default 16).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_batch_blocks: Option<u32>,
    /// Assumed: ns per block placed in the dedicated page buffer (default 500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpb_ns: Option<u64>,
    /// Assumed: ns per dirty segment a foreground victim scan visits
    /// (default 0 = not charged; the round2 spec assumes 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub victim_scan_ns_per_segment: Option<u64>,
    /// Assumed: ns per SIT update under sentry_lock, two per moved block (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentry_hold_ns: Option<u64>,
    /// Assumed: ns per atomic update (LSU, CVS's test-and-set) (default 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic_ns: Option<u64>,
    /// Assumed: ns per SVP page reservation or release (default 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svp_op_ns: Option<u64>,
    /// Assumed: ns a thread that slept on a lock takes to wake (default 5000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock_wake_ns: Option<u64>,
    /// How often the simulated background threads (flusher, GC thread,
    /// discard thread, checkpoint balance) look at the clock, in ms (default
    /// 1000 x volume_scale, at most 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon_interval_ms: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// Cap on simulated time, seconds (default 86400).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_sim_time_s: Option<f64>,
    /// Cap on scheduler events (default 1e10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Width of throughput time-series buckets in ms (default 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries_interval_ms: Option<f64>,
    /// Run the full mapping consistency check at the end (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_invariants: Option<bool>,
}
