//! InnoDB's buffer pool as the I/O model needs it (storage/innobase/buf/
//! buf0lru.cc, buf0buf.cc): frames of 16 KiB pages, a free list, the LRU
//! list with its old sublist (midpoint insertion), and the flush list of
//! dirty pages in the order they were first modified.
//!
//! - A page read in is inserted at the head of the old sublist
//!   (`buf_LRU_add_block(old = true)`); the old sublist is kept at
//!   `innodb_old_blocks_pct` of the list (`buf_LRU_old_adjust_len`) once the
//!   list holds `BUF_LRU_OLD_MIN_LEN` (512) pages.
//! - An old page is made young on an access at least `innodb_old_blocks_time`
//!   after its first access (`buf_page_make_young_if_needed`); a young page
//!   only once it has drifted past a quarter of the young list
//!   (`buf_page_peek_if_young`, measured with `freed_page_clock`).
//! - The flush list is ordered by `oldest_modification` (an LSN).

use crate::slot_index::SlotIndex;
use crate::sim::{SimDuration, SimTime};
use std::collections::BTreeSet;

const NIL: u32 = u32::MAX;
/// `BUF_LRU_OLD_MIN_LEN`: no old sublist below this many pages.
const OLD_MIN_LEN: u32 = 512;
/// `BUF_LRU_OLD_TOLERANCE`: slack before the old sublist is re-balanced.
const OLD_TOLERANCE: u32 = 20;

#[derive(Clone, Copy)]
struct Frame {
    key: u64,
    prev: u32,
    next: u32,
    old: bool,
    in_lru: bool,
    first_access: SimTime,
    /// `freed_page_clock` when the page was last made young.
    clock: u64,
    /// LSN of the first unflushed change, 0 when clean.
    oldest_mod: u64,
    /// LSN of the last change.
    newest_mod: u64,
}

pub struct BufferPool {
    frames: Vec<Frame>,
    index: SlotIndex,
    free: Vec<u32>,
    head: u32,
    tail: u32,
    /// First frame of the old sublist, from the head; NIL when there is none.
    old_head: u32,
    len: u32,
    old_len: u32,
    old_pct: u32,
    old_time: SimDuration,
    /// Pages evicted so far (`buf_pool->freed_page_clock`).
    freed_clock: u64,
    flush: BTreeSet<(u64, u32)>,
}

/// What `get` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit(u32),
    Miss,
}

impl BufferPool {
    pub fn new(pages: u32, old_pct: u32, old_time: SimDuration) -> Self {
        assert!(pages >= 8, "a buffer pool of {pages} pages");
        let blank = Frame {
            key: 0,
            prev: NIL,
            next: NIL,
            old: false,
            in_lru: false,
            first_access: SimTime::ZERO,
            clock: 0,
            oldest_mod: 0,
            newest_mod: 0,
        };
        BufferPool {
            frames: vec![blank; pages as usize],
            index: SlotIndex::with_capacity(pages as usize),
            free: (0..pages).rev().collect(),
            head: NIL,
            tail: NIL,
            old_head: NIL,
            len: 0,
            old_len: 0,
            old_pct,
            old_time,
            freed_clock: 0,
            flush: BTreeSet::new(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.frames.len() as u32
    }
    pub fn free_len(&self) -> usize {
        self.free.len()
    }
    pub fn dirty_len(&self) -> usize {
        self.flush.len()
    }
    pub fn key(&self, f: u32) -> u64 {
        self.frames[f as usize].key
    }
    pub fn is_dirty(&self, f: u32) -> bool {
        self.frames[f as usize].oldest_mod != 0
    }
    pub fn newest_mod(&self, f: u32) -> u64 {
        self.frames[f as usize].newest_mod
    }
    /// `buf_pool_get_oldest_modification`: the flush list's first LSN.
    pub fn oldest_modification(&self) -> Option<u64> {
        self.flush.first().map(|&(l, _)| l)
    }
    /// Dirty frames, oldest modification first.
    pub fn flush_list(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.flush.iter().copied()
    }

    fn lookup(&self, key: u64) -> Option<u32> {
        let frames = &self.frames;
        self.index.get(key, |f| frames[f as usize].key)
    }

    /// Find `key` and record the access at `now` (making it young if due).
    pub fn get(&mut self, key: u64, now: SimTime) -> Lookup {
        let Some(f) = self.lookup(key) else { return Lookup::Miss };
        let fr = self.frames[f as usize];
        let young_due = if fr.old {
            now.saturating_since(fr.first_access) >= self.old_time
        } else {
            // Young pages near the head stay where they are.
            let quarter = self.len.saturating_sub(self.old_len) as u64 / 4;
            self.freed_clock >= fr.clock + quarter
        };
        if young_due && self.head != f {
            self.unlink(f);
            self.push_head(f);
            self.adjust_old();
        }
        Lookup::Hit(f)
    }

    /// Put `key` into a free frame (the caller made one free), at the head
    /// of the old sublist. Panics if there is none: a caller bug.
    pub fn insert(&mut self, key: u64, now: SimTime) -> u32 {
        debug_assert!(self.lookup(key).is_none(), "page {key:#x} inserted twice");
        let f = self.free.pop().expect("insert() needs a free frame: call make_free first");
        let fr = &mut self.frames[f as usize];
        fr.key = key;
        fr.first_access = now;
        fr.oldest_mod = 0;
        fr.newest_mod = 0;
        let frames = &self.frames;
        self.index.insert(key, f, |g| frames[g as usize].key);
        if self.old_head == NIL {
            self.push_head(f);
        } else {
            // Link before old_head: it becomes the old sublist's first page.
            let at = self.old_head;
            let prev = self.frames[at as usize].prev;
            let fr = &mut self.frames[f as usize];
            fr.prev = prev;
            fr.next = at;
            fr.in_lru = true;
            fr.old = true;
            self.frames[at as usize].prev = f;
            if prev == NIL {
                self.head = f;
            } else {
                self.frames[prev as usize].next = f;
            }
            self.len += 1;
            self.old_len += 1;
            self.old_head = f;
        }
        self.adjust_old();
        f
    }

    /// Record a change at `lsn` (the mini-transaction's end LSN).
    pub fn mark_dirty(&mut self, f: u32, lsn: u64) {
        let fr = &mut self.frames[f as usize];
        if fr.oldest_mod == 0 {
            fr.oldest_mod = lsn;
            self.flush.insert((lsn, f));
        }
        fr.newest_mod = lsn;
    }

    /// The page was written to its home: it leaves the flush list.
    pub fn mark_clean(&mut self, f: u32) {
        let fr = &mut self.frames[f as usize];
        if fr.oldest_mod != 0 {
            let removed = self.flush.remove(&(fr.oldest_mod, f));
            assert!(removed, "dirty frame {f} missing from the flush list");
            fr.oldest_mod = 0;
        }
    }

    /// Frames from the LRU tail towards the head, at most `depth`.
    pub fn lru_tail(&self, depth: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(depth.min(self.len as usize));
        let mut f = self.tail;
        while f != NIL && out.len() < depth {
            out.push(f);
            f = self.frames[f as usize].prev;
        }
        out
    }

    /// The first clean frame among the last `depth` of the LRU list.
    pub fn clean_near_tail(&self, depth: usize) -> Option<u32> {
        let mut f = self.tail;
        for _ in 0..depth {
            if f == NIL {
                return None;
            }
            if self.frames[f as usize].oldest_mod == 0 {
                return Some(f);
            }
            f = self.frames[f as usize].prev;
        }
        None
    }

    /// The least recently used frame.
    pub fn tail(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Evict the clean frame `f` to the free list.
    pub fn evict(&mut self, f: u32) {
        assert!(!self.is_dirty(f), "evicting dirty frame {f}");
        let key = self.frames[f as usize].key;
        let frames = &self.frames;
        let removed = self.index.remove(key, |g| frames[g as usize].key);
        assert_eq!(removed, Some(f), "frame {f} not indexed under its key");
        self.unlink(f);
        self.adjust_old();
        self.free.push(f);
        self.freed_clock += 1;
    }

    fn push_head(&mut self, f: u32) {
        let head = self.head;
        let fr = &mut self.frames[f as usize];
        fr.prev = NIL;
        fr.next = head;
        fr.in_lru = true;
        fr.old = false;
        fr.clock = self.freed_clock;
        if head == NIL {
            self.tail = f;
        } else {
            self.frames[head as usize].prev = f;
        }
        self.head = f;
        self.len += 1;
    }

    fn unlink(&mut self, f: u32) {
        let fr = self.frames[f as usize];
        debug_assert!(fr.in_lru, "frame {f} is not on the LRU list");
        if self.old_head == f {
            self.old_head = fr.next;
        }
        if fr.old {
            self.old_len -= 1;
        }
        match fr.prev {
            NIL => self.head = fr.next,
            p => self.frames[p as usize].next = fr.next,
        }
        match fr.next {
            NIL => self.tail = fr.prev,
            n => self.frames[n as usize].prev = fr.prev,
        }
        let fr = &mut self.frames[f as usize];
        fr.in_lru = false;
        fr.old = false;
        self.len -= 1;
    }

    /// `buf_LRU_old_adjust_len`: keep the old sublist at `old_pct` of the list.
    fn adjust_old(&mut self) {
        if self.len < OLD_MIN_LEN {
            // Dissolve the old sublist (`buf_LRU_old_init` waits for the minimum).
            let mut f = self.old_head;
            while f != NIL {
                self.frames[f as usize].old = false;
                f = self.frames[f as usize].next;
            }
            self.old_head = NIL;
            self.old_len = 0;
            return;
        }
        if self.old_head == NIL {
            self.old_head = self.tail;
            self.frames[self.tail as usize].old = true;
            self.old_len = 1;
        }
        let target = self.len as u64 * self.old_pct as u64 / 100;
        loop {
            let old = self.old_len as u64;
            if old + (OLD_TOLERANCE as u64) < target {
                let p = self.frames[self.old_head as usize].prev;
                if p == NIL {
                    break;
                }
                self.frames[p as usize].old = true;
                self.old_head = p;
                self.old_len += 1;
            } else if old > target + OLD_TOLERANCE as u64 && self.old_len > 1 {
                let h = self.old_head;
                self.frames[h as usize].old = false;
                self.old_head = self.frames[h as usize].next;
                self.old_len -= 1;
            } else {
                break;
            }
        }
    }

    /// Full consistency check (tests): list links, counts, index, flush list.
    #[cfg(test)]
    pub fn check(&self) {
        let (mut n, mut old, mut f, mut prev, mut seen_old) = (0u32, 0u32, self.head, NIL, false);
        while f != NIL {
            let fr = &self.frames[f as usize];
            assert_eq!(fr.prev, prev, "frame {f}: back link");
            assert!(fr.in_lru);
            if f == self.old_head {
                seen_old = true;
            }
            assert_eq!(fr.old, seen_old, "frame {f}: old flag against the old head");
            old += fr.old as u32;
            assert_eq!(self.lookup(fr.key), Some(f));
            n += 1;
            prev = f;
            f = fr.next;
        }
        assert_eq!((n, old), (self.len, self.old_len));
        assert_eq!(self.tail, prev);
        assert_eq!(n as usize + self.free.len(), self.frames.len(), "frames are on the LRU or free");
        let dirty = self.frames.iter().filter(|fr| fr.in_lru && fr.oldest_mod != 0).count();
        assert_eq!(dirty, self.flush.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(bp: &mut BufferPool, keys: std::ops::Range<u64>, t: SimTime) {
        for k in keys {
            if bp.free_len() == 0 {
                let v = bp.lru_tail(1)[0];
                bp.evict(v);
            }
            bp.insert(k, t);
        }
    }

    #[test]
    fn old_sublist_holds_its_share_and_scans_do_not_flush_the_young() {
        let mut bp = BufferPool::new(1000, 37, SimDuration::from_secs(1));
        fill(&mut bp, 0..1000, SimTime::ZERO);
        bp.check();
        assert!((bp.old_len as i64 - 370).abs() <= OLD_TOLERANCE as i64, "old {}", bp.old_len);
        // Pages 0..100 are accessed again after old_blocks_time: young.
        let later = SimTime::ZERO + SimDuration::from_secs(2);
        for k in 0..100 {
            assert!(matches!(bp.get(k, later), Lookup::Hit(_)));
        }
        bp.check();
        // A scan of 2000 new pages (each touched once) evicts only old pages.
        fill(&mut bp, 5000..7000, later);
        bp.check();
        for k in 0..100 {
            assert!(matches!(bp.get(k, later), Lookup::Hit(_)), "hot page {k} was evicted by a scan");
        }
        // A re-access within old_blocks_time leaves a page old.
        let f = match bp.get(6999, later) {
            Lookup::Hit(f) => f,
            Lookup::Miss => panic!("just inserted"),
        };
        assert!(bp.frames[f as usize].old);
    }

    #[test]
    fn flush_list_is_in_first_modification_order() {
        let mut bp = BufferPool::new(16, 37, SimDuration::from_secs(1));
        let a = bp.insert(1, SimTime::ZERO);
        let b = bp.insert(2, SimTime::ZERO);
        bp.mark_dirty(b, 10);
        bp.mark_dirty(a, 20);
        bp.mark_dirty(b, 30);
        assert_eq!(bp.flush_list().collect::<Vec<_>>(), vec![(10, b), (20, a)]);
        assert_eq!((bp.oldest_modification(), bp.newest_mod(b)), (Some(10), 30));
        bp.mark_clean(b);
        assert_eq!(bp.oldest_modification(), Some(20));
        bp.check();
    }
}
