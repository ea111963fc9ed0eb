//! The storage engine's I/O: a model of MySQL InnoDB's (8.0 defaults), not
//! MySQL. Pages are 16 KiB (four filesystem blocks). What it does on the
//! filesystem, and where in InnoDB that comes from:
//!
//! - **Data files** (file-per-table tablespaces) are read and written with
//!   O_DIRECT (`innodb_flush_method = O_DIRECT`) and fsynced after writes
//!   (`fil_flush`), since O_DIRECT does not make the file's metadata durable.
//! - **Redo log**: `innodb_log_files_in_group` files of
//!   `innodb_log_file_size`, written circularly through the page cache in
//!   4 KiB units (the last partial unit is rewritten by the next write) and
//!   fsynced. With `innodb_flush_log_at_trx_commit = 1` a commit waits until
//!   its LSN is durable; commits arriving while a flush is under way wait for
//!   it and are then covered together by the next one (group commit,
//!   `log_write_up_to`). Values 2 and 0 write per commit / once a second and
//!   fsync once a second.
//! - **Doublewrite** (`innodb_doublewrite = ON`, MySQL before 8.0.20): a
//!   flush batch of at most 120 pages (`srv_doublewrite_batch_size`) is first
//!   written sequentially to the doublewrite area in the system tablespace
//!   (pages 64-191 of ibdata1) and fsynced, then each page to its home, then
//!   the data files are fsynced (`buf_dblwr_flush_buffered_writes`). A
//!   single-page flush uses its own slot and syncs both writes.
//! - **Write-ahead**: a page is written only after the log is durable up to
//!   its newest change (`buf_flush_write_block_low`).
//! - **Free pages**: a thread needing a frame evicts a clean page from the
//!   last 100 of the LRU list, else writes the tail page itself
//!   (`buf_LRU_get_free_block`, `buf_flush_single_page_from_LRU`).
//! - **Page cleaner**, once a second (`buf_flush_page_cleaner_coordinator`):
//!   the LRU flush over `innodb_lru_scan_depth` tail pages (clean ones freed,
//!   dirty ones written and freed) until that many frames are free (and
//!   at once when a thread found no free frame, which wakes the cleaner);
//!   then the
//!   flush-list flush of `page_cleaner_flush_pages_recommendation` oldest
//!   pages (adaptive flushing from the dirty-page ratio, the redo fill and
//!   the LSN rate); then a checkpoint (the log header block, fsynced).
//! - **Checkpoint age**: above `max_modified_age_sync` (15/16 of the log
//!   margin) a modifying thread flushes the oldest pages itself until the
//!   age is back under it (`log_preflush_pool_modified_pages`); above the
//!   margin it also checkpoints.

use super::buffer_pool::{BufferPool, Lookup};
use crate::fs::{FsError, Ino, IoMode, Vfs};
use crate::metrics::ThroughputSeries;
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{SimDuration, SimTime};
use crate::workload::JobResult;
use std::collections::BTreeSet;

/// Filesystem blocks per 16 KiB page.
pub const BLOCKS_PER_PAGE: u64 = 4;
pub const PAGE_BYTES: u64 = 16384;
/// Pages a tablespace grows by at a time (one extent, `FSP_EXTENT_SIZE`).
const EXTENT_PAGES: u64 = 64;
/// The doublewrite area: ibdata1 pages 64 to 191 (`TRX_SYS_DOUBLEWRITE_BLOCK1/2`).
pub const DBLWR_FIRST_PAGE: u64 = 64;
pub const DBLWR_PAGES: u64 = 128;
/// `srv_doublewrite_batch_size`.
const DBLWR_BATCH: usize = 120;
/// `BUF_LRU_SEARCH_SCAN_THRESHOLD`: tail pages searched for a clean one
/// before a single-page flush.
const FREE_SCAN: usize = 100;
/// `innodb_flushing_avg_loops`.
const FLUSHING_AVG_LOOPS: u32 = 30;
/// `buf_flush_lsn_scan_factor`.
const LSN_SCAN_FACTOR: u64 = 3;

/// The engine's settings (MySQL option names without `innodb_`).
#[derive(Clone, Debug, PartialEq)]
pub struct InnoDbConfig {
    pub buffer_pool_pages: u32,
    pub log_file_bytes: u64,
    pub log_files: u32,
    pub io_capacity: u64,
    pub io_capacity_max: u64,
    pub max_dirty_pages_pct: f64,
    pub max_dirty_pages_pct_lwm: f64,
    pub adaptive_flushing_lwm: f64,
    pub lru_scan_depth: u32,
    pub old_blocks_pct: u32,
    pub old_blocks_time: SimDuration,
    pub doublewrite: bool,
    pub flush_log_at_trx_commit: u8,
}

/// One file the engine owns.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DbFile {
    pub name: String,
    pub ino: Ino,
    /// Pages the file holds (allocated, written or reserved).
    pub pages: u64,
}

/// Where each engine file is in `Engine::files`.
pub const IBDATA: usize = 0;
pub const FIRST_LOG: usize = 1;

/// Counters of the engine's work over the measured phase.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct InnoDbStats {
    pub buffer_pool_hits: u64,
    pub buffer_pool_misses: u64,
    pub pages_created: u64,
    /// Pages written by the page cleaner's flush-list flush.
    pub pages_flushed_list: u64,
    /// Pages written by the LRU flush (cleaner) to free frames.
    pub pages_flushed_lru: u64,
    /// Pages a user thread wrote to get a free frame.
    pub single_page_flushes: u64,
    /// Pages user threads wrote because the checkpoint age passed max_modified_age_sync.
    pub pages_flushed_sync: u64,
    /// Times a user thread stalled for that, and the simulated seconds it took.
    pub sync_flush_stalls: u64,
    pub sync_flush_s: f64,
    pub doublewrite_pages: u64,
    pub redo_bytes: u64,
    pub log_writes: u64,
    pub log_fsyncs: u64,
    pub commits: u64,
    pub checkpoints: u64,
    pub data_fsyncs: u64,
    pub max_checkpoint_age_bytes: u64,
}

/// A commit's outcome: durable at the instant, or wait until it and retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commit {
    Done(SimTime),
    Wait(SimTime),
}

pub struct Engine {
    pub cfg: InnoDbConfig,
    pub files: Vec<DbFile>,
    pub(super) pool: BufferPool,
    lsn: u64,
    /// Log bytes handed to the filesystem (write(2)) so far.
    written_lsn: u64,
    /// Durable LSN, as of the end of the last finished flush.
    flushed_lsn: u64,
    /// A log write/fsync under way: it ends at `.0` and covers LSN `.1`.
    log_busy: (SimTime, u64),
    checkpoint_lsn: u64,
    tag: u64,
    pub stats: InnoDbStats,
    pub job: JobResult,
    pub series: ThroughputSeries,
    // page_cleaner_flush_pages_recommendation's state.
    rec_iter: u32,
    rec_sum_pages: u64,
    rec_prev: (SimTime, u64),
    avg_page_rate: f64,
    lsn_avg_rate: f64,
    last_pages: u64,
    /// Pages the LRU flush wrote since the last cleaner round.
    lru_pages: u64,
    /// When a thread found no free frame and woke the page cleaner.
    wake_cleaner: Option<SimTime>,
}

fn page_key(file: usize, page: u64) -> u64 {
    ((file as u64) << 40) | page
}
fn key_file(key: u64) -> usize {
    (key >> 40) as usize
}
fn key_page(key: u64) -> u64 {
    key & ((1 << 40) - 1)
}

/// A page of table file `file` (an index into `Engine::files`).
pub fn page(file: usize, page: u64) -> u64 {
    page_key(file, page)
}

impl Engine {
    pub fn new(cfg: InnoDbConfig, files: Vec<DbFile>, job: JobResult, series: ThroughputSeries, tag: u64) -> Self {
        let pool = BufferPool::new(cfg.buffer_pool_pages, cfg.old_blocks_pct, cfg.old_blocks_time);
        Engine {
            cfg,
            files,
            pool,
            // LSNs start past 0 (0 means clean in the pool).
            lsn: 1,
            written_lsn: 1,
            flushed_lsn: 1,
            log_busy: (SimTime::ZERO, 1),
            checkpoint_lsn: 1,
            tag,
            stats: InnoDbStats::default(),
            job,
            series,
            rec_iter: 0,
            rec_sum_pages: 0,
            rec_prev: (SimTime::ZERO, 0),
            avg_page_rate: 0.0,
            lsn_avg_rate: 0.0,
            last_pages: 0,
            lru_pages: 0,
            wake_cleaner: None,
        }
    }

    /// The redo log's usable bytes (`log_group_capacity`).
    fn log_capacity(&self) -> u64 {
        // Each file's first 2 KiB are its header; lfslab keeps the first
        // 4 KiB block of each file for it.
        (self.cfg.log_file_bytes - 4096) * self.cfg.log_files as u64
    }
    /// `log_calc_max_ages`: the margin, and the async/sync preflush ages.
    fn max_ages(&self) -> (u64, u64, u64) {
        let cap = self.log_capacity();
        let margin = cap - cap / 10;
        (margin, margin - margin / 8, margin - margin / 16)
    }

    fn data(&mut self, n: u64) -> Vec<Fingerprint> {
        self.tag = self.tag.wrapping_add(1);
        (0..n).map(|i| DataTag(self.tag).block(i)).collect()
    }

    fn record_read(&mut self, start: SimTime, done: SimTime, bytes: u64) {
        self.job.read.record(bytes, done - start);
        self.series.record_io(done, bytes, 0);
        self.job.end = self.job.end.max(done);
    }
    fn record_write(&mut self, start: SimTime, done: SimTime, bytes: u64) {
        self.job.write.record(bytes, done - start);
        self.series.record_io(done, 0, bytes);
        self.job.end = self.job.end.max(done);
    }
    fn fsync<V: Vfs>(&mut self, fs: &mut V, t: SimTime, file: usize) -> Result<SimTime, FsError> {
        let done = fs.fsync(t, self.files[file].ino, false)?;
        self.job.sync.record(0, done - t);
        self.job.end = self.job.end.max(done);
        Ok(done)
    }

    /// Grow `file` by whole extents so that `page` exists (fallocate, as
    /// `fsp_try_extend_data_file` does where the filesystem supports it).
    fn extend<V: Vfs>(&mut self, fs: &mut V, t: SimTime, file: usize, page: u64) -> Result<SimTime, FsError> {
        let have = self.files[file].pages;
        if page < have {
            return Ok(t);
        }
        let to = (page + 1).div_ceil(EXTENT_PAGES) * EXTENT_PAGES;
        let ino = self.files[file].ino;
        let done = fs.fallocate(t, ino, have * BLOCKS_PER_PAGE, (to - have) * BLOCKS_PER_PAGE, false)?;
        self.files[file].pages = to;
        Ok(done)
    }

    // ---- the redo log

    /// Hand the log buffer to the filesystem and, if `sync`, fsync it:
    /// writes the 4 KiB units from the one holding `written_lsn` (rewritten
    /// when partial) to the one holding `lsn`. Returns when it is done.
    fn log_io<V: Vfs>(&mut self, fs: &mut V, t: SimTime, sync: bool) -> Result<SimTime, FsError> {
        let per_file = self.cfg.log_file_bytes / 4096 - 1;
        let cap_blocks = per_file * self.cfg.log_files as u64;
        let mut done = t;
        let mut touched = [false; 64];
        if self.lsn > self.written_lsn {
            let (first, last) = (self.written_lsn / 4096, (self.lsn - 1) / 4096);
            let mut b = first;
            while b <= last {
                let pos = b % cap_blocks;
                let (file, off) = ((pos / per_file) as usize, pos % per_file + 1);
                let n = (last - b + 1).min(per_file - (off - 1));
                let data = self.data(n);
                let f = FIRST_LOG + file;
                let d = fs.write(t, self.files[f].ino, off, &data, IoMode::Buffered)?;
                self.record_write(t, d, n * 4096);
                self.stats.log_writes += 1;
                done = done.max(d);
                touched[file.min(63)] = true;
                b += n;
            }
            self.stats.redo_bytes += self.lsn - self.written_lsn;
            self.written_lsn = self.lsn;
        }
        if sync {
            let at = done;
            for (file, _) in touched.iter().enumerate().filter(|(_, &w)| w) {
                done = done.max(self.fsync(fs, at, FIRST_LOG + file)?);
                self.stats.log_fsyncs += 1;
            }
        }
        Ok(done)
    }

    /// The durable LSN as seen at `t`.
    fn settle_log(&mut self, t: SimTime) {
        if t >= self.log_busy.0 {
            self.flushed_lsn = self.flushed_lsn.max(self.log_busy.1);
        }
    }

    /// Make the log durable up to `lsn` before `t` goes on (a page write's
    /// write-ahead rule, a sync checkpoint): waits for a flush under way and
    /// starts one if that does not cover it.
    fn ensure_log<V: Vfs>(&mut self, fs: &mut V, t: SimTime, lsn: u64) -> Result<SimTime, FsError> {
        self.settle_log(t);
        if lsn <= self.flushed_lsn {
            return Ok(t);
        }
        if lsn <= self.log_busy.1 {
            return Ok(self.log_busy.0.max(t));
        }
        let start = t.max(self.log_busy.0);
        self.settle_log(start);
        let covers = self.lsn;
        let done = self.log_io(fs, start, true)?;
        self.log_busy = (done, covers);
        Ok(done)
    }

    /// Commit a transaction whose last change is at `lsn`.
    pub fn commit<V: Vfs>(&mut self, fs: &mut V, t: SimTime, lsn: u64) -> Result<Commit, FsError> {
        self.settle_log(t);
        if lsn <= self.flushed_lsn || self.cfg.flush_log_at_trx_commit == 0 {
            self.stats.commits += 1;
            return Ok(Commit::Done(t));
        }
        if t < self.log_busy.0 {
            if lsn <= self.log_busy.1 {
                self.stats.commits += 1;
                return Ok(Commit::Done(self.log_busy.0));
            }
            // The flush under way started before this commit's log: the
            // next one, led by the first waiter, covers it.
            return Ok(Commit::Wait(self.log_busy.0));
        }
        let sync = self.cfg.flush_log_at_trx_commit == 1;
        let covers = self.lsn;
        let done = self.log_io(fs, t, sync)?;
        if sync {
            self.log_busy = (done, covers);
        }
        self.stats.commits += 1;
        Ok(Commit::Done(done))
    }

    // ---- pages

    /// Read or find page `key`; returns its frame and when it is available.
    pub fn access<V: Vfs>(&mut self, fs: &mut V, t: SimTime, key: u64) -> Result<(u32, SimTime), FsError> {
        if let Lookup::Hit(f) = self.pool.get(key, t) {
            self.stats.buffer_pool_hits += 1;
            return Ok((f, t));
        }
        self.stats.buffer_pool_misses += 1;
        let t = self.make_free(fs, t)?;
        let (file, pg) = (key_file(key), key_page(key));
        assert!(pg < self.files[file].pages, "page {pg} of {} read past its end ({} pages)", self.files[file].name, self.files[file].pages);
        let done = fs.read(t, self.files[file].ino, pg * BLOCKS_PER_PAGE, BLOCKS_PER_PAGE, IoMode::Direct)?;
        self.record_read(t, done, PAGE_BYTES);
        Ok((self.pool.insert(key, done), done))
    }

    /// A new page (`buf_page_create`): no read; the file grows if needed.
    pub fn create<V: Vfs>(&mut self, fs: &mut V, t: SimTime, key: u64) -> Result<(u32, SimTime), FsError> {
        if let Lookup::Hit(f) = self.pool.get(key, t) {
            return Ok((f, t));
        }
        let t = self.extend(fs, t, key_file(key), key_page(key))?;
        let t = self.make_free(fs, t)?;
        self.stats.pages_created += 1;
        Ok((self.pool.insert(key, t), t))
    }

    /// Change frame `f`, logging `redo` bytes; returns the change's LSN.
    /// `log_free_check` first: past the sync preflush age the caller
    /// flushes the oldest pages itself (the time returned).
    pub fn modify<V: Vfs>(&mut self, fs: &mut V, t: SimTime, f: u32, redo: u64) -> Result<(u64, SimTime), FsError> {
        let t = self.log_free_check(fs, t)?;
        self.lsn += redo;
        self.pool.mark_dirty(f, self.lsn);
        Ok((self.lsn, t))
    }

    fn checkpoint_age(&self) -> u64 {
        self.lsn - self.pool.oldest_modification().unwrap_or(self.lsn)
    }

    /// `log_free_check` / `log_checkpoint_margin`.
    fn log_free_check<V: Vfs>(&mut self, fs: &mut V, t: SimTime) -> Result<SimTime, FsError> {
        let (margin, _, sync_age) = self.max_ages();
        let age = self.checkpoint_age();
        self.stats.max_checkpoint_age_bytes = self.stats.max_checkpoint_age_bytes.max(age);
        let mut done = t;
        if age > sync_age {
            // Flush until the oldest change is within max_modified_age_sync.
            let target = self.lsn - sync_age;
            let mut frames = Vec::new();
            for (l, f) in self.pool.flush_list() {
                if l >= target {
                    break;
                }
                frames.push(f);
            }
            self.stats.sync_flush_stalls += 1;
            self.stats.pages_flushed_sync += frames.len() as u64;
            for batch in frames.chunks(DBLWR_BATCH) {
                done = self.write_pages(fs, done, batch, false)?;
            }
            self.stats.sync_flush_s += (done - t).as_secs_f64();
        }
        if self.lsn - self.checkpoint_lsn > margin {
            done = self.checkpoint(fs, done)?;
        }
        Ok(done)
    }

    /// Get a free frame (`buf_LRU_get_free_block`).
    fn make_free<V: Vfs>(&mut self, fs: &mut V, t: SimTime) -> Result<SimTime, FsError> {
        if self.pool.free_len() > 0 {
            return Ok(t);
        }
        if let Some(f) = self.pool.clean_near_tail(FREE_SCAN) {
            self.pool.evict(f);
            return Ok(t);
        }
        // os_event_set(buf_flush_event): the page cleaner runs an LRU batch
        // now instead of at its next second; this thread still writes one
        // page itself (buf_flush_single_page_from_LRU).
        self.wake_cleaner.get_or_insert(t);
        let f = self.pool.tail().expect("a full pool has an LRU list");
        self.stats.single_page_flushes += 1;
        let done = self.write_pages(fs, t, &[f], true)?;
        self.pool.evict(f);
        Ok(done)
    }

    /// Write dirty frames home through the doublewrite buffer, then mark
    /// them clean. `single`: a user thread's single-page flush.
    fn write_pages<V: Vfs>(&mut self, fs: &mut V, t: SimTime, frames: &[u32], single: bool) -> Result<SimTime, FsError> {
        debug_assert!(frames.len() <= DBLWR_BATCH);
        let newest = frames.iter().map(|&f| self.pool.newest_mod(f)).max().unwrap_or(0);
        let mut t = self.ensure_log(fs, t, newest)?;
        if self.cfg.doublewrite {
            let n = frames.len() as u64;
            let first = DBLWR_FIRST_PAGE + if single { DBLWR_BATCH as u64 } else { 0 };
            let data = self.data(n * BLOCKS_PER_PAGE);
            let d = fs.write(t, self.files[IBDATA].ino, first * BLOCKS_PER_PAGE, &data, IoMode::Direct)?;
            self.record_write(t, d, n * PAGE_BYTES);
            self.stats.doublewrite_pages += n;
            t = self.fsync(fs, d, IBDATA)?;
            self.stats.data_fsyncs += 1;
        }
        // Home writes go out together (asynchronous I/O), then each file is synced.
        let mut done = t;
        let mut files: BTreeSet<usize> = BTreeSet::new();
        for &f in frames {
            let key = self.pool.key(f);
            let (file, pg) = (key_file(key), key_page(key));
            let data = self.data(BLOCKS_PER_PAGE);
            let d = fs.write(t, self.files[file].ino, pg * BLOCKS_PER_PAGE, &data, IoMode::Direct)?;
            self.record_write(t, d, PAGE_BYTES);
            done = done.max(d);
            files.insert(file);
            self.pool.mark_clean(f);
        }
        let at = done;
        for file in files {
            done = done.max(self.fsync(fs, at, file)?);
            self.stats.data_fsyncs += 1;
        }
        Ok(done)
    }

    /// Write the checkpoint (`log_checkpoint`): the oldest change still in
    /// the pool, in the first log file's header block, fsynced.
    fn checkpoint<V: Vfs>(&mut self, fs: &mut V, t: SimTime) -> Result<SimTime, FsError> {
        let lsn = self.pool.oldest_modification().unwrap_or(self.lsn);
        if lsn <= self.checkpoint_lsn {
            return Ok(t);
        }
        // The checkpoint LSN must be durable in the log first.
        let t = self.ensure_log(fs, t, lsn)?;
        let data = self.data(1);
        let d = fs.write(t, self.files[FIRST_LOG].ino, 0, &data, IoMode::Buffered)?;
        self.record_write(t, d, 4096);
        let done = self.fsync(fs, d, FIRST_LOG)?;
        self.checkpoint_lsn = lsn;
        self.stats.checkpoints += 1;
        Ok(done)
    }

    /// `af_get_pct_for_dirty`.
    fn pct_for_dirty(&self) -> f64 {
        let dirty = self.pool.dirty_len() as f64 * 100.0 / self.pool.capacity() as f64;
        if dirty == 0.0 {
            0.0
        } else if self.cfg.max_dirty_pages_pct_lwm == 0.0 {
            if dirty >= self.cfg.max_dirty_pages_pct {
                100.0
            } else {
                0.0
            }
        } else if dirty >= self.cfg.max_dirty_pages_pct_lwm {
            dirty * 100.0 / (self.cfg.max_dirty_pages_pct + 1.0)
        } else {
            0.0
        }
    }

    /// `af_get_pct_for_lsn` (innodb_adaptive_flushing on).
    fn pct_for_lsn(&self, age: u64) -> f64 {
        let lwm = self.cfg.adaptive_flushing_lwm * self.log_capacity() as f64 / 100.0;
        if (age as f64) < lwm {
            return 0.0;
        }
        let max_async = self.max_ages().1 as f64;
        let factor = age as f64 * 100.0 / max_async;
        (self.cfg.io_capacity_max as f64 / self.cfg.io_capacity as f64) * (factor * factor.sqrt()) / 7.5
    }

    /// `page_cleaner_flush_pages_recommendation`: pages to flush this second.
    fn recommendation(&mut self, t: SimTime) -> u64 {
        let cur = self.lsn;
        if self.rec_prev.1 == 0 {
            self.rec_prev = (t, cur);
            return 0;
        }
        self.rec_sum_pages += self.last_pages;
        self.rec_iter += 1;
        if self.rec_iter >= FLUSHING_AVG_LOOPS {
            let secs = t.saturating_since(self.rec_prev.0).as_secs_f64().max(1.0);
            self.avg_page_rate = (self.rec_sum_pages as f64 / secs + self.avg_page_rate) / 2.0;
            let lsn_rate = (cur - self.rec_prev.1) as f64 / secs;
            self.lsn_avg_rate = (lsn_rate + self.lsn_avg_rate) / 2.0;
            self.rec_prev = (t, cur);
            self.rec_iter = 0;
            self.rec_sum_pages = 0;
        }
        let oldest = self.pool.oldest_modification().unwrap_or(cur);
        let age = cur - oldest;
        let pct = self.pct_for_dirty().max(self.pct_for_lsn(age));
        let target = oldest + (self.lsn_avg_rate as u64) * LSN_SCAN_FACTOR;
        let for_lsn = (self.pool.flush_list().take_while(|&(l, _)| l <= target).count() as u64 / LSN_SCAN_FACTOR).max(1);
        let pct_io = self.cfg.io_capacity as f64 * pct / 100.0;
        let n = ((pct_io + self.avg_page_rate + for_lsn as f64) / 3.0) as u64;
        n.min(self.cfg.io_capacity_max)
    }

    /// When a thread first woke the page cleaner since the last call.
    pub fn take_cleaner_wake(&mut self) -> Option<SimTime> {
        std::mem::take(&mut self.wake_cleaner)
    }

    /// The page cleaner's LRU flush (`buf_flush_LRU_list`): free clean
    /// tail pages and write dirty ones until `lru_scan_depth` frames are free.
    pub fn lru_flush<V: Vfs>(&mut self, fs: &mut V, t: SimTime) -> Result<SimTime, FsError> {
        let mut done = t;
        let depth = self.cfg.lru_scan_depth as usize;
        if self.pool.free_len() < depth {
            let mut dirty = Vec::new();
            for f in self.pool.lru_tail(depth) {
                if self.pool.free_len() + dirty.len() >= depth {
                    break;
                }
                if self.pool.is_dirty(f) {
                    dirty.push(f);
                } else {
                    self.pool.evict(f);
                }
            }
            for batch in dirty.chunks(DBLWR_BATCH) {
                done = self.write_pages(fs, done, batch, false)?;
                for &f in batch {
                    self.pool.evict(f);
                }
            }
            self.lru_pages += dirty.len() as u64;
            self.stats.pages_flushed_lru += dirty.len() as u64;
        }
        Ok(done)
    }

    /// The page cleaner's once-a-second round: the flush-list flush, the
    /// log flush commits left unsynced, and a checkpoint.
    pub fn page_cleaner<V: Vfs>(&mut self, fs: &mut V, t: SimTime) -> Result<SimTime, FsError> {
        let mut done = t;
        let lru_pages = std::mem::take(&mut self.lru_pages);
        let n = self.recommendation(t) as usize;
        let frames: Vec<u32> = self.pool.flush_list().take(n).map(|(_, f)| f).collect();
        for batch in frames.chunks(DBLWR_BATCH) {
            done = self.write_pages(fs, done, batch, false)?;
        }
        self.stats.pages_flushed_list += frames.len() as u64;
        self.last_pages = frames.len() as u64 + lru_pages;
        // Commits that did not sync: the once-a-second log flush.
        if self.cfg.flush_log_at_trx_commit != 1 && self.lsn > self.flushed_lsn {
            let lsn = self.lsn;
            done = self.ensure_log(fs, done, lsn)?;
        }
        done = self.checkpoint(fs, done)?;
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_round_trip() {
        let k = page(7, 123_456_789);
        assert_eq!((key_file(k), key_page(k)), (7, 123_456_789));
    }
}
