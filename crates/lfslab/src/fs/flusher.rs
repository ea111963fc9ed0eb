//! The flusher as a thread of its own (fs/fs-writeback.c `wb_workfn`): a
//! pass is a run of steps, each writing chunks of files, and the next step
//! starts when the thread is free again.
//!
//! A step runs when the simulation reaches its instant: every filesystem
//! entry point, the dirty throttle's pauses and the daemon tick first run
//! the steps already due (`run_until`). A step goes on chunk after chunk
//! until the thread blocks (a chunk's `balance_fs` ran foreground GC or
//! waited for another's round); the next step starts when that chunk's
//! pages are submitted. So
//! the application and the flusher interleave in time order, as the
//! kernel's threads do, and a pass whose chunks each run foreground GC no
//! longer books tens of seconds of locks at its start. Chunks that do not
//! block run in one step, as a call of the application runs whole, each
//! starting when the last one's pages were submitted (one thread: its
//! chunks never wait on each other's curseg_mutex).
//!
//! The work, as `wb_do_writeback` orders it:
//! * kupdate (`wb_check_old_data_flush`): every file first dirtied
//!   `dirty_expire` or longer ago, as many pages as it had dirty when the
//!   pass began, range-cyclic from where the last pass stopped to the
//!   file's end. A sweep that reaches the end with pages still dirty
//!   (dirtied behind it) requeues the file as newly dirtied
//!   (`requeue_inode` -> `redirty_tail_locked`, see
//!   `PageCache::take_dirty_sweep`): the file is next written a whole
//!   `dirty_expire` later, or by background writeback;
//! * background (`wb_check_background_flush`, or started by
//!   balance_dirty_pages through `wb_start_background_writeback`): the
//!   oldest-dirtied file's pages, a chunk at a time, while the dirty pages
//!   are above dirty_background_ratio (`wb_over_bg_thresh`, checked
//!   between chunks).
//!
//! Simplified: a file is written to its end before the next (the kernel
//! moves on after `writeback_chunk_size` and comes back); the device queue
//! is unbounded (blk-mq tags and wbt, which scales up to 3/4 of the queue
//! depth while no reads are delayed, never block the thread here).

use std::collections::VecDeque;

use super::f2fs::{FsError, Ino};
use crate::host::PageCache;
use crate::sim::SimTime;

/// The flusher thread's state: the work it owes and its next step.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Flusher {
    /// kupdate's expired files and the pages each still owes.
    kupdate: VecDeque<(Ino, usize)>,
    /// Background writeback asked for (runs after kupdate's files).
    background: bool,
    /// When the thread takes its next step; None while it sleeps.
    next: Option<SimTime>,
}

/// What the flusher needs of a filesystem.
pub(crate) trait FlushTarget {
    fn flusher_state(&mut self) -> &mut Flusher;
    fn flush_cache(&mut self) -> &mut PageCache;
    fn background_pct(&self) -> u32;
    /// Write back up to `max` dirty pages of `ino` (range-cyclic) as the
    /// flusher, starting at `at`; the filesystem takes at most its own
    /// chunk.
    fn flush_chunk(&mut self, at: SimTime, ino: Ino, max: usize) -> Result<Chunk, FsError>;
    /// A step's writes complete by `done`.
    fn flushed(&mut self, _done: SimTime) {}
}

impl Flusher {
    /// The thread sleeps: no work owed.
    pub(crate) fn is_idle(&self) -> bool {
        self.next.is_none()
    }

    /// Give the thread kupdate's expired files (with their dirty pages) and
    /// background work, from `at`. Work already owed goes first.
    pub(crate) fn queue(&mut self, at: SimTime, kupdate: impl IntoIterator<Item = (Ino, usize)>, background: bool) {
        self.kupdate.extend(kupdate.into_iter().filter(|&(_, n)| n > 0));
        self.background |= background;
        if self.next.is_none() && (background || !self.kupdate.is_empty()) {
            self.next = Some(at);
        }
    }

    /// Run every step due by `now`, in order. On an error the thread drops
    /// its work (the pages not written stay dirty) and the error is the
    /// caller's.
    pub(crate) fn run_until<F: FlushTarget>(fs: &mut F, now: SimTime) -> Result<(), FsError> {
        while let Some(at) = fs.flusher_state().next.filter(|&t| t <= now) {
            match Self::step(fs, at) {
                Ok(next) => fs.flusher_state().next = next,
                Err(e) => {
                    *fs.flusher_state() = Flusher::default();
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// One step at `at`: chunks of kupdate's files, then of the
    /// oldest-dirtied file while over the background threshold, until the
    /// thread blocks (a chunk's balance ends after the chunk's start:
    /// foreground GC, or a wait for another's round). Returns the next
    /// step's instant, None when the work is done.
    fn step<F: FlushTarget>(fs: &mut F, at: SimTime) -> Result<Option<SimTime>, FsError> {
        let mut done = at;
        let r = Self::chunks(fs, at, &mut done);
        fs.flushed(done);
        r
    }

    fn chunks<F: FlushTarget>(fs: &mut F, at: SimTime, done: &mut SimTime) -> Result<Option<SimTime>, FsError> {
        // The thread's clock: each chunk starts when the last one's pages
        // are submitted (one thread, so its chunks never wait on each other).
        let mut t = at;
        loop {
            let c = if let Some(&(ino, owed)) = fs.flusher_state().kupdate.front() {
                let c = if fs.flush_cache().has_dirty(ino) { fs.flush_chunk(t, ino, owed)? } else { Chunk::none(t) };
                let left = owed.saturating_sub(c.pages);
                let q = &mut fs.flusher_state().kupdate;
                // A sweep that reached the file's end requeued it with a
                // fresh dirtied_when: no longer expired, its turn is over.
                if c.pages == 0 || left == 0 || c.end {
                    q.pop_front();
                } else {
                    q[0].1 = left;
                }
                c
            } else if fs.flusher_state().background {
                let pct = fs.background_pct();
                let cache = fs.flush_cache();
                let next = if cache.over_background(pct) > 0 { cache.oldest_dirty_file() } else { None };
                let Some(ino) = next else {
                    fs.flusher_state().background = false;
                    continue;
                };
                let c = fs.flush_chunk(t, ino, usize::MAX)?;
                // An empty sweep to the end goes on from offset 0 (the
                // file was requeued; wb_writeback queues it again).
                if c.pages == 0 && !c.end {
                    fs.flusher_state().background = false;
                }
                c
            } else {
                return Ok(None);
            };
            *done = (*done).max(c.done);
            if c.pages == 0 {
                continue;
            }
            let blocked = c.balanced > t;
            t = c.submitted.max(c.balanced);
            if blocked {
                return Ok(Some(t));
            }
        }
    }
}

/// One chunk the flusher wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// When the chunk's balance (foreground GC, or a wait for another's
    /// round) let the thread go on; the chunk's start if it did not block.
    pub balanced: SimTime,
    /// When its pages were submitted: the thread's next chunk starts then.
    pub submitted: SimTime,
    pub pages: usize,
    /// When its writes complete.
    pub done: SimTime,
    /// The sweep reached the file's end (`PageCache::take_dirty_sweep`).
    pub end: bool,
}

impl Chunk {
    pub(crate) fn none(at: SimTime) -> Self {
        Chunk { balanced: at, submitted: at, pages: 0, done: at, end: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    /// A filesystem whose chunks are 2 pages; a chunk of file 1 blocks the
    /// thread for 1 ms (foreground GC), others do not.
    struct Fake {
        flush: Flusher,
        cache: PageCache,
        chunks: Vec<(SimTime, Ino, usize)>,
    }

    impl FlushTarget for Fake {
        fn flusher_state(&mut self) -> &mut Flusher {
            &mut self.flush
        }
        fn flush_cache(&mut self) -> &mut PageCache {
            &mut self.cache
        }
        fn background_pct(&self) -> u32 {
            10
        }
        fn flush_chunk(&mut self, at: SimTime, ino: Ino, max: usize) -> Result<Chunk, FsError> {
            let (pages, end) = self.cache.take_dirty_sweep(ino, max.min(2), at);
            let n = pages.len();
            self.chunks.push((at, ino, n));
            let balanced = if ino == 1 { at + SimDuration::from_ms(1) } else { at };
            let submitted = balanced + SimDuration::from_us(10);
            Ok(Chunk { balanced, submitted, pages: n, done: submitted, end })
        }
    }

    fn fake(pages: &[(Ino, u64)]) -> Fake {
        let mut cache = PageCache::new(40);
        for &(ino, n) in pages {
            for off in 0..n {
                cache.write(ino, off, 1, SimTime::ZERO);
            }
        }
        Fake { flush: Flusher::default(), cache, chunks: Vec::new() }
    }

    #[test]
    fn kupdate_goes_first_and_the_thread_yields_where_it_blocks() {
        // 6 + 6 dirty pages of 40: over the background threshold (4).
        let mut fs = fake(&[(1, 6), (2, 6)]);
        fs.flush.queue(SimTime::ZERO, [(2, 4)], true);
        Flusher::run_until(&mut fs, SimTime::ZERO).unwrap();
        // kupdate's 4 pages of file 2 in one step (its chunks do not block;
        // each starts when the last was submitted, 10 us later), then
        // background's first chunk of the oldest file (1), which blocks.
        let z = SimTime::ZERO;
        let us = |n| z + SimDuration::from_us(n);
        assert_eq!(fs.chunks, vec![(z, 2, 2), (us(10), 2, 2), (us(20), 1, 2)]);
        assert!(!fs.flush.is_idle());
        // Nothing more before the block ends; then the rest, down to 4 dirty.
        Flusher::run_until(&mut fs, us(1029)).unwrap();
        assert_eq!(fs.chunks.len(), 3);
        Flusher::run_until(&mut fs, z + SimDuration::from_secs(1)).unwrap();
        // The next step starts when the blocked chunk was submitted.
        assert_eq!(fs.chunks[3..], [(us(1030), 1, 2)]);
        assert!(fs.flush.is_idle());
        assert_eq!(fs.cache.dirty_count(), 4);
    }

    /// kupdate's sweep of a file ends at the file's end, even with pages
    /// owed: a page dirtied behind the cursor waits, and the file is
    /// requeued as dirtied at the sweep (requeue_inode -> redirty_tail).
    #[test]
    fn a_kupdate_sweep_stops_at_the_files_end_and_requeues_it() {
        let mut fs = fake(&[(2, 6)]);
        let z = SimTime::ZERO;
        fs.cache.take_dirty_sweep(2, 2, z); // an earlier pass wrote 0 and 1
        let t = z + SimDuration::from_secs(1);
        fs.cache.write(2, 0, 7, t); // behind the cursor
        fs.flush.queue(t, [(2, fs.cache.dirty_of(2))], false);
        Flusher::run_until(&mut fs, t).unwrap();
        let pages: usize = fs.chunks.iter().map(|c| c.2).sum();
        assert_eq!(pages, 4, "offsets 2 to 5, no wrap to 0: {:?}", fs.chunks);
        assert!(fs.flush.is_idle(), "the file's turn ended at its end");
        assert_eq!(fs.cache.dirty_of(2), 1);
        let swept = fs.chunks.last().unwrap().0;
        assert_eq!(fs.cache.dirty_files(), vec![(2, swept)], "requeued as dirtied at the sweep");
    }
}
