//! Filesystem configuration: F2FS mount/mkfs options the papers vary.

use serde::Serialize;

/// F2FS `mode=` mount option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FsMode {
    /// Append-only logging: no SSR, no IPU.
    Lfs,
    /// Threaded logging (SSR) when free space is short, plus the IPU policy.
    Adaptive,
}

/// F2FS `ipu_policy` bits that matter here (Documentation/filesystems/f2fs.rst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IpuPolicy {
    None,
    /// F2FS_IPU_FORCE: every overwrite in place.
    Force,
    /// F2FS_IPU_SSR: in place while SSR is needed.
    Ssr,
    /// F2FS_IPU_UTIL: in place while utilisation exceeds min_ipu_util.
    Util,
    /// F2FS_IPU_SSR_UTIL: both conditions.
    SsrUtil,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiscardPolicy {
    /// No discard commands.
    Off,
    /// Stock F2FS: sections freed at checkpoint are queued and discarded in
    /// batches by the discard thread when the device is idle.
    IdleBatched,
    /// Discard as soon as a checkpoint frees a section (D2FS §6.3).
    Immediate,
}

/// Per-operation host CPU costs. Assumed values of the order a kernel path
/// takes on a server CPU; they are knobs, not measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FsCosts {
    /// Entering and leaving a file system call.
    pub syscall_ns: u64,
    /// Per 4 KiB block handled (copy, page lookup, block allocation).
    pub per_block_ns: u64,
    /// Per GC block migrated (page-cache allocation and filemap walk, which
    /// D2FS §8.5 finds dominate FS GC time).
    pub gc_per_block_ns: u64,
    /// Per block allocated while holding a log's curseg mutex.
    pub alloc_ns: u64,
}

impl Default for FsCosts {
    fn default() -> Self {
        FsCosts { syscall_ns: 1_000, per_block_ns: 500, gc_per_block_ns: 5_000, alloc_ns: 100 }
    }
}

/// D2FS (d2fs.txt §6): the filesystem partition is p_v x the device's
/// capacity; its top `gc_region_blocks` (= the capacity) are the GC region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct D2fsConfig {
    pub gc_region_blocks: u64,
    /// Blocks users may fill (ENOSPC): what the device can hold, not the
    /// virtual partition.
    pub user_blocks: u64,
    /// Host CPU per migration record: filemap (node or NAT), SIT and SSA
    /// updates (assumed, like the other costs).
    pub upcall_record_ns: u64,
    /// Checkpoint once this many sections died since the last one (F2FS's
    /// prefree trigger, which §5.3 cites); 0 = 5% of the regular sections.
    pub cp_dead_sections: u32,
    /// Records the handler processes per wakeup before yielding (0 = all);
    /// tests use small values to crash in the middle of an upcall.
    pub upcall_batch: usize,
}

impl D2fsConfig {
    /// (regular-region blocks, GC-region blocks) for a device of
    /// `device_blocks` with `sb_blocks`-block superblocks at degree
    /// `vop_regular` (d2fs.txt §6.3: GC region = capacity, regular =
    /// (p_v - 1) x capacity), both whole sections.
    pub fn partition(device_blocks: u64, sb_blocks: u64, vop_regular: f64) -> (u64, u64) {
        let regular = ((vop_regular * device_blocks as f64) as u64 / sb_blocks) * sb_blocks;
        (regular, (device_blocks / sb_blocks) * sb_blocks)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsConfig {
    pub segs_per_sec: u32,
    /// mkfs overprovision ratio in percent; None lets mkfs choose.
    pub overprovision_pct: Option<f64>,
    pub mode: FsMode,
    pub ipu_policy: IpuPolicy,
    /// min_ipu_util (percent) for the Util policies; F2FS default 70.
    pub min_ipu_util: u32,
    pub discard: DiscardPolicy,
    /// Background GC (cost-benefit) while the filesystem is idle.
    pub bg_gc: bool,
    /// Periodic checkpoint interval in seconds (F2FS cp_interval, default 60).
    pub cp_interval_s: f64,
    /// Checkpoint when dirty NAT entries exceed this percent of the nids in
    /// use (F2FS dirty_nats_ratio, default 10).
    pub dirty_nats_ratio: u32,
    pub costs: FsCosts,
    /// Page cache size in 4 KiB pages (buffered I/O).
    pub page_cache_pages: usize,
    /// Background writeback starts above this percent of the cache dirty
    /// (vm.dirty_background_ratio, default 10).
    pub dirty_background_pct: u32,
    /// Writers write back synchronously above this percent dirty
    /// (vm.dirty_ratio, default 20).
    pub dirty_pct: u32,
    /// Dirty pages older than this are written back (vm.dirty_expire_centisecs, 30 s).
    pub dirty_expire_s: f64,
    /// Keep the checkpoint image and node log needed to check crash
    /// recovery (`F2fs::crash_check`); costs memory, off by default.
    pub track_recovery: bool,
    /// D2FS mode: no FS GC, Coupled GC in the device, migration upcalls.
    pub d2fs: Option<D2fsConfig>,
    /// Zoned F2FS (a ZNS device): sections are zones, LFS only, and a section
    /// freed by a checkpoint is reset instead of discarded (F2FS
    /// `f2fs_clear_prefree_segments` -> `__f2fs_issue_discard_zone`).
    pub zoned: bool,
    /// IPLFS mode: the partition is `Layout::iplfs`, sized for a device of
    /// this many blocks; no FS GC; discards at checkpoint.
    pub iplfs_device_blocks: Option<u64>,
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            segs_per_sec: 1,
            overprovision_pct: None,
            mode: FsMode::Adaptive,
            ipu_policy: IpuPolicy::None,
            min_ipu_util: 70,
            discard: DiscardPolicy::IdleBatched,
            bg_gc: true,
            cp_interval_s: 60.0,
            dirty_nats_ratio: 10,
            costs: FsCosts::default(),
            page_cache_pages: 256 << 8,
            dirty_background_pct: 10,
            dirty_pct: 20,
            dirty_expire_s: 30.0,
            track_recovery: false,
            d2fs: None,
            zoned: false,
            iplfs_device_blocks: None,
        }
    }
}
