//! ext4 in ordered-journal mode, the in-place filesystem RM-IPU and many
//! other papers compare against (rm-ipu.txt §2, §4): block groups with
//! bitmaps (`layout`), extents (`extent`), a goal-based contiguous allocator
//! in the spirit of mballoc (`alloc`), delayed allocation at writeback,
//! in-place overwrites, and the jbd2 journal (`journal`): metadata is
//! journaled, data is written before the transaction that points at it
//! commits, a commit runs every 5 s (JBD2_DEFAULT_MAX_COMMIT_AGE) or on
//! fsync, with a cache flush before the commit block and FUA on it; freed
//! blocks are reusable (and discarded, mount option `discard`) once the
//! transaction that freed them commits.
//!
//! Time model as F2FS's: a call runs at its start instant and returns when
//! it completes for the caller; kjournald's timed commits and the flusher
//! run from `background`.
//!
//! Simplified, and said so in reports (`SIMPLIFICATIONS`): no htree
//! directories, no mballoc preallocation or request normalisation, no
//! revoke records, no fast commits, recovery that replays whole inode
//! images (`mount.rs`), timestamps at jiffy (4 ms) granularity as the
//! kernel's coarse clock gives, metadata blocks always cached.

mod alloc;
mod dir;
mod extent;
mod journal;
pub mod layout;
mod mount;

use self::alloc::BlockAlloc;
use self::dir::Ext4Dir;
use self::extent::ExtentMap;
use self::journal::Journal;
pub use self::layout::{Ext4Layout, BLOCKS_PER_GROUP};
pub use self::mount::Ext4MountReport;
use super::config::FsConfig;
use super::f2fs::{FsError, FsLockStats, FsStats, Ino};
use super::vfs::{FileStat, IoMode, Vfs};
use crate::host::PageCache;
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::oracle::{DataTag, Fingerprint, OracleStats};
use crate::sim::{mix64, SimDuration, SimTime};
use std::collections::BTreeMap;

/// What the ext4 model leaves out, for reports.
pub const SIMPLIFICATIONS: [&str; 3] = [
    "ext4: directories fill their blocks in order (no htree by name hash); the allocator is mballoc's goal / first-fit / best-fit order without preallocations, request normalisation or stripe alignment; no backup superblocks",
    "ext4: jbd2 writes no revoke records and no fast commits; the commit block's FUA is a write followed by a cache flush (the device model has no per-write durability); timestamps change once per 4 ms jiffy (the kernel's coarse clock at HZ=250); inode-table, bitmap and extent blocks are always cached, so only writes reach the device",
    "ext4: crash recovery (lfslab swarm, Ext4::crash_remount) replays committed transactions as whole inode images and costs no simulated time; the journal is internal, in the middle of the volume, sized by mke2fs's table",
];

/// `expected` of a block fallocate reserved and nobody wrote: reads as zeros.
const UNWRITTEN: u32 = 0x8000_0000;
/// The kernel's coarse clock tick (HZ=250): timestamps change at most this often.
const JIFFY_NS: u64 = 4_000_000;
/// ext4 block numbers and logical offsets are 32-bit.
const MAX_FILE_BLOCKS: u64 = 1 << 32;
/// mpage_map_and_submit_extent maps at most this many blocks per extent.
const MAX_WRITEPAGES_EXTENT_LEN: u64 = 2048;
/// Credits a handle reserves (an assumption: an upper bound of what the
/// operations lfslab models dirty in one handle, ext4_rename's two
/// directories and inodes with a new directory block being the largest;
/// ext4's own counts, EXT4_DATA_TRANS_BLOCKS and friends, are of the same
/// order). A larger operation (a truncate over many groups) commits when
/// the transaction fills, mid-operation, as ext4_journal_restart does.
const HANDLE_CREDITS: u64 = 64;
/// EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME: flex groups this large reserve their
/// first group for directories (ext4_inode_to_goal_block).
const FLEX_SIZE_DIR_ALLOC_SCHEME: u64 = 4;

/// ext4 mount and mkfs options lfslab models.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ext4Options {
    /// jbd2 commit interval (mount option commit=, default 5 s).
    pub commit_interval_s: f64,
    /// Mount option `discard`: freed extents are discarded when the
    /// transaction that freed them commits.
    pub discard: bool,
    /// Journal size in blocks; None: mke2fs's default for the volume.
    pub journal_blocks: Option<u64>,
}

impl Default for Ext4Options {
    fn default() -> Self {
        Ext4Options { commit_interval_s: 5.0, discard: true, journal_blocks: None }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Inode {
    size_blocks: u64,
    /// Oracle: expected fingerprint per block (0 = hole).
    expected: Vec<u32>,
    extents: ExtentMap,
    /// Extent-tree blocks (leaves, then index blocks), when the extents
    /// outgrow the inode.
    tree: Vec<u64>,
    parent: Ino,
    dir: Option<Box<Ext4Dir>>,
    opens: u32,
    orphan: bool,
    /// Last transaction that changed the inode (i_sync_tid), and the last
    /// that changed what finding its data needs (i_datasync_tid).
    sync_tid: u64,
    datasync_tid: u64,
    mtime_tick: u64,
}

impl Inode {
    fn new(parent: Ino, dir: bool) -> Self {
        Inode {
            size_blocks: 0,
            expected: Vec::new(),
            extents: ExtentMap::default(),
            tree: Vec::new(),
            parent,
            dir: dir.then(|| Box::new(Ext4Dir::new())),
            opens: 0,
            orphan: false,
            sync_tid: 0,
            datasync_tid: 0,
            mtime_tick: u64::MAX,
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Ext4<D: BlockDevice> {
    pub dev: D,
    cfg: FsConfig,
    opts: Ext4Options,
    layout: Ext4Layout,
    alloc: BlockAlloc,
    /// Blocks mkfs took (superblock, descriptors, tables, journal).
    mkfs_blocks: u64,
    /// Inode bitmap, one bit per inode number - 1.
    inode_bits: Vec<u64>,
    inodes_used: u64,
    inodes: BTreeMap<Ino, Inode>,
    root: Ino,
    journal: Journal,
    cache: PageCache,
    stats: FsStats,
    oracle: OracleStats,
    /// Blocks files hold or have reserved (data, delayed allocations,
    /// directory and extent-tree blocks), for ENOSPC.
    used_blocks: u64,
    meta_version: u64,
    scratch: Vec<Option<Fingerprint>>,
    /// Crash-recovery bookkeeping (`FsConfig::track_recovery`).
    recovery: Option<Box<mount::Ext4Recovery>>,
}

fn meta_fp(blk: u64, version: u64) -> Fingerprint {
    DataTag(mix64(0xe474 ^ mix64(blk ^ mix64(version)))).block(0)
}

impl<D: BlockDevice> Ext4<D> {
    /// A volume with mkfs's metadata and nothing else: every other block
    /// free, inodes 1..10 reserved (EXT4_GOOD_OLD_FIRST_INO), an empty
    /// journal. `format` adds the root; a crash mount, what it replays.
    fn empty(dev: D, cfg: FsConfig, opts: Ext4Options, layout: Ext4Layout, stats: FsStats, oracle: OracleStats) -> Self {
        let mut alloc = BlockAlloc::default();
        alloc.free(0, layout.blocks);
        let mut mkfs_blocks = 0;
        for (s, l) in layout.metadata_ranges() {
            alloc.take(s, l);
            mkfs_blocks += l;
        }
        let mut fs = Ext4 {
            dev,
            cache: PageCache::new(cfg.page_cache_pages),
            cfg,
            opts,
            journal: Journal::new(layout.journal_start, layout.journal_blocks),
            inode_bits: vec![0; layout.max_inodes().div_ceil(64) as usize],
            layout,
            alloc,
            mkfs_blocks,
            inodes_used: 0,
            inodes: BTreeMap::new(),
            root: layout::ROOT_INO,
            stats,
            oracle,
            used_blocks: 0,
            meta_version: 0,
            scratch: Vec::new(),
            recovery: None,
        };
        for i in 1..layout::FIRST_INO {
            fs.set_inode_bit(i, true);
        }
        fs
    }

    /// mkfs.ext4 + mount on the whole of `dev`.
    pub fn format(dev: D, cfg: FsConfig) -> Result<Self, String> {
        let opts = cfg.ext4.clone().unwrap_or_default();
        let blocks = dev.capacity_blocks().min(MAX_FILE_BLOCKS);
        let layout = Ext4Layout::new(blocks, opts.journal_blocks)
            .map_err(|e| format!("ext4: a volume of {} blocks is too small for its metadata and journal", e.0))?;
        let mut fs = Self::empty(dev, cfg, opts, layout, FsStats::default(), OracleStats::default());
        let mut root = Inode::new(layout::ROOT_INO, true);
        let (b, _) = fs.alloc.alloc(fs.layout.data_start(0), 1).ok_or("ext4: no room for the root directory")?;
        root.extents.insert(0, b, 1, false);
        fs.used_blocks += 1;
        if fs.cfg.track_recovery {
            fs.recovery = Some(Box::new(mount::Ext4Recovery::formatted(layout::ROOT_INO, &root)));
        }
        fs.inodes.insert(layout::ROOT_INO, root);
        Ok(fs)
    }

    pub fn root(&self) -> Ino {
        self.root
    }
    pub fn stats(&self) -> &FsStats {
        &self.stats
    }
    pub fn oracle(&self) -> &OracleStats {
        &self.oracle
    }
    pub fn layout(&self) -> &Ext4Layout {
        &self.layout
    }
    pub fn options(&self) -> &Ext4Options {
        &self.opts
    }
    pub fn page_cache_stats(&self) -> crate::host::PageCacheStats {
        self.cache.stats.clone()
    }
    /// ext4 has no F2FS locks; the lock table stays empty.
    pub fn lock_stats(&self) -> FsLockStats {
        FsLockStats::default()
    }
    /// Blocks files may use: the volume less what mkfs took.
    pub fn user_blocks(&self) -> u64 {
        self.layout.blocks - self.mkfs_blocks
    }
    pub fn utilization_pct(&self) -> f64 {
        100.0 * self.used_blocks as f64 / self.user_blocks() as f64
    }
    pub fn free_blocks(&self) -> u64 {
        self.alloc.free_blocks()
    }
    /// Every inode, in order.
    pub fn files(&self) -> impl Iterator<Item = Ino> + '_ {
        self.inodes.keys().copied()
    }
    pub fn file_size_blocks(&self, ino: Ino) -> Option<u64> {
        self.inodes.get(&ino).map(|f| f.size_blocks)
    }
    /// Physical block of `off` of `ino` (None: a hole or unwritten).
    pub fn block_address(&self, ino: Ino, off: u64) -> Option<u64> {
        self.inodes.get(&ino)?.extents.lookup(off).filter(|&(_, u)| !u).map(|(p, _)| p)
    }
    /// Extents of a file (fragmentation, R1/R3).
    pub fn extent_count(&self, ino: Ino) -> Option<usize> {
        self.inodes.get(&ino).map(|f| f.extents.count())
    }

    fn cpu(&self, blocks: u64) -> SimDuration {
        SimDuration(self.cfg.costs.syscall_ns + self.cfg.costs.per_block_ns * blocks)
    }

    fn inode(&self, ino: Ino) -> Result<&Inode, FsError> {
        self.inodes.get(&ino).ok_or(FsError::NoSuchFile(ino))
    }

    fn set_inode_bit(&mut self, ino: Ino, used: bool) {
        let i = ino as usize - 1;
        let (w, b) = (i / 64, 1u64 << (i % 64));
        assert_eq!(self.inode_bits[w] & b != 0, !used, "ext4: inode {ino} bit already {}", if used { "set" } else { "clear" });
        self.inode_bits[w] ^= b;
        if used {
            self.inodes_used += 1;
        } else {
            self.inodes_used -= 1;
        }
    }

    // ---- jbd2 -------------------------------------------------------------

    /// start_this_handle: a handle needs log space (add_transaction_credits
    /// checkpoints when less than a transaction's worth is left) and a
    /// running transaction that is not full (a full one commits first).
    fn handle(&mut self, now: SimTime) -> SimTime {
        let mut t = now;
        // The handle's credits must fit the running transaction, or it
        // waits for a commit first, so an operation is never split.
        if self.journal.running.len() as u64 + HANDLE_CREDITS > self.journal.max_transaction() {
            t = self.commit(t);
        }
        let need = self.journal.max_transaction();
        if self.journal.space_left() < need {
            t = self.checkpoint_until(t, need);
        }
        t
    }

    /// A metadata block joins the running transaction. A transaction that
    /// reaches its size limit commits before the operation goes on (the
    /// handle restarts: ext4_journal_restart), so no commit ever asks the
    /// log for more than it holds.
    fn dirty(&mut self, blk: u64, now: SimTime) {
        self.journal.dirty(blk, now);
        if self.journal.running.len() as u64 >= self.journal.max_transaction() {
            self.commit(now);
        }
    }

    /// ext4_mark_inode_dirty within a handle; `datasync` when what finding
    /// the data needs changed (size, block mapping: ext4_update_inode_fsync_trans).
    fn dirty_inode(&mut self, ino: Ino, now: SimTime, datasync: bool) {
        let blk = self.layout.inode_block(ino);
        self.dirty(blk, now);
        let tid = self.journal.tid;
        let f = self.inodes.get_mut(&ino).expect("dirtying a live inode");
        f.sync_tid = tid;
        if datasync {
            f.datasync_tid = tid;
        }
        self.note_tx_inode(ino);
    }

    /// file_update_time: mtime/ctime change once per jiffy.
    fn touch_times(&mut self, ino: Ino, now: SimTime) {
        let tick = now.ns() / JIFFY_NS;
        let f = self.inodes.get_mut(&ino).expect("live inode");
        if f.mtime_tick != tick {
            f.mtime_tick = tick;
            self.dirty_inode(ino, now, false);
        }
    }

    fn write_meta_blocks(&mut self, at: SimTime, blocks: &[u64]) -> SimTime {
        let mut w = Vec::with_capacity(blocks.len());
        for &b in blocks {
            self.meta_version += 1;
            w.push((b, meta_fp(b, self.meta_version)));
        }
        self.stats.meta_write_blocks += w.len() as u64;
        let mut content = Vec::new();
        let (done, cmds) = super::io::write_runs(&mut self.dev, at, &w, 0, SimDuration(self.cfg.costs.bio_ns), &mut content);
        self.stats.write_cmds += cmds;
        done
    }

    /// jbd2_journal_commit_transaction in ordered mode: wait for the data
    /// the transaction's allocations point at, write descriptors and
    /// metadata copies to the log, flush, write the commit block with FUA;
    /// then release (and discard) what the transaction freed. Returns when
    /// the commit and its callback are done.
    pub fn commit(&mut self, at: SimTime) -> SimTime {
        if !self.journal.has_work() {
            return at;
        }
        let mut t = at.max(self.journal.commit_done).max(self.journal.ordered_done);
        let need = Journal::commit_blocks(self.journal.running.len() as u64);
        if self.journal.space_left() < need {
            t = self.checkpoint_until(t, need);
        }
        // update_tail: only when a quarter of the log can be released.
        let update_tail = self.journal.reclaimable() >= self.journal.len / 4;
        let plan = self.journal.plan_commit();
        let mut log = Vec::new();
        for &(s, n) in &plan.log_runs {
            log.extend(s..s + n);
        }
        if update_tail {
            self.journal.advance_tail();
            log.push(self.journal.start);
        }
        let logged = self.write_meta_blocks(t, &log);
        let flushed = self.dev.flush(logged);
        let cb = self.write_meta_blocks(flushed, &[plan.commit_block]);
        let mut done = self.dev.flush(cb);
        self.stats.journal_commits += 1;
        self.stats.journal_write_blocks += log.len() as u64 + 1;
        // ext4_journal_commit_callback -> ext4_process_freed_data.
        let freed = std::mem::take(&mut self.journal.freed);
        let commit_done = done;
        for &(s, l) in &freed {
            self.alloc.free(s, l);
        }
        if self.opts.discard {
            for &(s, l) in &freed {
                self.stats.discard_cmds += 1;
                self.stats.discard_blocks += l;
                done = done.max(self.dev.discard(commit_done, Lpn(s), l as u32));
            }
        }
        self.journal.committed(&plan, done);
        self.note_commit();
        self.stats.checkpoints += 1;
        self.stats.checkpoint_time_ns += done.saturating_since(at).0;
        done
    }

    /// __jbd2_log_wait_for_space: checkpoint the oldest transactions (write
    /// their metadata in place) until `need` log blocks are free; each
    /// round first releases what the last one wrote (jbd2_cleanup_journal_tail:
    /// flush, then the journal superblock with FUA).
    fn checkpoint_until(&mut self, at: SimTime, need: u64) -> SimTime {
        let mut t = at;
        while self.journal.space_left() < need {
            if self.journal.reclaimable() > 0 {
                t = self.dev.flush(t);
                self.journal.advance_tail();
                let sb = self.journal.start;
                t = self.write_meta_blocks(t, &[sb]);
                t = self.dev.flush(t);
                self.stats.journal_write_blocks += 1;
                continue;
            }
            let Some((_, _, live)) = self.journal.take_oldest() else {
                panic!("ext4: the journal needs {need} blocks, has {} free and nothing to checkpoint", self.journal.space_left());
            };
            self.stats.meta_inplace_blocks += live.len() as u64;
            t = self.write_meta_blocks(t, &live);
        }
        t
    }

    /// The block device's flusher writes back metadata dirtied (committed)
    /// more than dirty_expire ago; the log tail moves at the next commit.
    fn writeback_metadata(&mut self, now: SimTime) -> SimTime {
        let expire = SimDuration::from_secs_f64(self.cfg.dirty_expire_s);
        let mut t = now;
        while self.journal.oldest_commit().is_some_and(|c| now.saturating_since(c) >= expire) {
            let (_, _, live) = self.journal.take_oldest().expect("checked");
            self.stats.meta_inplace_blocks += live.len() as u64;
            t = t.max(self.write_meta_blocks(now, &live));
        }
        t
    }

    /// sync_fs: write back every dirty page and commit.
    pub fn sync_fs(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        let mut t = now;
        let files: Vec<Ino> = self.cache.dirty_files().into_iter().map(|(i, _)| i).collect();
        for ino in files {
            t = t.max(self.writeback_file(now, ino)?);
        }
        let t = self.commit(t);
        let t = self.dev.flush(t);
        let all: Vec<Ino> = self.inodes.keys().copied().collect();
        for ino in all {
            self.note_durable(ino);
        }
        Ok(t)
    }

    // ---- blocks -------------------------------------------------------------

    /// Dirty the bitmap and descriptor blocks of every group [s, s + l) touches.
    fn dirty_groups(&mut self, s: u64, l: u64, now: SimTime) {
        let (g0, g1) = (self.layout.group_of(s), self.layout.group_of(s + l - 1));
        for g in g0..=g1 {
            let (bb, gd) = (self.layout.block_bitmap(g), self.layout.gdt_block(g));
            self.dirty(bb, now);
            self.dirty(gd, now);
        }
    }

    /// Allocate up to `want` contiguous blocks near `goal`. When free space
    /// is short only because freed blocks wait for a commit, commit and try
    /// again (ext4_should_retry_alloc).
    fn alloc_run(&mut self, goal: u64, want: u64, now: SimTime) -> Result<(u64, u64, SimTime), FsError> {
        let mut t = now;
        let got = match self.alloc.alloc(goal, want) {
            Some(r) => Some(r),
            None if !self.journal.freed.is_empty() => {
                t = self.commit(t);
                self.alloc.alloc(goal, want)
            }
            None => None,
        };
        let Some((s, l)) = got else {
            self.stats.out_of_space += 1;
            return Err(FsError::NoSpace);
        };
        self.dirty_groups(s, l, t);
        Ok((s, l, t))
    }

    /// ext4_free_blocks: the run is free once this transaction commits;
    /// metadata blocks leave the journal (jbd2_journal_forget).
    fn release(&mut self, s: u64, l: u64, metadata: bool, now: SimTime) {
        if metadata {
            for b in s..s + l {
                self.journal.forget(b);
            }
        }
        self.dirty_groups(s, l, now);
        self.journal.freed.push((s, l));
    }

    /// ext4_inode_to_goal_block with delalloc: the first block of the
    /// inode's group, the flex group's second group for regular files.
    fn inode_goal(&self, ino: Ino, is_dir: bool) -> u64 {
        let mut g = self.layout.group_of_ino(ino);
        if layout::GROUPS_PER_FLEX >= FLEX_SIZE_DIR_ALLOC_SCHEME {
            g &= !(layout::GROUPS_PER_FLEX - 1);
            if !is_dir {
                g += 1;
            }
        }
        g.min(self.layout.groups - 1) * BLOCKS_PER_GROUP
    }

    /// Keep the extent tree's block count in step with the extents, and
    /// dirty the block holding `lblk`'s extent (the inode while depth 0).
    fn extents_changed(&mut self, ino: Ino, lblk: u64, now: SimTime) -> Result<SimTime, FsError> {
        let mut t = now;
        let f = &self.inodes[&ino];
        let leaves = f.extents.leaves();
        // Four index entries fit in the inode; beyond that, index blocks.
        let need = leaves + if leaves > extent::EXTENTS_IN_INODE { leaves.div_ceil(extent::EXTENTS_PER_LEAF) } else { 0 };
        while self.inodes[&ino].tree.len() < need {
            let goal = self.inodes[&ino].extents.goal_for(lblk).unwrap_or_else(|| self.inode_goal(ino, false));
            let (b, _, t2) = self.alloc_run(goal, 1, t)?;
            t = t2;
            self.used_blocks += 1;
            self.inodes.get_mut(&ino).expect("live").tree.push(b);
        }
        while self.inodes[&ino].tree.len() > need {
            let b = self.inodes.get_mut(&ino).expect("live").tree.pop().expect("non-empty");
            self.used_blocks -= 1;
            self.release(b, 1, true, t);
        }
        let f = &self.inodes[&ino];
        if leaves > 0 {
            let leaf = f.tree[f.extents.leaf_of(lblk)];
            self.dirty(leaf, t);
        }
        self.dirty_inode(ino, t, true);
        Ok(t)
    }

    // ---- data -----------------------------------------------------------------

    fn check_write(&self, ino: Ino, off: u64, n: u64) -> Result<(), FsError> {
        let f = self.inode(ino)?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        if off + n > MAX_FILE_BLOCKS {
            return Err(FsError::TooLarge { ino, blocks: off + n });
        }
        let new = crate::oracle::file_content::new_blocks(&f.expected, off, n);
        if self.used_blocks + new > self.user_blocks() {
            return Err(FsError::NoSpace);
        }
        Ok(())
    }

    /// Application data reached the file: grow it, record the oracle.
    fn note_app_write(&mut self, ino: Ino, off: u64, content: &[Fingerprint]) {
        let n = content.len() as u64;
        self.stats.app_write_blocks += n;
        let f = self.inodes.get_mut(&ino).expect("checked");
        self.used_blocks += crate::oracle::file_content::record(&mut f.expected, off, content);
        if off + n > f.size_blocks {
            f.size_blocks = off + n;
        }
    }

    /// Give pages their blocks and write them: in place where mapped
    /// (converting unwritten extents), new runs near the goal where not
    /// (ext4_writepages -> mpage_map_and_submit_extent). Ordered mode: the
    /// running transaction's commit waits for these writes.
    fn write_pages(&mut self, now: SimTime, ino: Ino, pages: &[(u64, Fingerprint)]) -> Result<SimTime, FsError> {
        let mut t = self.handle(now);
        let mut w = Vec::with_capacity(pages.len());
        let mut changed = None;
        let mut i = 0;
        while i < pages.len() {
            let (off, fp) = pages[i];
            match self.inodes[&ino].extents.lookup(off) {
                Some((p, unwritten)) => {
                    if unwritten {
                        self.inodes.get_mut(&ino).expect("live").extents.mark_written(off, 1);
                        changed = Some(off);
                    }
                    w.push((p, fp));
                    i += 1;
                }
                None => {
                    // The run of consecutive unmapped pages from here.
                    let mut n = 1;
                    while i + n < pages.len()
                        && pages[i + n].0 == off + n as u64
                        && n < MAX_WRITEPAGES_EXTENT_LEN as usize
                        && self.inodes[&ino].extents.lookup(off + n as u64).is_none()
                    {
                        n += 1;
                    }
                    let mut done = 0;
                    while done < n {
                        let lblk = off + done as u64;
                        let goal = self.inodes[&ino].extents.goal_for(lblk).unwrap_or_else(|| self.inode_goal(ino, false));
                        let (s, l, t2) = match self.alloc_run(goal, (n - done) as u64, t) {
                            Ok(r) => r,
                            Err(e) => {
                                self.submit_data(t, &w);
                                return Err(e);
                            }
                        };
                        t = t2;
                        self.inodes.get_mut(&ino).expect("live").extents.insert(lblk, s, l, false);
                        for k in 0..l as usize {
                            w.push((s + k as u64, pages[i + done + k].1));
                        }
                        done += l as usize;
                        t = self.extents_changed(ino, lblk, t)?;
                    }
                    i += n;
                }
            }
        }
        if let Some(off) = changed {
            t = self.extents_changed(ino, off, t)?;
        }
        if self.recovery.is_some() {
            for &(off, fp) in pages {
                self.note_written(ino, off, fp.0);
            }
        }
        self.stats.data_write_blocks += pages.len() as u64;
        let done = self.submit_data(t, &w);
        self.journal.ordered_done = self.journal.ordered_done.max(done);
        Ok(done)
    }

    fn submit_data(&mut self, at: SimTime, w: &[(u64, Fingerprint)]) -> SimTime {
        let mut content = Vec::new();
        let (done, cmds) = super::io::write_runs(&mut self.dev, at, w, 0, SimDuration(self.cfg.costs.bio_ns), &mut content);
        self.stats.write_cmds += cmds;
        done
    }

    /// O_DIRECT write of `content` at block `off`.
    pub fn write(&mut self, now: SimTime, ino: Ino, off: u64, content: &[Fingerprint]) -> Result<SimTime, FsError> {
        let n = content.len() as u64;
        self.check_write(ino, off, n)?;
        let t = self.handle(now) + self.cpu(n);
        self.cache.drop_range(ino, off, off + n);
        let pages: Vec<(u64, Fingerprint)> = content.iter().enumerate().map(|(i, &fp)| (off + i as u64, fp)).collect();
        let grows = off + n > self.inodes[&ino].size_blocks;
        let done = self.write_pages(t, ino, &pages)?;
        self.note_app_write(ino, off, content);
        if grows {
            self.dirty_inode(ino, t, true);
        }
        self.touch_times(ino, t);
        Ok(done)
    }

    /// Buffered write: into the page cache (delayed allocation), then
    /// balance_dirty_pages (`fs::dirty_balance`).
    pub fn write_buffered(&mut self, now: SimTime, ino: Ino, off: u64, content: &[Fingerprint]) -> Result<SimTime, FsError> {
        let n = content.len() as u64;
        self.check_write(ino, off, n)?;
        let t = self.handle(now) + self.cpu(n);
        for (i, fp) in content.iter().enumerate() {
            self.cache.prefetch_run(ino, off + i as u64, off, off + n);
            self.cache.write(ino, off + i as u64, fp.0, t);
        }
        let grows = off + n > self.inodes[&ino].size_blocks;
        self.note_app_write(ino, off, content);
        if grows {
            self.dirty_inode(ino, t, false);
        }
        self.touch_times(ino, t);
        super::dirty_balance::balance_dirty_pages(self, t)
    }

    /// Write back about `pages` dirty pages, oldest-dirtied files first,
    /// each from where its last pass stopped (ext4_writepages with
    /// `range_cyclic`: from `writeback_index`, wrapping to 0).
    pub fn writeback(&mut self, now: SimTime, pages: usize) -> Result<SimTime, FsError> {
        let mut left = pages;
        let mut done = now;
        for (ino, _) in self.cache.dirty_files() {
            if left == 0 {
                break;
            }
            let dirty = self.cache.take_dirty_cyclic(ino, left);
            left = left.saturating_sub(dirty.len());
            done = done.max(self.write_dirty(now, ino, dirty)?);
        }
        Ok(done)
    }

    fn writeback_file(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let dirty = self.cache.take_dirty(ino, usize::MAX);
        self.write_dirty(now, ino, dirty)
    }

    fn write_dirty(&mut self, now: SimTime, ino: Ino, dirty: Vec<(u64, u32)>) -> Result<SimTime, FsError> {
        if dirty.is_empty() {
            return Ok(now);
        }
        let pages: Vec<(u64, Fingerprint)> = dirty.iter().map(|&(o, fp)| (o, Fingerprint(fp))).collect();
        match self.write_pages(now, ino, &pages) {
            Ok(t) => {
                self.cache.note_writeback(ino, now, t, t, pages.len());
                Ok(t)
            }
            Err(e) => {
                for &(off, fp) in &dirty {
                    self.cache.redirty(ino, off, fp, now);
                }
                Err(e)
            }
        }
    }

    fn read_file(&mut self, now: SimTime, ino: Ino, off: u64, n: u64, buffered: bool) -> Result<SimTime, FsError> {
        let f = self.inode(ino)?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        let size = f.size_blocks;
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
            match self.inodes[&ino].extents.lookup(o) {
                Some((p, false)) => {
                    addrs.push(p);
                    offs.push(o);
                }
                _ => self.check(ino, o, None),
            }
        }
        let mut out = Vec::with_capacity(addrs.len());
        let mut buf = std::mem::take(&mut self.scratch);
        let (done, cmds) = super::io::read_runs(&mut self.dev, t, &addrs, SimDuration(self.cfg.costs.bio_ns), &mut buf, &mut out);
        self.scratch = buf;
        self.stats.read_cmds += cmds;
        self.stats.app_read_cmds += cmds;
        self.stats.app_read_cmd_blocks += addrs.len() as u64;
        for (o, got) in offs.into_iter().zip(out) {
            self.check(ino, o, got);
            if let (true, Some(fp)) = (buffered, got) {
                self.cache.insert_clean(ino, o, fp.0);
            }
        }
        self.stats.app_read_blocks += n;
        Ok(done)
    }

    fn check(&mut self, ino: Ino, off: u64, got: Option<Fingerprint>) {
        let want = self.inodes[&ino].expected.get(off as usize).copied().filter(|&e| e != UNWRITTEN).unwrap_or(0);
        self.oracle.blocks_checked_count += 1;
        if got.map_or(0, |f| f.0) != want {
            self.oracle.mismatches_count += 1;
        }
    }

    /// ext4_sync_file: write the file's dirty pages, then commit the
    /// transaction that last changed the inode (i_datasync_tid for
    /// fdatasync) unless it already committed, in which case a cache flush
    /// makes the data durable (ext4_fsync_journal, needs_barrier).
    pub fn fsync(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError> {
        self.inode(ino)?;
        let t = now + self.cpu(0);
        let t = self.writeback_file(t, ino)?;
        let f = &self.inodes[&ino];
        let tid = if datasync { f.datasync_tid } else { f.sync_tid };
        let t = if tid > self.journal.committed { self.commit(t) } else { self.dev.flush(t) };
        self.note_durable(ino);
        Ok(t)
    }

    /// Truncate (or extend with a hole) to `blocks`.
    pub fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError> {
        let f = self.inode(ino)?;
        if f.dir.is_some() {
            return Err(FsError::IsDir(ino));
        }
        let shrink = blocks < f.size_blocks || f.expected.len() as u64 > blocks;
        let t = self.handle(now) + self.cpu(0);
        if shrink {
            // ext4_truncate runs with the inode on the orphan list
            // (ext4_orphan_add / ext4_orphan_del: the superblock's s_last_orphan).
            self.dirty(0, t);
            self.cache.drop_range(ino, blocks, u64::MAX);
            let old_len = self.inodes[&ino].expected.len() as u64;
            for off in blocks..old_len {
                self.note_written(ino, off, 0);
            }
            let f = self.inodes.get_mut(&ino).expect("checked");
            let runs = f.extents.remove_from(blocks);
            if f.expected.len() as u64 > blocks {
                let gone = f.expected[blocks as usize..].iter().filter(|&&e| e != 0).count() as u64;
                f.expected.truncate(blocks as usize);
                self.used_blocks -= gone;
            }
            for (s, l) in runs {
                self.release(s, l, false, t);
            }
            self.extents_changed(ino, blocks, t)?;
        }
        self.inodes.get_mut(&ino).expect("checked").size_blocks = blocks;
        self.dirty_inode(ino, t, true);
        self.touch_times(ino, t);
        Ok(t)
    }

    /// fallocate: unwritten extents over the range's holes, no data written.
    pub fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, n: u64, keep_size: bool) -> Result<SimTime, FsError> {
        self.check_write(ino, off, n)?;
        let mut t = self.handle(now) + self.cpu(n);
        let mut o = off;
        while o < off + n {
            if self.inodes[&ino].extents.lookup(o).is_some() {
                o += 1;
                continue;
            }
            let mut len = 1;
            while o + len < off + n && self.inodes[&ino].extents.lookup(o + len).is_none() {
                len += 1;
            }
            let mut done = 0;
            while done < len {
                let goal = self.inodes[&ino].extents.goal_for(o + done).unwrap_or_else(|| self.inode_goal(ino, false));
                let (s, l, t2) = self.alloc_run(goal, len - done, t)?;
                t = t2;
                self.inodes.get_mut(&ino).expect("live").extents.insert(o + done, s, l, true);
                t = self.extents_changed(ino, o + done, t)?;
                done += l;
            }
            o += len;
        }
        let f = self.inodes.get_mut(&ino).expect("checked");
        if f.expected.len() < (off + n) as usize {
            f.expected.resize((off + n) as usize, 0);
        }
        for e in &mut f.expected[off as usize..(off + n) as usize] {
            if *e == 0 {
                *e = UNWRITTEN;
                self.used_blocks += 1;
            }
        }
        if !keep_size && off + n > f.size_blocks {
            f.size_blocks = off + n;
        }
        self.dirty_inode(ino, t, true);
        Ok(t)
    }

    /// The flusher, kjournald's timer and the block device's metadata writeback.
    pub fn background(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        let expire = SimDuration::from_secs_f64(self.cfg.dirty_expire_s);
        let interval = SimDuration::from_secs_f64(self.cfg.dirty_writeback_s);
        let (excess, expired) = self.cache.flusher_work(now, self.cfg.dirty_background_pct, expire, interval);
        let mut t = if excess > 0 { self.writeback(now, excess)? } else { now };
        for ino in expired {
            // kupdate: range-cyclic, as many pages as are dirty.
            let dirty = self.cache.take_dirty_cyclic(ino, usize::MAX);
            t = t.max(self.write_dirty(now, ino, dirty)?);
        }
        let interval = SimDuration::from_secs_f64(self.opts.commit_interval_s);
        if self.journal.running_since.is_some_and(|s| now.saturating_since(s) >= interval) {
            t = t.max(self.commit(now));
        }
        t = t.max(self.writeback_metadata(now));
        Ok(t)
    }

    // ---- namespace --------------------------------------------------------------

    fn dir(&self, ino: Ino) -> Result<&Ext4Dir, FsError> {
        self.inode(ino)?.dir.as_deref().ok_or(FsError::NotDir(ino))
    }

    fn is_dir(&self, ino: Ino) -> bool {
        self.inodes.get(&ino).is_some_and(|f| f.dir.is_some())
    }

    /// A directory entry went into (or left) block `idx` of `dir`; a new
    /// block is allocated and mapped first.
    fn dir_block_changed(&mut self, dir: Ino, idx: u64, new: bool, now: SimTime) -> Result<SimTime, FsError> {
        let mut t = now;
        if new {
            let goal = self.inodes[&dir].extents.goal_for(idx).unwrap_or_else(|| self.inode_goal(dir, true));
            let (s, _, t2) = self.alloc_run(goal, 1, t)?;
            t = t2;
            self.used_blocks += 1;
            self.inodes.get_mut(&dir).expect("live").extents.insert(idx, s, 1, false);
            t = self.extents_changed(dir, idx, t)?;
        }
        let (p, _) = self.inodes[&dir].extents.lookup(idx).expect("directory block is mapped");
        self.dirty(p, t);
        self.dirty_inode(dir, t, new);
        self.touch_times(dir, t);
        Ok(t)
    }

    /// find_group_other: the parent's group if it has a free inode, else the
    /// next group that does (find_group_orlov spreads top-level
    /// directories; here a directory starts its search one flex group on).
    fn alloc_inode(&mut self, parent: Ino, is_dir: bool) -> Option<Ino> {
        let groups = self.layout.groups;
        let mut g0 = self.layout.group_of_ino(parent);
        if is_dir {
            g0 = (g0 + layout::GROUPS_PER_FLEX + self.inodes_used % groups) % groups;
        }
        for k in 0..groups {
            let g = (g0 + k) % groups;
            let first = (g * layout::INODES_PER_GROUP) as usize;
            let words = &self.inode_bits[first / 64..(first + layout::INODES_PER_GROUP as usize) / 64];
            if let Some((w, bits)) = words.iter().enumerate().find(|(_, &b)| b != u64::MAX) {
                let i = first + w * 64 + bits.trailing_ones() as usize;
                let ino = i as Ino + 1;
                self.set_inode_bit(ino, true);
                return Some(ino);
            }
        }
        None
    }

    fn new_inode_in(&mut self, now: SimTime, dir: Ino, name: &str, is_dir: bool) -> Result<(Ino, SimTime), FsError> {
        super::vfs::check_name(name)?;
        if self.dir(dir)?.lookup(name).is_some() {
            return Err(FsError::Exists(name.into()));
        }
        let mut t = self.handle(now) + self.cpu(1);
        let ino = self.alloc_inode(dir, is_dir).ok_or(FsError::OutOfNodeIds)?;
        let g = self.layout.group_of_ino(ino);
        let (ib, gd) = (self.layout.inode_bitmap(g), self.layout.gdt_block(g));
        self.dirty(ib, t);
        self.dirty(gd, t);
        self.inodes.insert(ino, Inode::new(dir, is_dir));
        self.dirty_inode(ino, t, true);
        if is_dir {
            // ext4_init_new_dir: block 0 with "." and "..".
            t = match self.dir_block_changed(ino, 0, true, t) {
                Ok(t) => t,
                Err(e) => {
                    self.inodes.remove(&ino);
                    self.set_inode_bit(ino, false);
                    return Err(e);
                }
            };
        }
        let (idx, new) = self.inodes.get_mut(&dir).and_then(|f| f.dir.as_mut()).expect("checked").add(name, ino);
        t = self.dir_block_changed(dir, idx, new, t)?;
        Ok((ino, t))
    }

    pub fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.new_inode_in(now, dir, name, false)
    }

    pub fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.new_inode_in(now, dir, name, true)
    }

    pub fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        let found = self.dir(dir)?.lookup(name);
        Ok((found, now + self.cpu(0)))
    }

    pub fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError> {
        let ino = self.dir(dir)?.lookup(name).ok_or_else(|| FsError::NotFound(name.into()))?;
        if self.dir(ino).is_ok_and(|d| !d.is_empty()) {
            return Err(FsError::NotEmpty(ino));
        }
        let t = self.handle(now) + self.cpu(1);
        let (_, idx) = self.inodes.get_mut(&dir).and_then(|f| f.dir.as_mut()).expect("checked").remove(name).expect("looked up");
        let t = self.dir_block_changed(dir, idx, false, t)?;
        self.drop_link(t, ino)
    }

    /// The last link is gone: evict now, or keep an orphan until the last
    /// close (ext4_orphan_add: the superblock's orphan list and the inode).
    fn drop_link(&mut self, t: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.dirty_inode(ino, t, false);
        let f = self.inodes.get_mut(&ino).expect("linked inode exists");
        if f.opens > 0 {
            f.orphan = true;
            self.dirty(0, t);
            return Ok(t);
        }
        self.evict(t, ino)
    }

    /// ext4_evict_inode: free the blocks, the tree, the inode.
    fn evict(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let t = self.handle(now) + self.cpu(1);
        self.cache.drop_range(ino, 0, u64::MAX);
        let mut f = self.inodes.remove(&ino).expect("evicting a live inode");
        let metadata = f.dir.is_some();
        for (s, l) in f.extents.remove_from(0) {
            self.release(s, l, metadata, t);
        }
        for b in std::mem::take(&mut f.tree) {
            self.release(b, 1, true, t);
            self.used_blocks -= 1;
        }
        let dir_blocks = f.dir.as_ref().map_or(0, |d| d.blocks());
        self.used_blocks -= f.expected.iter().filter(|&&e| e != 0).count() as u64 + dir_blocks;
        if f.orphan {
            self.dirty(0, t);
        }
        let g = self.layout.group_of_ino(ino);
        let (ib, gd, itb) = (self.layout.inode_bitmap(g), self.layout.gdt_block(g), self.layout.inode_block(ino));
        self.dirty(ib, t);
        self.dirty(gd, t);
        self.dirty(itb, t);
        self.set_inode_bit(ino, false);
        self.note_evicted(ino);
        Ok(t)
    }

    pub fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError> {
        super::vfs::check_name(to)?;
        let ino = self.dir(from_dir)?.lookup(from).ok_or_else(|| FsError::NotFound(from.into()))?;
        let target = self.dir(to_dir)?.lookup(to);
        if target == Some(ino) {
            return Ok(now + self.cpu(0));
        }
        if let Some(old) = target {
            super::vfs::check_rename_over(self.is_dir(ino), old, self.dir(old).ok().map(|d| d.is_empty()))?;
        }
        let mut t = self.handle(now) + self.cpu(2);
        let (idx, new) = {
            let d = self.inodes.get_mut(&to_dir).and_then(|f| f.dir.as_mut()).expect("checked");
            match target {
                Some(_) => (d.replace(to, ino).expect("looked up").1, false),
                None => d.add(to, ino),
            }
        };
        t = self.dir_block_changed(to_dir, idx, new, t)?;
        let (_, idx) = self.inodes.get_mut(&from_dir).and_then(|f| f.dir.as_mut()).expect("checked").remove(from).expect("looked up");
        t = self.dir_block_changed(from_dir, idx, false, t)?;
        self.inodes.get_mut(&ino).expect("renamed inode exists").parent = to_dir;
        // ctime, and a directory's ".." entry.
        self.dirty_inode(ino, t, false);
        if self.is_dir(ino) {
            let (p, _) = self.inodes[&ino].extents.lookup(0).expect("directory block 0");
            self.dirty(p, t);
        }
        match target {
            Some(old) => self.drop_link(t, old),
            None => Ok(t),
        }
    }

    pub fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.inodes.get_mut(&ino).ok_or(FsError::NoSuchFile(ino))?.opens += 1;
        Ok(now + self.cpu(0))
    }

    pub fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let t = now + self.cpu(0);
        let f = self.inodes.get_mut(&ino).ok_or(FsError::NoSuchFile(ino))?;
        assert!(f.opens > 0, "close of inode {ino} that is not open");
        f.opens -= 1;
        if f.opens == 0 && f.orphan {
            return self.evict(t, ino);
        }
        Ok(t)
    }

    pub fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        let f = self.inode(ino)?;
        let st = FileStat {
            ino,
            size_blocks: f.size_blocks,
            is_dir: f.dir.is_some(),
            entries: f.dir.as_ref().map_or(0, |d| d.len() as u64),
        };
        Ok((st, now + self.cpu(0)))
    }

    // ---- invariants ---------------------------------------------------------------

    /// Every block is exactly one of: mkfs metadata, a file's data, a
    /// directory or extent-tree block, free, or freed awaiting its commit.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut runs: Vec<(u64, u64, String)> = Vec::new();
        for (s, l) in self.layout.metadata_ranges() {
            runs.push((s, l, "mkfs metadata".into()));
        }
        for (&ino, f) in &self.inodes {
            for (lblk, e) in f.extents.iter() {
                runs.push((e.pblk, e.len, format!("inode {ino} block {lblk}")));
            }
            for &b in &f.tree {
                runs.push((b, 1, format!("inode {ino} extent tree")));
            }
        }
        for (s, l) in self.alloc.extents() {
            runs.push((s, l, "free".into()));
        }
        for &(s, l) in &self.journal.freed {
            runs.push((s, l, "freed, awaiting commit".into()));
        }
        runs.sort_by_key(|r| r.0);
        let mut next = 0;
        for (s, l, what) in &runs {
            if *s < next {
                return Err(format!("ext4: block {s} ({what}) is also used by an earlier owner"));
            }
            if *s > next {
                return Err(format!("ext4: blocks {next}..{s} belong to nobody"));
            }
            next = s + l;
        }
        if next != self.layout.blocks {
            return Err(format!("ext4: blocks {next}..{} belong to nobody", self.layout.blocks));
        }
        Ok(())
    }
}

impl<D: BlockDevice> Vfs for Ext4<D> {
    fn root(&self) -> Ino {
        self.root
    }
    fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        Ext4::lookup(self, now, dir, name)
    }
    fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        Ext4::create(self, now, dir, name)
    }
    fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        Ext4::mkdir(self, now, dir, name)
    }
    fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        Ext4::open(self, now, ino)
    }
    fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        Ext4::close(self, now, ino)
    }
    fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError> {
        Ext4::unlink(self, now, dir, name)
    }
    fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError> {
        Ext4::rename(self, now, from_dir, from, to_dir, to)
    }
    fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        Ext4::stat(self, now, ino)
    }
    fn read(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, mode: IoMode) -> Result<SimTime, FsError> {
        self.read_file(now, ino, off, blocks, mode == IoMode::Buffered)
    }
    fn write(&mut self, now: SimTime, ino: Ino, off: u64, data: &[Fingerprint], mode: IoMode) -> Result<SimTime, FsError> {
        match mode {
            IoMode::Direct => Ext4::write(self, now, ino, off, data),
            IoMode::Buffered => self.write_buffered(now, ino, off, data),
        }
    }
    fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, keep_size: bool) -> Result<SimTime, FsError> {
        Ext4::fallocate(self, now, ino, off, blocks, keep_size)
    }
    fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError> {
        Ext4::truncate(self, now, ino, blocks)
    }
    fn fsync(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError> {
        Ext4::fsync(self, now, ino, datasync)
    }
    fn background(&mut self, now: SimTime) -> Result<(), FsError> {
        Ext4::background(self, now).map(|_| ())
    }
    /// The page cache's lines, and with the first stage the oracle's entry
    /// that `check_write` reads (as F2FS's hint does).
    fn prefetch(&self, ino: Ino, off: u64, stage: u8) {
        self.cache.prefetch(ino, off, stage);
        if stage == 0 {
            if let Some(f) = self.inodes.get(&ino) {
                crate::prefetch::prefetch(&f.expected, off as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests;

impl<D: BlockDevice> super::dirty_balance::BufferedWriteback for Ext4<D> {
    fn page_cache(&mut self) -> &mut PageCache {
        &mut self.cache
    }
    fn config(&self) -> &FsConfig {
        &self.cfg
    }
    fn writeback(&mut self, now: SimTime, pages: usize) -> Result<SimTime, FsError> {
        Ext4::writeback(self, now, pages)
    }
}
