//! balance_dirty_pages (mm/page-writeback.c), run after a buffered write
//! dirties pages; shared by every filesystem with a page cache.
//!
//! Two models, chosen by `host.background_writeback`:
//! * `threshold`, the kernel's (Linux 3.2 and later): once the dirty pages
//!   pass dirty_background_ratio the writer starts the flusher
//!   (wb_start_background_writeback) and does not wait for it; then, IO-less
//!   throttling: while dirty pages plus pages under writeback are above the
//!   control setpoint the writer sleeps until the flusher's writes complete
//!   (`PageCache::throttle_step`, a pause at a time; the flusher thread
//!   runs to each pause's end). It never writes back itself.
//! * `tick`, lfslab's earlier simplification: the flusher runs only on its
//!   5 s tick, and a writer past dirty_ratio writes back down to
//!   dirty_background_ratio itself and waits for it (balance_dirty_pages
//!   before Linux 3.2). Pages under writeback do not count.

use super::config::FsConfig;
use super::f2fs::FsError;
use crate::host::{PageCache, Throttle, MIN_WRITEBACK_PAGES};
use crate::sim::SimTime;

/// What balance_dirty_pages needs of a filesystem.
pub(crate) trait BufferedWriteback {
    fn page_cache(&mut self) -> &mut PageCache;
    fn config(&self) -> &FsConfig;
    /// Write back about `pages` dirty pages (the flusher's range-cyclic
    /// pass); returns when they complete.
    fn writeback(&mut self, now: SimTime, pages: usize) -> Result<SimTime, FsError>;
    /// wb_start_background_writeback: wake the flusher for background work
    /// of about `pages`. By default the pass runs whole at `now`.
    fn start_background_writeback(&mut self, now: SimTime, pages: usize) -> Result<(), FsError> {
        self.writeback(now, pages).map(|_| ())
    }
    /// Run the flusher thread's steps due by `now` (none by default: its
    /// passes run whole).
    fn flusher_until(&mut self, _now: SimTime) -> Result<(), FsError> {
        Ok(())
    }
}

/// Run after a writer dirtied pages at `t`; returns when the writer goes on.
pub(crate) fn balance_dirty_pages<F: BufferedWriteback>(fs: &mut F, t: SimTime) -> Result<SimTime, FsError> {
    let (background, limit) = (fs.config().dirty_background_pct, fs.config().dirty_pct);
    if !fs.config().writeback_on_threshold {
        return match fs.page_cache().over_dirty_limit(limit, background) {
            Some(pages) => fs.writeback(t, pages),
            None => Ok(t),
        };
    }
    // The flusher goes in chunks of MIN_WRITEBACK_PAGES (fs-writeback.c
    // writeback_chunk_size); the writer does not wait for it.
    let excess = fs.page_cache().over_background(background);
    if excess > 0 {
        fs.start_background_writeback(t, excess.max(MIN_WRITEBACK_PAGES))?;
    }
    let mut t = t;
    loop {
        fs.flusher_until(t)?;
        match fs.page_cache().throttle_step(t, limit, background) {
            Throttle::Go => return Ok(t),
            Throttle::Pause(until) => t = until,
            Throttle::Last(until) => return Ok(until),
        }
    }
}
