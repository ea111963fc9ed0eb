//! F2FS on a block device: files as node trees, six logs, SIT/NAT/SSA,
//! checkpoint, foreground and background GC, SSR and IPU, discard.
//!
//! Time model: a call runs at its start instant and returns when it
//! completes for the caller; device I/O and locks are reservations (see
//! `host::SimMutex`), so a writer that runs into foreground GC waits behind
//! the GC lock exactly as long as the collection takes.
//!
//! Directories, orphans, rename and fallocate are in `namespace.rs` and
//! `dir.rs`; the VFS trait in `vfs.rs`.
//!
//! Simplified, and said so in reports: node pages are always cached in
//! memory (GC reads data blocks and SSA blocks from the device, not node
//! blocks); lookups and stat are dcache hits; files are whole 4 KiB blocks,
//! so inline data (files under 3,488 bytes) never arises.

use super::config::{DiscardPolicy, FsConfig, FsMode, IpuPolicy};
use super::layout::{Layout, LayoutError, BLOCKS_PER_SEG};
use super::node::{DnodeSlot, Nid, NodeKind, NodeManager, MAX_FILE_BLOCKS, NULL_ADDR};
use super::segment::{CpDiscards, LogType, NoSpace, SegmentManager};
use super::ssa::SsaEntry;
use super::flusher::{Chunk, FlushTarget, Flusher};
use dirty_blocks::DirtyBlocks;
use crate::host::{LockStats, PageCache, SimMutex, SimRwLock};
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::oracle::{DataTag, Fingerprint, OracleStats};
use crate::sim::{mix64, SimDuration, SimTime};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

mod background;
mod csgc;
mod d2fs;
mod dir;
mod dirty_blocks;
mod gc_workers;
mod move_log;
mod iplfs;
mod mount;
mod namespace;
mod rmipu;
mod vfs;
use dir::Dir;
pub use background::{default_reclaim_segments, MAX_RECLAIM_PREFREE_SEGMENTS};
pub use csgc::CsgcConfig;
pub use d2fs::RegionSample;
pub use gc_workers::ParallelGcStats;
pub use mount::MountReport;

/// How a data page reaches the device, for the in-place-update decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WriteKind {
    /// O_DIRECT (`f2fs_map_blocks` with F2FS_GET_BLOCK_DIO).
    Direct,
    /// Asynchronous writeback of cached pages.
    Writeback,
    /// Writeback under fsync with FI_NEED_IPU set.
    FsyncIpu,
}

/// A file (inode number).
pub type Ino = Nid;

/// NAT journal entries kept in the checkpoint (NAT_JOURNAL_ENTRIES).
const NAT_JOURNAL_ENTRIES: usize = 38;
/// SIT journal entries kept in the checkpoint (SIT_JOURNAL_ENTRIES).
const SIT_JOURNAL_ENTRIES: usize = 6;
/// Checkpoint pack blocks written per checkpoint: header, compacted data
/// summaries (up to 3) and footer.
const CP_PACK_BLOCKS: u64 = 5;

#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct FsStats {
    pub app_write_blocks: u64,
    pub app_read_blocks: u64,
    /// Data blocks the FS wrote (application data + GC-moved data + dentries).
    pub data_write_blocks: u64,
    pub node_write_blocks: u64,
    /// Checkpoint pack, NAT, SIT and SSA blocks.
    pub meta_write_blocks: u64,
    pub ipu_blocks: u64,
    pub ssr_blocks: u64,
    pub gc_fg_count: u64,
    pub gc_bg_count: u64,
    pub gc_moved_data_blocks: u64,
    pub gc_moved_node_blocks: u64,
    pub gc_time_ns: u64,
    /// FS GC time by stage (D2FS Fig. 16): reading metadata (SSA blocks and
    /// the per-block NAT/node lookups), reading uncached valid blocks,
    /// allocating page-cache pages, traversing the filemap, writing (dispatch
    /// and the device until durable) and the checkpoints GC takes.
    pub gc_stage_meta_ns: u64,
    pub gc_stage_read_ns: u64,
    pub gc_stage_page_cache_ns: u64,
    pub gc_stage_filemap_ns: u64,
    pub gc_stage_write_ns: u64,
    pub gc_stage_checkpoint_ns: u64,
    /// Time writers spent blocked in foreground GC (balance_fs).
    pub fg_gc_stall_ns: u64,
    pub checkpoints: u64,
    pub checkpoint_time_ns: u64,
    pub discard_cmds: u64,
    pub discard_blocks: u64,
    /// Read commands issued for application reads, and their blocks (RM-IPU
    /// §2: fragmentation turns a sequential read into many small requests).
    pub app_read_cmds: u64,
    pub app_read_cmd_blocks: u64,
    /// All read commands, GC and metadata included.
    pub read_cmds: u64,
    pub write_cmds: u64,
    /// Allocations that found no free section (should stay 0: GC prevents it).
    pub out_of_space: u64,
    /// Foreground GC rounds that found no section with a free block.
    pub gc_futile: u64,
    /// D2FS: migration upcalls handled, records applied and skipped (old LBA
    /// already invalid), handler busy time, free-section faults and the time
    /// writers stalled in them, discards sent at invalidation.
    pub upcalls_handled: u64,
    pub records_applied: u64,
    pub records_skipped: u64,
    pub upcall_handler_ns: u64,
    pub free_section_faults: u64,
    pub fault_stall_ns: u64,
    /// D2FS: writers that found fewer free regular sections than 10% of the
    /// region and checkpointed synchronously (the artifact's
    /// VOLFS_WRITE_STALL), and the time that took.
    pub write_stalls: u64,
    pub write_stall_ns: u64,
    pub immediate_discard_blocks: u64,
    /// Zoned F2FS: zones reset (sections freed by checkpoints).
    pub zone_resets: u64,
    /// IPLFS: discard commands logged in checkpoint packs (redone after a crash).
    pub discard_log_entries: u64,
    /// CSGC: migrate requests offloaded, and the offloader's host time
    /// preparing them, waiting for completions and applying their updates.
    pub offload_requests: u64,
    pub offload_prep_ns: u64,
    pub offload_wait_ns: u64,
    pub offload_sync_ns: u64,
    /// RM-IPU: address-remap commands sent, and the blocks they remapped.
    pub remap_cmds: u64,
    pub remap_blocks: u64,
    /// ext4: jbd2 commits, the log blocks they (and tail updates) wrote,
    /// and metadata blocks written in place (checkpoint and writeback).
    /// All three are in meta_write_blocks too.
    pub journal_commits: u64,
    pub journal_write_blocks: u64,
    pub meta_inplace_blocks: u64,
}


macro_rules! fs_stats_since {
    ($a:expr, $b:expr, $($f:ident),*) => { FsStats { $($f: $a.$f - $b.$f),* } };
}

impl FsStats {
    /// Counters accumulated since `earlier` (for measured phases).
    pub fn since(&self, earlier: &FsStats) -> FsStats {
        fs_stats_since!(self, earlier, app_write_blocks, app_read_blocks, data_write_blocks, node_write_blocks,
            meta_write_blocks, ipu_blocks, ssr_blocks, gc_fg_count, gc_bg_count, gc_moved_data_blocks,
            gc_moved_node_blocks, gc_time_ns, gc_stage_meta_ns, gc_stage_read_ns, gc_stage_page_cache_ns,
            gc_stage_filemap_ns, gc_stage_write_ns, gc_stage_checkpoint_ns, fg_gc_stall_ns, checkpoints, checkpoint_time_ns, discard_cmds,
            discard_blocks, app_read_cmds, app_read_cmd_blocks, read_cmds, write_cmds, out_of_space, gc_futile,
            upcalls_handled, records_applied, records_skipped, upcall_handler_ns, free_section_faults, fault_stall_ns,
            write_stalls, write_stall_ns, immediate_discard_blocks, zone_resets, discard_log_entries,
            offload_requests, offload_prep_ns, offload_wait_ns, offload_sync_ns, remap_cmds, remap_blocks,
            journal_commits, journal_write_blocks, meta_inplace_blocks)
    }

    /// FS GC time per section collected, by stage (name, ms), as D2FS
    /// Fig. 16 breaks it down; None when FS GC collected nothing.
    pub fn gc_stages_per_section(&self) -> Option<[(&'static str, f64); 6]> {
        let secs = self.gc_fg_count + self.gc_bg_count;
        if secs == 0 {
            return None;
        }
        let ms = |ns: u64| ns as f64 / secs as f64 / 1e6;
        Some([
            ("meta", ms(self.gc_stage_meta_ns)),
            ("read", ms(self.gc_stage_read_ns)),
            ("page cache", ms(self.gc_stage_page_cache_ns)),
            ("filemap", ms(self.gc_stage_filemap_ns)),
            ("write", ms(self.gc_stage_write_ns)),
            ("checkpoint", ms(self.gc_stage_checkpoint_ns)),
        ])
    }

    /// FS write amplification: blocks the FS wrote / blocks applications wrote.
    pub fn waf(&self) -> f64 {
        if self.app_write_blocks == 0 {
            0.0
        } else {
            (self.data_write_blocks + self.node_write_blocks + self.meta_write_blocks) as f64
                / self.app_write_blocks as f64
        }
    }
    pub fn mean_read_request_kib(&self) -> f64 {
        if self.app_read_cmds == 0 {
            0.0
        } else {
            self.app_read_cmd_blocks as f64 * 4.0 / self.app_read_cmds as f64
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct FileState {
    size_blocks: u64,
    /// Size as of the last fsync/fdatasync (fdatasync may skip the inode if unchanged).
    synced_size: u64,
    /// Oracle: expected fingerprint per block (0 = hole).
    expected: Vec<u32>,
    /// Content last committed to a block address (what a crash can recover);
    /// kept only while crash recovery is tracked (`track_recovery`).
    committed: Vec<u32>,
    created_since_cp: bool,
    /// The directory holding the file (`i_pino`).
    parent: Ino,
    /// Renamed since the last checkpoint (`file_lost_pino`).
    pino_lost: bool,
    /// Entries of a directory; None for a regular file.
    dir: Option<Box<Dir>>,
    /// Open file descriptions; a file unlinked while open lives until the last close.
    opens: u32,
    /// Unlinked while open: an orphan inode until its last close.
    orphan: bool,
}

/// The files a checkpoint must clear `created_since_cp` and `pino_lost`
/// of: those created or renamed since the last one, so a checkpoint does
/// not visit every file (varmail's foreground GC checkpoints often among
/// hundreds of thousands). Not saved with an aged state: until the first
/// checkpoint after a load (`complete` false) every file is visited.
#[derive(Clone, Debug, Default)]
struct FlaggedFiles {
    inos: Vec<Ino>,
    complete: bool,
}

impl FileState {
    fn new(parent: Ino, dir: Option<Box<Dir>>) -> Self {
        FileState {
            size_blocks: 0,
            synced_size: 0,
            expected: Vec::new(),
            committed: Vec::new(),
            created_since_cp: true,
            parent,
            pino_lost: false,
            dir,
            opens: 0,
            orphan: false,
        }
    }
}

/// `expected` of a block fallocate reserved and nobody wrote (F2FS NEW_ADDR):
/// it reads as zeros. Fingerprints have the top bit clear, so this is none.
const UNWRITTEN: u32 = 0x8000_0000;
/// Orphan inode entries per checkpoint orphan block (`F2FS_ORPHANS_PER_BLOCK`).
const ORPHANS_PER_BLOCK: u64 = 1020;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FsError {
    NoSuchFile(Ino),
    TooLarge { ino: Ino, blocks: u64 },
    NoSpace,
    OutOfNodeIds,
    Unsupported(&'static str),
    /// A name that is already taken (EEXIST).
    Exists(String),
    /// No such name in the directory (ENOENT).
    NotFound(String),
    NotDir(Ino),
    IsDir(Ino),
    /// rmdir/rename over a directory that still has entries (ENOTEMPTY).
    NotEmpty(Ino),
    /// Empty, longer than 255 bytes, or containing '/' or NUL.
    BadName(String),
    /// The directory's hash table is at its deepest level (ENOSPC).
    DirFull(Ino),
}

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FsError::NoSuchFile(i) => write!(f, "no file with inode {i}"),
            FsError::TooLarge { ino, blocks } => write!(f, "inode {ino}: {blocks} blocks exceed the F2FS maximum file size"),
            FsError::NoSpace => write!(f, "no space left on the filesystem"),
            FsError::OutOfNodeIds => write!(f, "out of node ids"),
            FsError::Unsupported(what) => write!(f, "{what} is not supported"),
            FsError::Exists(n) => write!(f, "'{n}' already exists"),
            FsError::NotFound(n) => write!(f, "no entry named '{n}'"),
            FsError::NotDir(i) => write!(f, "inode {i} is not a directory"),
            FsError::IsDir(i) => write!(f, "inode {i} is a directory"),
            FsError::NotEmpty(i) => write!(f, "directory {i} is not empty"),
            FsError::BadName(n) => write!(f, "'{n}' is not a valid file name (1 to 255 bytes, no '/' or NUL)"),
            FsError::DirFull(i) => write!(f, "directory {i} has no room left in its hash table"),
        }
    }
}
impl std::error::Error for FsError {}

impl From<NoSpace> for FsError {
    fn from(_: NoSpace) -> Self {
        FsError::NoSpace
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FsLockStats {
    pub gc_lock: LockStats,
    pub cp_rwsem_read: LockStats,
    pub cp_rwsem_write: LockStats,
    /// The warm data log's curseg mutex (where application data is allocated).
    pub curseg_warm_data: LockStats,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct F2fs<D: BlockDevice> {
    pub dev: D,
    cfg: FsConfig,
    layout: Layout,
    sm: SegmentManager,
    nm: NodeManager,
    files: BTreeMap<Ino, FileState>,
    root: Ino,
    /// Dentry blocks (directory, block index) changed since written; the
    /// checkpoint writes them (`f2fs_sync_dirty_inodes(DIR_INODE)`).
    dirty_dentries: BTreeSet<(Ino, u64)>,
    /// Orphan inodes (unlinked, still open): orphan blocks in the CP pack.
    orphans: u64,
    /// SSA in memory: per main block, its owner (`ssa::SsaEntry`).
    owner: super::ssa::SsaTable,
    stats: FsStats,
    oracle: OracleStats,
    gc_lock: SimMutex,
    /// The last foreground GC round, [took gc_lock, released it).
    pub(super) fg_round: (SimTime, SimTime),
    cp_rwsem: SimRwLock,
    /// Per-log `curseg_mutex`, held while blocks are allocated; booked in
    /// gaps (a call runs whole at its start, so a later call's hold may be
    /// booked before an earlier one's).
    curseg_lock: [crate::host::TimedLock; 6],
    last_cp: SimTime,
    /// Last application request (F2FS `last_time[REQ_TIME]`).
    last_req: SimTime,
    /// When the last I/O the filesystem submitted completes (`is_inflight_io`).
    io_busy_until: SimTime,
    /// Background GC thread: its sleep and next wakeup (`gc_thread_func`).
    gc_wait_ms: u64,
    gc_wake_at: SimTime,
    /// When the discard thread last ran.
    discard_ran: SimTime,
    cp_version: u64,
    pending_discards: super::discard_queue::DiscardQueue,
    /// Files whose per-checkpoint flags were set since the checkpoint.
    #[serde(skip)]
    flagged: FlaggedFiles,
    scratch_read: Vec<Option<Fingerprint>>,
    cache: PageCache,
    /// The flusher thread's work and next step (`fs::flusher`).
    pub(super) flush: Flusher,
    /// File blocks in use (written and not truncated), for ENOSPC.
    used_blocks: u64,
    recovery: Option<super::recovery::RecoveryLog>,
    /// What the device holds for a remount (kept with `recovery`).
    mount_image: Option<Box<mount::MountImage>>,
    /// D2FS mode state (GC region, upcall handler, discards).
    d2fs: Option<d2fs::D2fsState>,
    /// IPLFS: blocks the host invalidated since the last checkpoint.
    iplfs_pending: u64,
    /// The runs (start, blocks) a checkpoint turns into discards, in
    /// address order and merged across segments; kept empty between.
    #[serde(skip)]
    cp_discard_runs: Vec<(u64, u32)>,
    /// Host cores and the parallel GC engines' locks (gc_workers.rs).
    gc: gc_workers::GcWorkers,
}

fn meta_fp(kind: u64, blk: u64, version: u64) -> Fingerprint {
    DataTag(mix64(kind ^ mix64(blk ^ mix64(version)))).block(0)
}

/// What `commit_pages` returns: when the writer had placed the pages and
/// handed their bios to the block layer, and when the device completed them.
struct Committed {
    /// The end of the `f2fs_lock_op` hold: f2fs_do_write_data_page unlocks
    /// once the block is allocated and the page queued for submission; the
    /// I/O completes outside cp_rwsem, so a checkpoint does not wait for it.
    submitted: SimTime,
    done: SimTime,
}

impl<D: BlockDevice> F2fs<D> {
    /// mkfs + mount on `dev` using its whole capacity.
    pub fn format(dev: D, cfg: FsConfig) -> Result<Self, LayoutError> {
        let mut layout = cfg.mkfs(dev.capacity_blocks())?;
        if cfg.iplfs_device_blocks.is_some() && (cfg.mode != FsMode::Lfs || cfg.bg_gc || cfg.segs_per_sec != 1) {
            return Err(LayoutError("iplfs appends only (fs.mode = lfs), has no GC and one segment per section".into()));
        }
        if cfg.zoned && (cfg.mode != FsMode::Lfs || cfg.discard != DiscardPolicy::Immediate) {
            return Err(LayoutError("zoned F2FS needs fs.mode = lfs (zones are written sequentially) and resets at checkpoint".into()));
        }
        let mut d2fs_state = None;
        if let Some(d) = &cfg.d2fs {
            let per_sec = layout.blocks_per_sec();
            let gc_secs = d.gc_region_blocks / per_sec;
            let needed = 3 * super::layout::NR_CURSEG_TYPE + 2;
            if gc_secs == 0 || gc_secs + needed as u64 > layout.main_sections as u64 {
                return Err(LayoutError(format!(
                    "d2fs: a GC region of {gc_secs} sections leaves fewer than {needed} of the {} main sections \
                     for the regular region; raise fs.vop_regular",
                    layout.main_sections
                )));
            }
            let first = layout.main_sections - gc_secs as u32;
            if layout.main_blkaddr + first as u64 * per_sec + gc_secs * per_sec != layout.blocks {
                return Err(LayoutError(format!(
                    "d2fs: the partition ({} blocks) must end exactly at the GC region (sections of {per_sec} blocks)",
                    layout.blocks
                )));
            }
            layout.user_blocks = layout.user_blocks.min(d.user_blocks);
            d2fs_state = Some(d2fs::D2fsState::new(first));
        }
        // The SSA entry's packing bounds the nids (ssa.rs).
        let mut nm = NodeManager::new(layout.max_nid.min(super::ssa::MAX_NID));
        let root = nm.new_inode().expect("fresh node manager has nids");
        let mut sm = SegmentManager::new(&layout);
        let e = &cfg.gc_engine;
        if e.kind == super::config::GcEngineKind::Dgc && e.dws {
            sm.set_gc_streams(e.threads as usize);
        }
        let mut fs = Self::assemble(dev, cfg, layout, sm, nm, root, d2fs_state);
        fs.files.insert(root, FileState::new(root, Some(Box::new(Dir::new()))));
        fs.sm.set_max_victim_search(fs.cfg.tuning.max_victim_search.max(1));
        if let Some(d) = &fs.d2fs {
            fs.sm.reserve_device_region(d.gc_first_sec);
        }
        if fs.cfg.iplfs_device_blocks.is_some() {
            // Log i appends in area i + 1 (iplfs.txt: top 3 LBA bits).
            fs.sm.set_log_areas(((1u64 << 29) / fs.layout.blocks_per_sec()) as u32);
        } else {
            fs.sm.place_logs_as_mkfs(fs.cfg.zoned);
        }
        fs.checkpoint(SimTime::ZERO);
        fs.stats = FsStats::default();
        Ok(fs)
    }

    /// The in-memory filesystem around a segment manager and node tree, as
    /// mkfs (`format`) and a mount after a crash (`mount.rs`) build them;
    /// every volatile part (page cache, locks, daemons) starts afresh.
    fn assemble(dev: D, cfg: FsConfig, layout: Layout, mut sm: SegmentManager, nm: NodeManager, root: Ino, d2fs: Option<d2fs::D2fsState>) -> Self {
        if d2fs.is_some() {
            sm.track_undiscarded();
        }
        let main_blocks = layout.main_segments as usize * BLOCKS_PER_SEG as usize;
        // A layout without an SSA area (IPLFS's: it never cleans) keeps no table.
        let owner = if layout.ssa_segments == 0 { super::ssa::SsaTable::none() } else { super::ssa::SsaTable::new(main_blocks) };
        let gc_min = cfg.tuning.gc_min_sleep_ms;
        F2fs {
            sm,
            nm,
            layout,
            dev,
            files: BTreeMap::new(),
            root,
            dirty_dentries: BTreeSet::new(),
            orphans: 0,
            owner,
            stats: FsStats::default(),
            oracle: OracleStats::default(),
            gc_lock: SimMutex::default(),
            fg_round: (SimTime::ZERO, SimTime::ZERO),
            cp_rwsem: SimRwLock::default(),
            curseg_lock: Default::default(),
            last_cp: SimTime::ZERO,
            last_req: SimTime::ZERO,
            io_busy_until: SimTime::ZERO,
            gc_wait_ms: gc_min,
            gc_wake_at: SimTime::ZERO + SimDuration::from_ms(gc_min),
            discard_ran: SimTime::ZERO,
            cp_version: 0,
            pending_discards: Default::default(),
            flagged: FlaggedFiles::default(),
            scratch_read: Vec::new(),
            cp_discard_runs: Vec::new(),
            cache: PageCache::new(cfg.page_cache_pages),
            flush: Default::default(),
            used_blocks: 0,
            recovery: cfg.track_recovery.then(super::recovery::RecoveryLog::default),
            mount_image: None,
            d2fs,
            iplfs_pending: 0,
            gc: gc_workers::GcWorkers::new(cfg.host_cores, cfg.gc_engine.kind),
            cfg,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn config(&self) -> &FsConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &FsStats {
        &self.stats
    }
    pub fn oracle(&self) -> &OracleStats {
        &self.oracle
    }
    pub fn lock_stats(&self) -> FsLockStats {
        FsLockStats {
            gc_lock: self.gc_lock.stats.clone(),
            cp_rwsem_read: self.cp_rwsem.read_stats.clone(),
            cp_rwsem_write: self.cp_rwsem.write_stats.clone(),
            curseg_warm_data: self.curseg_lock[LogType::WarmData.index()].stats.clone(),
        }
    }
    pub fn free_sections(&self) -> u32 {
        self.sm.free_sections()
    }
    /// Valid blocks / user blocks, in percent.
    pub fn utilization_pct(&self) -> f64 {
        self.sm.valid_blocks_total() as f64 * 100.0 / self.layout.user_blocks as f64
    }
    pub fn file_size_blocks(&self, ino: Ino) -> Option<u64> {
        self.files.get(&ino).map(|f| f.size_blocks)
    }
    pub fn files(&self) -> impl Iterator<Item = Ino> + '_ {
        self.files.keys().copied()
    }

    fn main_index(&self, blk: u64) -> usize {
        (blk - self.layout.main_blkaddr) as usize
    }

    fn cpu(&self, blocks: u64) -> SimDuration {
        SimDuration(self.cfg.costs.syscall_ns + self.cfg.costs.per_block_ns * blocks)
    }

    // ---- space policy -----------------------------------------------------

    fn node_secs(&self) -> u32 {
        (self.nm.dirty_count() as u64).div_ceil(self.layout.blocks_per_sec()) as u32
    }

    /// Sections the dirty dentry pages need (`get_blocktype_secs(F2FS_DIRTY_DENTS)`).
    fn dent_secs(&self) -> u32 {
        (self.dirty_dentries.len() as u64).div_ceil(self.layout.blocks_per_sec()) as u32
    }

    /// F2FS `has_not_enough_free_secs(sbi, 0, 0)`.
    pub(super) fn not_enough_free_secs(&self) -> bool {
        self.not_enough_free_secs_freed(0)
    }

    /// `has_not_enough_free_secs(sbi, freed, 0)` (`DirtyBlocks::short_of`).
    /// lfslab dirties an inode's node page where the kernel first lists the
    /// inode as F2FS_DIRTY_IMETA, so a dirty inode counts once, as a node.
    pub(super) fn not_enough_free_secs_freed(&self, freed: u32) -> bool {
        let need = DirtyBlocks { nodes: self.nm.dirty_count() as u64, dents: self.dirty_dentries.len() as u64 };
        let free = (self.sm.free_sections() + freed) as u64;
        need.short_of(free, self.layout.reserved_sections() as u64, self.layout.blocks_per_sec(), |n, d| {
            self.curseg_has_room(n, d)
        })
    }

    /// `has_curseg_enough_space` (Linux 6.0: by segments; later kernels
    /// count whole sections).
    fn curseg_has_room(&self, node_blocks: u64, dent_blocks: u64) -> bool {
        let left = |log| self.sm.curseg_left_blocks(log) as u64;
        [LogType::HotNode, LogType::WarmNode, LogType::ColdNode].into_iter().all(|l| node_blocks <= left(l))
            && dent_blocks <= left(LogType::HotData)
    }

    /// F2FS `f2fs_need_SSR` (min_ssr_sections = reserved sections).
    fn need_ssr(&self) -> bool {
        self.cfg.mode == FsMode::Adaptive
            && self.sm.free_sections() <= self.node_secs() + 2 * self.dent_secs() + 2 * self.layout.reserved_sections()
    }

    /// Whether an overwrite of an existing block goes in place
    /// (`f2fs_should_update_outplace`, then `check_inplace_update_policy`).
    fn should_ipu(&self, kind: WriteKind) -> bool {
        // f2fs_should_update_outplace: LFS mode never rewrites in place.
        if self.cfg.mode == FsMode::Lfs {
            return false;
        }
        // f2fs_map_blocks: an O_DIRECT write allocates only for holes (or in
        // LFS mode); an existing block is written where it is.
        if kind == WriteKind::Direct {
            return true;
        }
        let p = self.cfg.ipu_policy;
        let util = self.utilization_pct() > self.cfg.min_ipu_util as f64;
        p.has(IpuPolicy::FORCE)
            || (p.has(IpuPolicy::SSR) && self.need_ssr())
            || (p.has(IpuPolicy::UTIL) && util)
            || (p.has(IpuPolicy::SSR_UTIL) && self.need_ssr() && util)
            // Writeback of cached pages is asynchronous unless under fsync.
            || (p.has(IpuPolicy::ASYNC) && kind == WriteKind::Writeback)
            || (p.has(IpuPolicy::FSYNC) && kind == WriteKind::FsyncIpu)
    }

    fn alloc(&mut self, log: LogType, now: SimTime) -> Result<u64, FsError> {
        // All six logs may use SSR (`get_ssr_segment`).
        let ssr = self.need_ssr();
        let blk = self.sm.alloc(log, now, ssr).inspect_err(|_| self.stats.out_of_space += 1)?;
        if self.sm.curseg_mode(log) == Some(super::segment::AllocMode::Ssr) {
            self.stats.ssr_blocks += 1;
        }
        Ok(blk)
    }

    // ---- device I/O helpers -------------------------------------------------

    /// Submit writes in order, merging runs of consecutive addresses into one
    /// command (as F2FS merges bios); returns when all complete.
    fn submit_writes(&mut self, at: SimTime, writes: &[(u64, Fingerprint)]) -> SimTime {
        self.submit_writes_stream(at, writes, 0)
    }

    /// `submit_writes` with a stream id: D2FS tags filemap (node) blocks 1
    /// and data blocks 0 so CGC keeps them apart (d2fs.txt §6.3).
    fn submit_writes_stream(&mut self, at: SimTime, writes: &[(u64, Fingerprint)], stream: u8) -> SimTime {
        let mut content = Vec::new();
        let (done, cmds) = super::io::write_runs(&mut self.dev, at, writes, stream, SimDuration(self.cfg.costs.bio_ns), &mut content);
        self.gc.note_io(at, 0, writes.len() as u64);
        self.stats.write_cmds += cmds;
        self.io_busy_until = self.io_busy_until.max(done);
        done
    }

    /// Read blocks, merging consecutive addresses; returns (done, fingerprints in order).
    fn submit_reads(&mut self, at: SimTime, addrs: &[u64]) -> (SimTime, Vec<Option<Fingerprint>>) {
        let mut out = Vec::with_capacity(addrs.len());
        let mut buf = std::mem::take(&mut self.scratch_read);
        let (done, cmds) = super::io::read_runs(&mut self.dev, at, addrs, SimDuration(self.cfg.costs.bio_ns), &mut buf, &mut out);
        self.gc.note_io(at, addrs.len() as u64, 0);
        self.scratch_read = buf;
        self.stats.read_cmds += cmds;
        self.io_busy_until = self.io_busy_until.max(done);
        (done, out)
    }

    fn write_meta(&mut self, at: SimTime, blks: &[u64], kind: u64) -> SimTime {
        if blks.is_empty() {
            return at;
        }
        let v = self.cp_version;
        let w: Vec<(u64, Fingerprint)> = blks.iter().map(|&b| (b, meta_fp(kind, b, v))).collect();
        self.stats.meta_write_blocks += blks.len() as u64;
        self.submit_writes(at, &w)
    }

    /// SSA blocks of segments the logs have left since the last call.
    fn write_closed_summaries(&mut self, at: SimTime) -> SimTime {
        let closed = self.sm.take_closed_segments();
        if self.iplfs() {
            return at; // no SSA on disk
        }
        let blks: Vec<u64> = closed.iter().map(|&s| self.layout.ssa_block_of(s)).collect();
        self.write_meta(at, &blks, 3)
    }

    // ---- node writes --------------------------------------------------------

    fn node_log(&self, nid: Nid) -> LogType {
        match self.nm.node(nid).kind {
            NodeKind::Indirect => LogType::ColdNode,
            // set_cold_node: directory dnodes are hot, file dnodes warm.
            _ if self.is_dir(self.nm.node(nid).ino) => LogType::HotNode,
            _ => LogType::WarmNode,
        }
    }

    /// Write node blocks to new addresses (out of place, always) and update the NAT.
    fn write_nodes(&mut self, at: SimTime, nids: &[Nid]) -> Result<SimTime, FsError> {
        let mut w = Vec::with_capacity(nids.len());
        for &nid in nids {
            if !self.nm.exists(nid) {
                continue;
            }
            let blk = self.alloc(self.node_log(nid), at)?;
            let old = self.nm.set_nat(nid, blk as u32);
            if old != NULL_ADDR {
                self.invalidate_host(old as u64);
            }
            let i = self.main_index(blk);
            self.owner.set(i, SsaEntry::node(nid));
            self.nm.clear_dirty(nid);
            if let Some(r) = &mut self.recovery {
                r.on_node_write(nid, self.nm.node(nid), blk as u32);
            }
            w.push((blk, meta_fp(1, nid as u64, blk)));
        }
        self.stats.node_write_blocks += w.len() as u64;
        Ok(self.submit_writes_stream(at, &w, 1))
    }

    /// Remove and return the dirty dentry blocks of directory `d`.
    fn take_dirty_dentries(&mut self, d: Ino) -> Vec<(Ino, u64)> {
        let mut rest = self.dirty_dentries.split_off(&(d, 0));
        let mut after = rest.split_off(&(d + 1, 0));
        self.dirty_dentries.append(&mut after);
        rest.into_iter().collect()
    }

    /// Write the dirty dentry blocks of `dir` (every directory if None), out
    /// of place in the hot data log (`f2fs_should_update_outplace`: never
    /// IPU for directories).
    fn write_dentries(&mut self, at: SimTime, dir: Option<Ino>) -> Result<SimTime, FsError> {
        let blocks: Vec<(Ino, u64)> = match dir {
            None => std::mem::take(&mut self.dirty_dentries).into_iter().collect(),
            Some(d) => self.take_dirty_dentries(d),
        };
        let mut done = at;
        let mut i = 0;
        while i < blocks.len() {
            let d = blocks[i].0;
            let n = blocks[i..].iter().take_while(|b| b.0 == d).count();
            let tag = DataTag(mix64(self.cp_version ^ mix64(d as u64 ^ 0xD1E)));
            let pages: Vec<(u64, Fingerprint)> = blocks[i..i + n].iter().map(|&(_, idx)| (idx, tag.block(idx))).collect();
            self.note_dentry_blocks(d, &pages);
            done = done.max(self.commit_pages(at, d, &pages, WriteKind::Writeback)?.done);
            i += n;
        }
        Ok(done)
    }

    // ---- checkpoint -----------------------------------------------------------

    /// Write a checkpoint (fs/f2fs/checkpoint.c `f2fs_write_checkpoint`): block
    /// operations (cp_rwsem write), flush dentries and dirty nodes, write
    /// NAT/SIT (journaled in the pack when few), the CP pack, with a cache
    /// flush before and after the pack; prefree sections become free.
    pub fn checkpoint(&mut self, now: SimTime) -> SimTime {
        let start = self.cp_rwsem.write_acquire(now);
        let t = self.checkpoint_locked(start);
        self.cp_rwsem.write_release(t);
        self.d2fs_after_checkpoint(t);
        self.iplfs_after_checkpoint(t);
        t
    }

    fn checkpoint_locked(&mut self, start: SimTime) -> SimTime {
        let mut t = self.write_dentries(start, None).expect("checkpoint reserve covers dirty dentries");
        let dirty = self.nm.take_dirty();
        t = t.max(self.write_nodes(start, &dirty).expect("checkpoint reserve covers dirty nodes"));
        t = t.max(self.write_closed_summaries(start));
        self.cp_version += 1;
        let copy = self.cp_version % 2;
        let dirty_nat = self.nm.take_dirty_nat();
        self.nm.checkpoint_done();
        if dirty_nat.len() > NAT_JOURNAL_ENTRIES {
            let mut blks: Vec<u64> = dirty_nat
                .iter()
                .map(|&n| self.layout.nat_block_of(n) + copy * self.layout.nat_segments as u64 * BLOCKS_PER_SEG as u64)
                .collect();
            blks.dedup();
            t = t.max(self.write_meta(start, &blks, 4));
        }
        let keep = self.d2fs_sections_to_keep();
        // add_discard_addrs: plain F2FS discards the blocks this checkpoint
        // released in segments still in use, queued as they are found;
        // IPLFS every block invalidated since the last checkpoint, and D2FS
        // those it deferred, issued after it (`iplfs_after_checkpoint`,
        // `d2fs_after_checkpoint`). Zoned F2FS resets whole zones.
        let sit = if self.iplfs() || self.d2fs.is_some() {
            let runs = &mut self.cp_discard_runs;
            self.sm.checkpoint(&keep, CpDiscards::Invalidated(&mut |start, len| d2fs::add_run(runs, start, len)))
        } else if !self.cfg.zoned && self.cfg.discard != DiscardPolicy::Off {
            let queue = &mut self.pending_discards;
            self.sm.checkpoint(&keep, CpDiscards::InUse(&mut |start, len| queue.insert(start, len)))
        } else {
            self.sm.checkpoint(&keep, CpDiscards::Off)
        };
        let freed = sit.freed;
        if sit.dirty_entries > SIT_JOURNAL_ENTRIES && !self.iplfs() {
            let mut blks: Vec<u64> = sit
                .dirty_blocks
                .iter()
                .map(|&b| b + copy * self.layout.sit_segments as u64 * BLOCKS_PER_SEG as u64)
                .collect();
            blks.dedup();
            t = t.max(self.write_meta(start, &blks, 5));
        }
        // Everything before the pack must be durable, then the pack, then flush.
        t = self.dev.flush(t);
        let pack = self.layout.cp_blkaddr + copy * BLOCKS_PER_SEG as u64;
        // Orphan blocks sit between the header and the summaries (write_orphan_inodes).
        let pack_len = CP_PACK_BLOCKS + self.orphans.div_ceil(ORPHANS_PER_BLOCK);
        let pack_blks: Vec<u64> = (pack..pack + pack_len).collect();
        t = self.write_meta(t, &pack_blks, 6);
        t = self.dev.flush(t);
        let sec_blocks = self.layout.blocks_per_sec() as u32;
        // D2FS discards blocks, never freed sections: a section discard would
        // follow migration records and kill the pages CGC moved out of it.
        let freed = if self.d2fs.is_some() || self.iplfs() { Vec::new() } else { freed };
        for s in freed {
            let blk = self.layout.main_blkaddr + s as u64 * self.layout.blocks_per_sec();
            self.pending_discards.insert(blk, sec_blocks);
        }
        if self.cfg.discard == DiscardPolicy::Immediate {
            t = self.issue_discards(t, usize::MAX);
        } else if self.cfg.discard == DiscardPolicy::Off {
            self.pending_discards.clear();
        }
        let clear = |f: &mut FileState| {
            f.created_since_cp = false;
            f.pino_lost = false;
        };
        if self.flagged.complete {
            for ino in self.flagged.inos.drain(..) {
                if let Some(f) = self.files.get_mut(&ino) {
                    clear(f);
                }
            }
        } else {
            self.files.values_mut().for_each(clear);
            self.flagged = FlaggedFiles { inos: Vec::new(), complete: true };
        }
        if let Some(r) = &mut self.recovery {
            let committed = self.files.iter().map(|(&i, f)| (i, f.committed.clone())).collect();
            r.on_checkpoint(&self.nm, &committed);
        }
        self.shed_ssa();
        self.capture_mount_image();
        self.stats.checkpoints += 1;
        self.stats.checkpoint_time_ns += (t - start).ns();
        self.last_cp = start;
        t
    }

    /// Drop the in-memory SSA entries of invalid blocks in chunks that are
    /// mostly invalid and that no log is filling (`SsaTable::shed`): memory
    /// only, nothing a run reports depends on it.
    fn shed_ssa(&mut self) {
        let segs_per_chunk = (super::ssa::SSA_CHUNK_BLOCKS / BLOCKS_PER_SEG as usize) as u32;
        let (sm, layout) = (&self.sm, &self.layout);
        let segs = move |ci: usize| {
            let first = ci as u32 * segs_per_chunk;
            first..(first + segs_per_chunk).min(layout.main_segments)
        };
        let main = layout.main_blkaddr;
        self.owner.shed(
            |ci| segs(ci).all(|s| sm.sealed(s)),
            |ci| segs(ci).map(|s| sm.segment_valid(s) as usize).sum(),
            |i| sm.is_valid(main + i as u64),
        );
    }

    /// Issue up to `max` pending discards with `granularity`. A block
    /// allocated since it was queued is cut out (F2FS punches the command
    /// when the block is allocated again, `f2fs_wait_discard_bio`), so a
    /// block a roll-forward may still need is never discarded. Zoned F2FS
    /// resets whole free zones instead.
    fn issue_discards_with(&mut self, at: SimTime, max: usize, granularity: u32) -> SimTime {
        let mut done = at;
        if self.cfg.zoned {
            let (main, per_sec) = (self.layout.main_blkaddr, self.layout.blocks_per_sec());
            let sm = &self.sm;
            let (stats, dev) = (&mut self.stats, &mut self.dev);
            let safe = |b| sm.section_is_free(((b - main) / per_sec) as u32);
            self.pending_discards.take(max, per_sec as u32, safe, |blk, len| {
                for z in 0..len as u64 / per_sec {
                    stats.zone_resets += 1;
                    done = done.max(dev.reset_zone(at, Lpn(blk + z * per_sec), per_sec as u32));
                }
            });
            return done;
        }
        let main = self.layout.main_blkaddr;
        let sm = &self.sm;
        let (stats, dev) = (&mut self.stats, &mut self.dev);
        let safe = |b| b >= main && !sm.is_valid(b) && !sm.ckpt_valid_map(b);
        self.pending_discards.take(max, granularity, safe, |blk, len| {
            stats.discard_cmds += 1;
            stats.discard_blocks += len as u64;
            done = done.max(dev.discard(at, Lpn(blk), len));
        });
        done
    }

    /// Immediate discards: everything queued, whatever its length.
    fn issue_discards(&mut self, at: SimTime, max: usize) -> SimTime {
        self.issue_discards_with(at, max, 1)
    }

    // ---- garbage collection ---------------------------------------------------

    /// F2FS `f2fs_balance_fs`: a writer that finds too few free sections runs
    /// foreground GC under the GC lock (greedy victims, checkpoint to turn
    /// prefree sections free). Returns when the writer may proceed.
    pub(super) fn balance_fs(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        if self.d2fs.is_some() {
            return self.d2fs_balance(now);
        }
        if self.iplfs() {
            // Never cleans: the partition outlives the flash (iplfs.txt).
            return Ok(self.iplfs_balance(now));
        }
        if !self.not_enough_free_secs() {
            // The state is the round's end, but a caller inside another's
            // round found the sections still short: they come back only at
            // the round's checkpoint. It sleeps on gc_lock, then f2fs_gc
            // (gc_control.init_gc_type = BG_GC with no_bg_gc, Linux 6.0)
            // finds enough free sections and returns without collecting.
            // Strictly after the round's start: the thread that ran it may
            // call again at the instant it took the lock (writeback of the
            // next file), and must not wait for itself.
            let (from, until) = self.fg_round;
            if from < now && now < until {
                self.gc_lock.stats.note(now, until, SimDuration(0));
                self.stats.fg_gc_stall_ns += (until - now).ns();
                return Ok(until);
            }
            return Ok(now);
        }
        let got = self.gc_lock.acquire(now);
        let r = self.foreground_gc(got);
        // The GC lock is released on every exit, errors included.
        let t = match r {
            Ok(t) => t,
            Err((t, e)) => {
                self.gc_lock.release(t);
                self.close_moves(got, t);
                return Err(e);
            }
        };
        self.close_moves(got, t);
        self.gc_lock.release(t);
        self.fg_round = (got, t);
        self.stats.gc_time_ns += (t - got).ns();
        self.stats.fg_gc_stall_ns += (t - now).ns();
        Ok(t)
    }

    /// The balance a buffered write makes before it reaches the page cache.
    /// Every whole-block buffered write balances, overwrites included:
    /// `f2fs_file_write_iter` first calls `f2fs_preallocate_blocks`, whose
    /// `f2fs_map_blocks(F2FS_GET_BLOCK_PRE_AIO)` ends in `f2fs_balance_fs`
    /// (Linux 6.0; its `need` argument gates only `f2fs_balance_fs_bg`).
    /// `f2fs_write_begin`'s own `need_balance` gate matters only for
    /// sub-block writes, which lfslab does not issue.
    ///
    /// D2FS acts here only when it is out of free sections
    /// (`has_not_enough_free_secs`): a buffered write reaches the rest of its
    /// `f2fs_balance_fs` (the checkpoint trigger and write stall) only
    /// through writeback, page by page.
    fn buffered_write_balance(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        if self.d2fs.is_some() && self.sm.free_sections() > self.node_secs() + 1 {
            return Ok(now);
        }
        self.balance_fs(now)
    }

    /// The foreground GC rounds of `balance_fs`, under the GC lock taken at `got`.
    fn foreground_gc(&mut self, got: SimTime) -> Result<SimTime, (SimTime, FsError)> {
        use super::config::GcEngineKind;
        let kind = self.cfg.gc_engine.kind;
        if kind == GcEngineKind::Dgc {
            return self.dgc_foreground(got);
        }
        let mut t = got;
        let mut first = true;
        while self.not_enough_free_secs() {
            if self.sm.prefree_sections() > 0 {
                t = self.gc_checkpoint(t);
                continue;
            }
            // get_victim_by_default searches every dirty unit under
            // seglist_lock (no cost unless set): greedy from the GC cursor,
            // or cost-benefit when gc_idle = 1 (select_gc_type's
            // GC_IDLE_CB applies to foreground GC too).
            let (best, searched) = if self.cfg.tuning.gc_idle == 1 {
                let (v, n) = self.sm.fg_cost_benefit_victim();
                (v.map(|s| (s, self.sm.section_valid(s))), n)
            } else {
                self.sm.greedy_victim()
            };
            t = self.serial_scan(t, searched as usize);
            let per_sec = self.layout.blocks_per_sec();
            // No victim, or only full ones: GC cannot gain space (F2FS returns
            // -ENODATA); the writer goes on and allocation reports ENOSPC.
            let Some((victim, valid)) = best else { break };
            if valid as u64 >= per_sec {
                self.stats.gc_futile += 1;
                break;
            }
            if kind == GcEngineKind::Multi && !first {
                t = self.multi_handoff(t);
            }
            first = false;
            t = match kind {
                GcEngineKind::Pgc => self.pgc_section(t, victim),
                _ => self.gc_section(t, victim),
            }
            .map_err(|e| (t, e))?;
            self.stats.gc_fg_count += 1;
        }
        if self.sm.prefree_sections() > 0 {
            t = self.gc_checkpoint(t);
        }
        Ok(t)
    }

    /// A checkpoint GC takes to turn its prefree sections free, timed as
    /// GC's checkpoint stage.
    pub(super) fn gc_checkpoint(&mut self, at: SimTime) -> SimTime {
        let t = self.checkpoint(at);
        self.stats.gc_stage_checkpoint_ns += (t - at).ns();
        t
    }

    /// Migrate every valid block of section `secno` (fs/f2fs/gc.c
    /// `do_garbage_collect`): read the section's SSA blocks ahead, read the
    /// uncached valid data blocks, repoint their dnodes and dispatch their
    /// writes to the cold data log; node blocks are rewritten to their node
    /// log. Each stage's time is counted (D2FS Fig. 16).
    fn gc_section(&mut self, at: SimTime, secno: u32) -> Result<SimTime, FsError> {
        // Slack-space recycling must not refill the section being emptied.
        self.sm.set_gc_victim(Some(secno));
        let r = self.gc_section_inner(at, secno);
        self.sm.set_gc_victim(None);
        r
    }

    fn gc_section_inner(&mut self, at: SimTime, secno: u32) -> Result<SimTime, FsError> {
        let spsec = self.layout.segs_per_sec;
        let mut segs: Vec<u32> = (secno * spsec..(secno + 1) * spsec).filter(|&s| self.sm.segment_valid(s) > 0).collect();
        // CSGC: data segments go to the device's executor (csgc.rs), after
        // the host's own node segments.
        let offloaded: Vec<u32> = if self.offloads_gc() {
            let (data, node): (Vec<u32>, Vec<u32>) =
                segs.iter().partition(|&&s| !self.sm.segment_log(s).is_some_and(|l| l.is_node()));
            segs = node;
            data
        } else {
            Vec::new()
        };
        // do_garbage_collect reads the section's SSA blocks ahead in one go
        // (f2fs_ra_meta_pages(.., META_SSA, ..)).
        let ssa: Vec<u64> = segs.iter().map(|&s| self.layout.ssa_block_of(s)).collect();
        let (ssa_done, _) = self.submit_reads(at, &ssa);
        let mut t = at;
        // Writes are dispatched, not waited for: the checkpoint that follows
        // GC waits for them (D2FS §8.5 counts writing the consolidated
        // section under the checkpoint).
        for segno in segs {
            let ssa_done = ssa_done.max(t);
            let blocks: Vec<u64> = self.sm.valid_blocks_of(segno).collect();
            let is_node = self.sm.segment_log(segno).is_some_and(|l| l.is_node());
            let n = blocks.len() as u64;
            let c = self.cfg.costs.gc;
            // Phases 0-2 (NAT and node lookups) once the SSA block is in.
            let meta = SimDuration(c.meta_ns * n);
            let looked_up = ssa_done + meta;
            // The collector's CPU, for the host's utilisation (timing unchanged).
            self.gc.cpu.account(ssa_done, meta);
            self.stats.gc_stage_meta_ns += (looked_up - t).ns();
            if is_node {
                // gc_node_segment: each node page is grabbed and redirtied
                // (no filemap walk: the NAT entry is the node's address).
                let nids: Vec<Nid> = blocks.iter().map(|&b| self.owner.get(self.main_index(b)).nid()).collect();
                for (&b, &nid) in blocks.iter().zip(&nids) {
                    assert_eq!(self.nm.nat_addr(nid) as u64, b, "SSA says block {b} holds node {nid}, NAT disagrees");
                }
                self.stats.gc_moved_node_blocks += nids.len() as u64;
                let cache = SimDuration(c.page_cache_ns * n);
                self.stats.gc_stage_page_cache_ns += cache.ns();
                let write = SimDuration(c.write_ns * n);
                self.gc.cpu.account(looked_up, cache + write);
                self.write_nodes(looked_up + cache + write, &nids)?;
                self.stats.gc_stage_write_ns += write.ns();
                t = looked_up + cache + write;
            } else {
                // Pages cached clean need no read (D2FS §8.5: most are cached).
                let mut data: Vec<Option<Fingerprint>> = vec![None; blocks.len()];
                let mut to_read = Vec::new();
                let mut read_idx = Vec::new();
                for (k, &b) in blocks.iter().enumerate() {
                    let slot = self.owner.get(self.main_index(b)).slot().expect("a data segment holds data blocks");
                    let node = self.nm.node(slot.nid);
                    let cached = self.cache.peek_clean(node.ino, node.start_off + slot.ofs as u64);
                    match cached {
                        Some(fp) => data[k] = Some(Fingerprint(fp)),
                        None => {
                            to_read.push(b);
                            read_idx.push(k);
                        }
                    }
                }
                // Phase 3 grabs each page, walks its dnode and submits its
                // read (REQ_RAHEAD), so the reads go out as its CPU reaches
                // them and run under the rest of it. Phase 4
                // (move_data_page) locks each page in turn, waiting only for
                // a read not yet done, then repoints and dispatches it. The
                // artifact's zoned F2FS waited 44 us per section on those
                // locks (print_GC_LATENCY: p4 lock), its reads all but
                // hidden; read_runs merges a chunk's adjacent blocks.
                let (cache, filemap) = (SimDuration(c.page_cache_ns * n), SimDuration(c.filemap_ns * n));
                self.stats.gc_stage_page_cache_ns += cache.ns();
                self.stats.gc_stage_filemap_ns += filemap.ns();
                let (p3, p4) = (c.before_move(n), c.in_move(n));
                let at_block = |start: SimTime, d: SimDuration, k: usize| start + SimDuration(d.ns() * k as u64 / n);
                // Reads in chunks, each submitted when phase 3 has reached its last block.
                const READ_CHUNK: usize = 16;
                let mut chunk_done = Vec::with_capacity(to_read.len().div_ceil(READ_CHUNK));
                for (c_idx, chunk) in read_idx.chunks(READ_CHUNK).enumerate() {
                    let last = *chunk.last().expect("chunks are not empty");
                    let addrs = &to_read[c_idx * READ_CHUNK..c_idx * READ_CHUNK + chunk.len()];
                    let (done, got) = self.submit_reads(at_block(looked_up, p3, last + 1), addrs);
                    for (&k, g) in chunk.iter().zip(got) {
                        data[k] = g;
                    }
                    chunk_done.push(done);
                }
                // Phase 4, block by block: wait for the block's read, then its share of the CPU.
                let p3_end = looked_up + p3;
                let (mut t4, mut next_read) = (p3_end, 0usize);
                for k in 0..blocks.len() {
                    if read_idx.get(next_read) == Some(&k) {
                        t4 = t4.max(chunk_done[next_read / READ_CHUNK]);
                        next_read += 1;
                    }
                    t4 = t4 + SimDuration(p4.ns() * (k as u64 + 1) / n - p4.ns() * k as u64 / n);
                }
                let walked = t4;
                // The shares of p4 sum to p4, so the rest is waiting on reads.
                self.stats.gc_stage_read_ns += (walked - p3_end).ns() - p4.ns();
                let ready = walked + SimDuration(c.write_ns * n);
                self.gc.cpu.account(looked_up, p3);
                self.gc.cpu.account(SimTime(walked.0.saturating_sub(p4.ns())), p4 + (ready - walked));
                let mut w = Vec::with_capacity(blocks.len());
                for (&old, fp) in blocks.iter().zip(data) {
                    let own = self.owner.get(self.main_index(old));
                    let fp = fp.expect("valid block holds data");
                    let new = match self.alloc(LogType::ColdData, ready) {
                        Ok(b) => b,
                        Err(e) => {
                            self.submit_writes(ready, &w);
                            return Err(e);
                        }
                    };
                    self.repoint_moved(old, new, own);
                    w.push((new, fp));
                }
                self.stats.gc_moved_data_blocks += w.len() as u64;
                self.stats.data_write_blocks += w.len() as u64;
                self.submit_writes(ready, &w);
                self.stats.gc_stage_write_ns += (ready - walked).ns();
                t = ready;
            }
        }
        if !offloaded.is_empty() {
            t = self.offload_segments(t, &offloaded)?;
        }
        let end = self.write_closed_summaries(t).max(t);
        self.stats.gc_stage_meta_ns += (end - t).ns();
        Ok(end)
    }

    /// A data block GC moved from `old` to `new`: its dnode points at the
    /// new address, the old one is invalid, the SSA names its owner.
    pub(super) fn repoint_moved(&mut self, old: u64, new: u64, own: SsaEntry) {
        let slot = own.slot().expect("a data segment holds data blocks");
        let prev = self.nm.set_addr(slot, new as u32);
        assert_eq!(prev as u64, old, "SSA says block {old} belongs to {slot:?}, which points at {prev}");
        self.sm.invalidate_undiscarded(old);
        let i = self.main_index(new);
        self.owner.set(i, own);
    }

    // ---- file operations ------------------------------------------------------

    fn check_write(&self, ino: Ino, off: u64, n: u64) -> Result<(), FsError> {
        let f = self.files.get(&ino).ok_or(FsError::NoSuchFile(ino))?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        if off + n > MAX_FILE_BLOCKS {
            return Err(FsError::TooLarge { ino, blocks: off + n });
        }
        // F2FS `inc_valid_block_count`: new blocks must fit the user blocks
        // (main area minus overprovisioning), nodes included.
        let new = crate::oracle::file_content::new_blocks(&f.expected, off, n);
        if self.used_blocks + new + self.nm.live_count() + 1 > self.layout.user_blocks {
            return Err(FsError::NoSpace);
        }
        Ok(())
    }

    /// Application data reached the file: grow it and record the oracle.
    fn note_app_write(&mut self, ino: Ino, off: u64, content: &[Fingerprint]) {
        let n = content.len() as u64;
        self.stats.app_write_blocks += n;
        let f = self.files.get_mut(&ino).expect("checked");
        if off + n > f.size_blocks {
            f.size_blocks = off + n;
            self.nm.mark_dirty(ino);
        }
        self.used_blocks += crate::oracle::file_content::record(&mut f.expected, off, content);
    }

    /// Give file pages their blocks and write them (F2FS `f2fs_do_write_data_page`):
    /// in place when the IPU policy says so, else a new block in the warm
    /// data log; `pages` are (file offset, content), issued in order.
    fn commit_pages(&mut self, t: SimTime, ino: Ino, pages: &[(u64, Fingerprint)], kind: WriteKind) -> Result<Committed, FsError> {
        // __get_segment_type_6: dentry blocks go to the hot data log and are
        // never updated in place (f2fs_should_update_outplace).
        let is_dir = self.is_dir(ino);
        // RM-IPU: file appends go to the cold log, updates to the hot log
        // and are remapped back (rmipu.rs).
        let rmipu = self.cfg.rmipu && !is_dir;
        let log = if is_dir { LogType::HotData } else if rmipu { LogType::ColdData } else { LogType::WarmData };
        let ipu = !is_dir && self.should_ipu(kind);
        let mut pairs = Vec::new();
        let hold = SimDuration(self.cfg.costs.alloc_ns * pages.len() as u64);
        let (_, t) = self.curseg_lock[log.index()].hold(t, hold, SimDuration(0));
        let searched = self.sm.ssr_searched();
        let mut w = Vec::with_capacity(pages.len());
        // The old blocks' segment entries are random reads: fetch a few ahead.
        const AHEAD: usize = 8;
        let hint = |f: &Self, k: usize| {
            if let Some(&(off, _)) = pages.get(k) {
                if let Some(old) = f.nm.probe(ino, off).map(|s| f.nm.get_addr(s)).filter(|&a| a != NULL_ADDR) {
                    f.sm.prefetch_block(old as u64);
                }
            }
        };
        for k in 0..AHEAD {
            hint(self, k);
        }
        for (k, &(off, fp)) in pages.iter().enumerate() {
            hint(self, k + AHEAD);
            // On an error, the pages placed so far are still written, so no
            // pointer is left to a block that never received its data.
            let slot = match self.nm.dnode_slot(ino, off, true) {
                Some(s) => s,
                None => {
                    self.submit_writes(t, &w);
                    return Err(FsError::OutOfNodeIds);
                }
            };
            let old = self.nm.get_addr(slot);
            let blk = if old != NULL_ADDR && ipu {
                self.stats.ipu_blocks += 1;
                old as u64
            } else if old != NULL_ADDR && rmipu {
                // An update write: hot log, the dnode untouched.
                let new = match self.alloc(LogType::HotData, t) {
                    Ok(b) => b,
                    Err(e) => {
                        let done = self.submit_writes(t, &w);
                        if !pairs.is_empty() {
                            self.rmipu_remap(done, &pairs);
                        }
                        return Err(e);
                    }
                };
                let idx = self.main_index(new);
                self.owner.set(idx, SsaEntry::data(slot));
                pairs.push((old as u64, new));
                new
            } else {
                let new = match self.alloc(log, t) {
                    Ok(b) => b,
                    Err(e) => {
                        self.submit_writes(t, &w);
                        return Err(e);
                    }
                };
                if old != NULL_ADDR {
                    self.invalidate_host(old as u64);
                }
                self.nm.set_addr(slot, new as u32);
                let idx = self.main_index(new);
                self.owner.set(idx, SsaEntry::data(slot));
                new
            };
            w.push((blk, fp));
        }
        self.stats.data_write_blocks += pages.len() as u64;
        let searched = self.sm.ssr_searched() - searched;
        let t = if searched > 0 { self.ssr_search(log, t, searched) } else { t };
        if let Some(r) = self.recovery.as_mut().filter(|_| !is_dir) {
            let f = self.files.get_mut(&ino).expect("committing pages of a live file");
            for &(off, fp) in pages {
                if f.committed.len() <= off as usize {
                    f.committed.resize(off as usize + 1, 0);
                }
                f.committed[off as usize] = fp.0;
                r.on_write(ino, off, fp.0);
            }
        }
        let done = self.submit_writes(t, &w);
        let done = if pairs.is_empty() { done } else { self.rmipu_remap(done, &pairs) };
        Ok(Committed { submitted: t, done: self.write_closed_summaries(done).max(done) })
    }

    /// Write `content.len()` blocks at block offset `off` with O_DIRECT.
    pub fn write(&mut self, now: SimTime, ino: Ino, off: u64, content: &[Fingerprint]) -> Result<SimTime, FsError> {
        let n = content.len() as u64;
        self.check_write(ino, off, n)?;
        // LFS mode allocates in f2fs_map_blocks, before its f2fs_balance_fs.
        self.writer_meets_gc(now, ino, off..off + n, WriteKind::Direct);
        let t0 = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t0) + self.cpu(n);
        // Direct I/O bypasses (and invalidates) cached pages of the range.
        self.cache.drop_range(ino, off, off + n);
        let pages: Vec<(u64, Fingerprint)> = content.iter().enumerate().map(|(i, &fp)| (off + i as u64, fp)).collect();
        self.last_req = now;
        let Committed { submitted, done } = self.commit_pages(t, ino, &pages, WriteKind::Direct)?;
        self.cp_rwsem.read_until(submitted);
        self.note_app_write(ino, off, content);
        self.d2fs_after_op(done);
        // No f2fs_balance_fs_bg here: the writer's f2fs_balance_fs calls it
        // only for excess cached NAT entries (not modelled); its checkpoint
        // triggers run in the background threads (`on_idle`).
        Ok(done)
    }

    /// Hint that page `off` of `ino` will be written or read soon, in two
    /// stages a few operations apart (see `PageCache::prefetch`); the
    /// oracle's entry comes with the first. A hint never changes results.
    pub fn prefetch_page(&self, ino: Ino, off: u64, stage: u8) {
        self.cache.prefetch(ino, off, stage);
        if stage == 0 {
            if let Some(f) = self.files.get(&ino) {
                crate::prefetch::prefetch(&f.expected, off as usize);
            }
        }
    }

    /// Buffered write: the pages go to the page cache; blocks are allocated
    /// when writeback runs (delayed allocation). Then balance_dirty_pages:
    /// see `host::background_writeback` for the two models.
    pub fn write_buffered(&mut self, now: SimTime, ino: Ino, off: u64, content: &[Fingerprint]) -> Result<SimTime, FsError> {
        let n = content.len() as u64;
        self.check_write(ino, off, n)?;
        let t0 = self.buffered_write_balance(now)?;
        let mut t = self.cp_rwsem.read_from(t0) + self.cpu(n);
        self.cp_rwsem.read_until(t);
        self.last_req = now;
        for (i, fp) in content.iter().enumerate() {
            self.cache.prefetch_run(ino, off + i as u64, off, off + n);
            self.cache.write(ino, off + i as u64, fp.0, t);
        }
        self.note_app_write(ino, off, content);
        t = super::dirty_balance::balance_dirty_pages(self, t)?;
        self.d2fs_after_op(t);
        Ok(t)
    }

    /// Write back about `pages` dirty pages, oldest-dirtied files first, each
    /// file in offset order from where its last pass stopped to its end
    /// (range-cyclic, as the flusher's wb_writeback asks); a file whose
    /// sweep reached its end goes to the back of the queue
    /// (`PageCache::take_dirty_sweep`) and is written again from offset 0
    /// while pages are owed. Returns when the writes complete.
    pub fn writeback(&mut self, now: SimTime, pages: usize) -> Result<SimTime, FsError> {
        let mut left = pages;
        let mut done = now;
        // Two empty sweeps in a row: every dirty file was swept from its
        // index and from 0, so nothing is left to find.
        let mut empty = 0;
        while left > 0 && empty < 2 {
            let Some(ino) = self.cache.oldest_dirty_file() else { break };
            let (t, written) = self.writeback_pages(now, ino, left, WriteKind::Writeback, true)?;
            done = done.max(t);
            left = left.saturating_sub(written);
            empty = if written == 0 { empty + 1 } else { 0 };
        }
        self.d2fs_after_op(done);
        Ok(done)
    }

    /// Write back every dirty page of `ino`, from offset 0.
    fn writeback_file(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.writeback_pages(now, ino, usize::MAX, WriteKind::Writeback, false).map(|(t, _)| t)
    }

    /// Write back up to `max` dirty pages of `ino`; returns (done, pages
    /// written). `cyclic`: the flusher's range-cyclic pass, from where the
    /// last one stopped to the file's end (`PageCache::take_dirty_sweep`);
    /// otherwise the whole file from offset 0, as fsync writes it.
    fn writeback_pages(&mut self, now: SimTime, ino: Ino, max: usize, kind: WriteKind, cyclic: bool) -> Result<(SimTime, usize), FsError> {
        let dirty = if cyclic { self.cache.take_dirty_sweep(ino, max, now).0 } else { self.cache.take_dirty(ino, max) };
        let written = dirty.len();
        if dirty.is_empty() {
            return Ok((now, 0));
        }
        let pages: Vec<(u64, Fingerprint)> = dirty.into_iter().map(|(o, fp)| (o, Fingerprint(fp))).collect();
        // The kernel balances per page written back (f2fs_write_single_data_page
        // -> f2fs_balance_fs); a segment's worth at a time keeps a large
        // writeback from running the free sections dry between two checks.
        // Chunks are submitted without waiting for the previous ones.
        let (mut start, mut done) = (now, now);
        for (k, chunk) in pages.chunks(BLOCKS_PER_SEG as usize).enumerate() {
            // The chunk's first page is allocated before its balance.
            self.writer_meets_gc(start, ino, chunk[0].0..chunk[0].0 + 1, kind);
            let committed = self.balance_fs(start).and_then(|s| {
                start = s;
                self.write_back_chunk(s, ino, chunk, kind).map(|c| c.done)
            });
            match committed {
                Ok(d) => done = done.max(d),
                Err(e) => {
                    // The pages not written stay dirty (redirty_page_for_writepage).
                    for &(off, fp) in &pages[k * BLOCKS_PER_SEG as usize..] {
                        self.cache.redirty(ino, off, fp.0, start);
                    }
                    return Err(e);
                }
            }
        }
        Ok((done, written))
    }

    /// One balanced chunk of writeback from `s`: its pages placed under
    /// cp_rwsem (f2fs_lock_op, dropped once they are queued) and counted
    /// under writeback until they complete. On an error the caller
    /// redirties what it took.
    fn write_back_chunk(&mut self, s: SimTime, ino: Ino, pages: &[(u64, Fingerprint)], kind: WriteKind) -> Result<Committed, FsError> {
        let t = self.cp_rwsem.read_from(s);
        let c = self.commit_pages(t, ino, pages, kind)?;
        self.cp_rwsem.read_until(c.submitted);
        self.cache.note_writeback(ino, c.submitted, c.submitted, c.done, pages.len());
        Ok(c)
    }

    /// Buffered read: cached pages cost no I/O; misses are read (merged) and cached.
    pub fn read_buffered(&mut self, now: SimTime, ino: Ino, off: u64, n: u64) -> Result<SimTime, FsError> {
        self.read_file(now, ino, off, n, true)
    }

    /// Read `n` blocks at `off` (direct I/O) and check them against the oracle.
    pub fn read(&mut self, now: SimTime, ino: Ino, off: u64, n: u64) -> Result<SimTime, FsError> {
        self.read_file(now, ino, off, n, false)
    }

    fn read_file(&mut self, now: SimTime, ino: Ino, off: u64, n: u64, buffered: bool) -> Result<SimTime, FsError> {
        let f = self.files.get(&ino).ok_or(FsError::NoSuchFile(ino))?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        let size = f.size_blocks;
        self.last_req = now;
        // O_DIRECT reads see dirty cached data only after it is written back
        // (filemap_write_and_wait_range).
        let now = if !buffered && self.cache.has_dirty(ino) { self.writeback_file(now, ino)? } else { now };
        let t = now + self.cpu(n);
        let end = (off + n).min(size);
        let mut addrs = Vec::new();
        let mut offs = Vec::new();
        for o in off..end {
            if buffered {
                self.cache.prefetch_run(ino, o, off, end);
                if let Some(fp) = self.cache.get(ino, o) {
                    self.check(ino, o, Some(Fingerprint(fp)));
                    continue;
                }
            }
            match self.nm.probe(ino, o).map(|s| self.nm.get_addr(s)).filter(|&a| a != NULL_ADDR) {
                Some(a) => {
                    addrs.push(a as u64);
                    offs.push(o);
                }
                None => self.check(ino, o, None),
            }
        }
        let before = self.stats.read_cmds;
        let (done, data) = self.submit_reads(t, &addrs);
        self.stats.app_read_cmds += self.stats.read_cmds - before;
        self.stats.app_read_cmd_blocks += addrs.len() as u64;
        for (o, got) in offs.into_iter().zip(data) {
            self.check(ino, o, got);
            if let (true, Some(fp)) = (buffered, got) {
                self.cache.insert_clean(ino, o, fp.0);
            }
        }
        self.stats.app_read_blocks += n;
        self.d2fs_after_op(done);
        Ok(done)
    }

    /// The flusher thread's daemon tick: run its steps due by `now`; if it
    /// then sleeps, give it kupdate's expired files (once per
    /// dirty_writeback interval) and background work when the dirty pages
    /// are over dirty_background_ratio (`fs::flusher`). Returns `now`: the
    /// caller does not wait for the thread.
    pub fn flusher(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        Flusher::run_until(self, now)?;
        if self.flush.is_idle() {
            let expire = SimDuration::from_secs_f64(self.cfg.dirty_expire_s);
            let interval = SimDuration::from_secs_f64(self.cfg.dirty_writeback_s);
            let (excess, expired) = self.cache.flusher_work(now, self.cfg.dirty_background_pct, expire, interval);
            let owed: Vec<(Ino, usize)> = expired.into_iter().map(|i| (i, self.cache.dirty_of(i))).collect();
            self.flush.queue(now, owed, excess > 0);
            Flusher::run_until(self, now)?;
        }
        self.d2fs_sample(now);
        Ok(now)
    }

    /// Run the flusher's steps due by `now`: every entry point does so
    /// first, so the flusher's writes and the caller's are in time order.
    pub(super) fn flusher_catch_up(&mut self, now: SimTime) -> Result<(), FsError> {
        Flusher::run_until(self, now)
    }

    pub fn page_cache_stats(&self) -> crate::host::PageCacheStats {
        self.cache.stats.clone()
    }

    fn check(&mut self, ino: Ino, off: u64, got: Option<Fingerprint>) {
        let want = self.files[&ino].expected.get(off as usize).copied().filter(|&e| e != UNWRITTEN).unwrap_or(0);
        self.oracle.blocks_checked_count += 1;
        if got.map_or(0, |f| f.0) != want {
            self.oracle.mismatches_count += 1;
        }
    }

    /// fsync: write the file's dirty node blocks (F2FS marks them for
    /// roll-forward) and flush the device cache; the first fsync of a file
    /// created since the last checkpoint checkpoints instead
    /// (`need_do_checkpoint`).
    pub fn fsync(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.sync_file(now, ino, false)
    }

    /// fdatasync: like fsync, but the inode block is written only when the
    /// file size or the block addresses it holds changed since the last
    /// sync (F2FS skips inode-only updates for datasync).
    pub fn fdatasync(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.sync_file(now, ino, true)
    }

    fn sync_file(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError> {
        let f = self.files.get(&ino).ok_or(FsError::NoSuchFile(ino))?;
        // need_do_checkpoint: a directory, a renamed file (lost pino), or a
        // parent not yet in a checkpoint needs one; otherwise roll-forward
        // recovers the file and its dentry (recover_dentry) from the fsync'd inode.
        let parent_new = self.files.get(&f.parent).is_some_and(|p| p.created_since_cp);
        let (need_cp, size_changed) = (f.dir.is_some() || f.pino_lost || parent_new, f.size_blocks != f.synced_size);
        let t = now + self.cpu(0);
        self.last_req = now;
        // f2fs_do_sync_file: FI_NEED_IPU for fdatasync or few dirty pages.
        let kind = if datasync || self.cache.dirty_of(ino) <= self.cfg.tuning.min_fsync_blocks as usize {
            WriteKind::FsyncIpu
        } else {
            WriteKind::Writeback
        };
        // A directory's dirty dentry blocks go first (file_write_and_wait_range).
        let t = if self.is_dir(ino) { self.write_dentries(t, Some(ino))? } else { t };
        let (t, _) = self.writeback_pages(t, ino, usize::MAX, kind, false)?;
        self.files.get_mut(&ino).expect("checked").synced_size = self.files[&ino].size_blocks;
        if need_cp {
            return Ok(self.checkpoint(t));
        }
        let t = self.cp_rwsem.read_from(t);
        let mut nids = self.nm.dirty_of(ino);
        // f2fs_skip_inode_update: fdatasync leaves the inode block alone only
        // if neither the size nor its own block addresses changed (a node
        // page with new addresses is dirty and f2fs_fsync_node_pages writes it).
        if datasync && !size_changed && !self.nm.inode_addrs_dirty(ino) {
            nids.retain(|&n| n != ino);
        }
        let t = self.write_nodes(t, &nids)?;
        let t = self.dev.flush(t);
        self.cp_rwsem.read_until(t);
        if let Some(r) = &mut self.recovery {
            r.on_fsync(ino, &self.files[&ino].committed);
        }
        self.note_fsync_image(ino);
        self.d2fs_after_op(t);
        Ok(t)
    }

    /// Check what a crash now would recover (checkpoint + roll-forward of
    /// fsync'd inodes) against every promise made by checkpoints and fsyncs.
    /// `roll_forward = false` recovers the checkpoint alone (a control: it
    /// must lose post-checkpoint fsyncs). None unless `track_recovery` is on.
    pub fn crash_check(&mut self, at: SimTime, roll_forward: bool) -> Option<super::recovery::CrashReport> {
        let redo = if self.d2fs.is_some() { super::recovery::Redo::Redo } else { super::recovery::Redo::NotApplicable };
        self.crash_check_with(at, roll_forward, redo)
    }

    /// `crash_check` choosing how D2FS records are treated (`Redo::Skip` is the control).
    pub fn crash_check_with(&mut self, at: SimTime, roll_forward: bool, redo: super::recovery::Redo) -> Option<super::recovery::CrashReport> {
        let r = self.recovery.as_ref()?;
        Some(r.check(&mut self.dev, at, roll_forward, redo))
    }

    /// Shrink (or extend with a hole) to `blocks`.
    /// Unmap block `off` of `ino` and invalidate where it was.
    fn punch_block(&mut self, ino: Ino, off: u64) {
        if let Some(slot) = self.nm.dnode_slot(ino, off, false) {
            let a = self.nm.set_addr(slot, NULL_ADDR);
            if a != NULL_ADDR {
                self.invalidate_host(a as u64);
            }
        }
    }

    pub fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError> {
        let f = self.files.get(&ino).ok_or(FsError::NoSuchFile(ino))?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        let size = f.size_blocks;
        let t0 = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t0) + self.cpu(size.saturating_sub(blocks));
        for o in blocks..size {
            self.punch_block(ino, o);
        }
        // Only pages below the size can be cached (reads stop at it), so the
        // range is bounded: a short one is dropped by key, not an LRU walk.
        self.cache.drop_range(ino, blocks, size.max(blocks));
        let f = self.files.get_mut(&ino).expect("checked");
        f.size_blocks = blocks;
        let freed = f.expected.iter().skip(blocks as usize).filter(|&&e| e != 0).count() as u64;
        self.used_blocks -= freed;
        f.expected.resize(blocks as usize, 0);
        f.committed.truncate(blocks as usize);
        if let Some(r) = &mut self.recovery {
            r.on_touch(ino, blocks, size);
        }
        self.nm.mark_dirty(ino);
        self.cp_rwsem.read_until(t);
        self.d2fs_after_op(t);
        Ok(t)
    }

    /// For tests: whether block `off` of `ino` has an address on disk, and
    /// whether its page is dirty in the cache.
    #[cfg(test)]
    pub(super) fn block_state(&self, ino: Ino, off: u64) -> (bool, bool) {
        let mapped = self.nm.probe(ino, off).map(|s| self.nm.get_addr(s)).is_some_and(|a| a != NULL_ADDR);
        (mapped, !self.cache.is_clean(ino, off))
    }

    /// For tests: (dirty pages, pages under writeback) at `now`.
    #[cfg(test)]
    pub(super) fn dirty_and_writeback(&mut self, now: SimTime) -> (usize, usize) {
        (self.cache.dirty_count(), self.cache.writeback_count(now))
    }

    /// Full consistency check: SIT counts, every file block's address valid
    /// and owned by its dnode slot, every node's NAT address valid.
    pub fn check_consistency(&self) -> Result<(), String> {
        self.sm.check()?;
        let mut live = 0u64;
        for &ino in self.files.keys() {
            for nid in self.nm.nodes_of(ino) {
                let a = self.nm.nat_addr(nid);
                if a != NULL_ADDR {
                    live += 1;
                    if !self.sm.is_valid(a as u64) {
                        return Err(format!("node {nid} at {a} is not valid in the SIT"));
                    }
                }
            }
            for o in 0..self.files[&ino].size_blocks {
                if let Some(slot) = self.nm.probe(ino, o) {
                    let a = self.nm.get_addr(slot) as u64;
                    if a != NULL_ADDR as u64 {
                        live += 1;
                        if !self.sm.is_valid(a) {
                            return Err(format!("inode {ino} block {o} at {a} is not valid in the SIT"));
                        }
                        if self.owner.kept() {
                            let own = self.owner.get(self.main_index(a));
                            if own != SsaEntry::data(slot) {
                                return Err(format!("block {a}: SSA owner {own:?} is not {slot:?}"));
                            }
                        }
                    }
                }
            }
        }
        if live != self.sm.valid_blocks_total() {
            return Err(format!("{live} live blocks reachable but the SIT counts {}", self.sm.valid_blocks_total()));
        }
        Ok(())
    }

    pub fn pending_discard_count(&self) -> usize {
        self.pending_discards.len()
    }
}

impl<D: BlockDevice> super::dirty_balance::BufferedWriteback for F2fs<D> {
    fn page_cache(&mut self) -> &mut PageCache {
        &mut self.cache
    }
    fn config(&self) -> &FsConfig {
        &self.cfg
    }
    fn writeback(&mut self, now: SimTime, pages: usize) -> Result<SimTime, FsError> {
        F2fs::writeback(self, now, pages)
    }
    /// Wakes the flusher thread; the writer does not wait for it.
    fn start_background_writeback(&mut self, now: SimTime, _pages: usize) -> Result<(), FsError> {
        self.flush.queue(now, [], true);
        self.flusher_catch_up(now)
    }
    fn flusher_until(&mut self, now: SimTime) -> Result<(), FsError> {
        self.flusher_catch_up(now)
    }
}

impl<D: BlockDevice> FlushTarget for F2fs<D> {
    fn flusher_state(&mut self) -> &mut Flusher {
        &mut self.flush
    }
    fn flush_cache(&mut self) -> &mut PageCache {
        &mut self.cache
    }
    fn background_pct(&self) -> u32 {
        self.cfg.dirty_background_pct
    }
    /// One segment's worth at most: the kernel balances per page written
    /// back (f2fs_write_single_data_page -> f2fs_balance_fs), and a
    /// segment at a time keeps the free sections from running dry between
    /// two checks. The balance comes first, so the pages stay dirty while
    /// the thread runs foreground GC, as the kernel's next page does; the
    /// next chunk starts once this one's pages are submitted (placed under
    /// curseg_mutex and queued; the device I/O is not waited for).
    fn flush_chunk(&mut self, at: SimTime, ino: Ino, max: usize) -> Result<Chunk, FsError> {
        let s = self.balance_fs(at)?;
        let (dirty, end) = self.cache.take_dirty_sweep(ino, max.min(BLOCKS_PER_SEG as usize), s);
        if dirty.is_empty() {
            return Ok(Chunk { end, ..Chunk::none(s) });
        }
        let pages: Vec<(u64, Fingerprint)> = dirty.into_iter().map(|(o, fp)| (o, Fingerprint(fp))).collect();
        match self.write_back_chunk(s, ino, &pages, WriteKind::Writeback) {
            Ok(c) => Ok(Chunk { balanced: s, submitted: c.submitted, pages: pages.len(), done: c.done, end }),
            Err(e) => {
                // The pages not written stay dirty (redirty_page_for_writepage).
                for &(off, fp) in &pages {
                    self.cache.redirty(ino, off, fp.0, s);
                }
                Err(e)
            }
        }
    }
    fn flushed(&mut self, done: SimTime) {
        self.d2fs_after_op(done);
    }
}
