//! The page cache: 4 KiB pages of files, a memory limit, LRU eviction of
//! clean pages, and dirty-page tracking for writeback (Linux defaults:
//! dirty_background_ratio 10%, dirty_ratio 20%, dirty_expire 30 s,
//! dirty_writeback 5 s; Documentation/admin-guide/sysctl/vm.rst).
//!
//! Lookup is by hash, but nothing iterates the hash map: eviction follows
//! an ordered LRU list of clean pages (dirty pages leave it until written
//! back) and writeback an ordered per-file dirty set, so runs stay
//! deterministic and eviction is O(1) per page.

use crate::sim::SimTime;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

type Key = (u32, u64);

#[derive(Clone, Copy, Debug)]
struct Page {
    seq: u64,
    dirty: bool,
    fp: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PageCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub pages_dirtied: u64,
}

impl PageCacheStats {
    /// Counters accumulated since `earlier`.
    pub fn since(&self, earlier: &PageCacheStats) -> PageCacheStats {
        PageCacheStats {
            hits: self.hits - earlier.hits,
            misses: self.misses - earlier.misses,
            evictions: self.evictions - earlier.evictions,
            pages_dirtied: self.pages_dirtied - earlier.pages_dirtied,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PageCache {
    capacity: usize,
    pages: HashMap<Key, Page>,
    lru: BTreeMap<u64, Key>,
    next_seq: u64,
    /// Dirty page offsets per file, and when the file first became dirty.
    dirty: BTreeMap<u32, (SimTime, BTreeSet<u64>)>,
    dirty_count: usize,
    pub stats: PageCacheStats,
}

impl PageCache {
    pub fn new(capacity_pages: usize) -> Self {
        assert!(capacity_pages > 0, "page cache needs at least one page");
        PageCache {
            capacity: capacity_pages,
            pages: HashMap::new(),
            lru: BTreeMap::new(),
            next_seq: 0,
            dirty: BTreeMap::new(),
            dirty_count: 0,
            stats: PageCacheStats::default(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn len(&self) -> usize {
        self.pages.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }
    pub fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    /// Refresh a page's age; only clean pages live in the LRU list.
    fn touch(&mut self, key: Key) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let p = self.pages.get_mut(&key).expect("touching a cached page");
        let dirty = p.dirty;
        let old = std::mem::replace(&mut p.seq, seq);
        if !dirty {
            self.lru.remove(&old);
            self.lru.insert(seq, key);
        }
    }

    /// Content of a cached page (None on a miss); a hit refreshes its LRU age.
    pub fn get(&mut self, ino: u32, off: u64) -> Option<u64> {
        match self.pages.get(&(ino, off)).map(|p| p.fp) {
            Some(fp) => {
                self.stats.hits += 1;
                self.touch((ino, off));
                Some(fp)
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    /// Whether the page is cached and clean (its content equals the disk's).
    pub fn is_clean(&self, ino: u32, off: u64) -> bool {
        self.pages.get(&(ino, off)).is_some_and(|p| !p.dirty)
    }

    /// Content of a clean cached page, without touching LRU or statistics
    /// (for the FS cleaner, which must not look like application reuse).
    pub fn peek_clean(&self, ino: u32, off: u64) -> Option<u64> {
        self.pages.get(&(ino, off)).filter(|p| !p.dirty).map(|p| p.fp)
    }

    fn insert(&mut self, key: Key, fp: u64, dirty: bool) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(old) = self.pages.insert(key, Page { seq, dirty, fp }) {
            if !old.dirty {
                self.lru.remove(&old.seq);
            }
            if old.dirty && !dirty {
                self.unmark_dirty(key);
            }
        }
        if !dirty {
            self.lru.insert(seq, key);
        }
        self.evict_clean();
    }

    /// Evict clean pages, least recently used first, while over capacity.
    /// Dirty pages are never evicted; writeback must clean them first.
    fn evict_clean(&mut self) {
        while self.pages.len() > self.capacity {
            let Some((_, key)) = self.lru.pop_first() else { break };
            self.pages.remove(&key);
            self.stats.evictions += 1;
        }
    }

    /// A page read from disk.
    pub fn insert_clean(&mut self, ino: u32, off: u64, fp: u64) {
        if self.pages.get(&(ino, off)).is_some_and(|p| p.dirty) {
            return; // never replace newer data with older
        }
        self.insert((ino, off), fp, false);
    }

    /// A buffered write.
    pub fn write(&mut self, ino: u32, off: u64, fp: u64, now: SimTime) {
        let was_dirty = self.pages.get(&(ino, off)).is_some_and(|p| p.dirty);
        self.insert((ino, off), fp, true);
        if !was_dirty {
            self.dirty_count += 1;
            self.stats.pages_dirtied += 1;
            self.dirty.entry(ino).or_insert((now, BTreeSet::new())).1.insert(off);
        }
    }

    fn unmark_dirty(&mut self, (ino, off): Key) {
        if let Some((_, set)) = self.dirty.get_mut(&ino) {
            if set.remove(&off) {
                self.dirty_count -= 1;
            }
            if set.is_empty() {
                self.dirty.remove(&ino);
            }
        }
    }

    /// Dirty pages of one file (`get_dirty_pages`).
    pub fn dirty_of(&self, ino: u32) -> usize {
        self.dirty.get(&ino).map_or(0, |(_, s)| s.len())
    }

    pub fn has_dirty(&self, ino: u32) -> bool {
        self.dirty.contains_key(&ino)
    }

    /// Files with dirty pages, oldest-dirtied first.
    pub fn dirty_files(&self) -> Vec<(u32, SimTime)> {
        let mut v: Vec<(u32, SimTime)> = self.dirty.iter().map(|(&i, (t, _))| (i, *t)).collect();
        v.sort_by_key(|&(i, t)| (t, i));
        v
    }

    /// Take up to `max` dirty pages of `ino` in offset order, marking them clean.
    pub fn take_dirty(&mut self, ino: u32, max: usize) -> Vec<(u64, u64)> {
        let offs: Vec<u64> = match self.dirty.get(&ino) {
            Some((_, set)) => set.iter().copied().take(max).collect(),
            None => return Vec::new(),
        };
        let mut out = Vec::with_capacity(offs.len());
        for off in offs {
            let p = self.pages.get_mut(&(ino, off)).expect("dirty page is cached");
            p.dirty = false;
            out.push((off, p.fp));
            self.lru.insert(p.seq, (ino, off));
            self.unmark_dirty((ino, off));
        }
        self.evict_clean();
        out
    }

    /// Drop pages of `ino` in [from, to) (truncate, unlink, direct I/O).
    pub fn drop_range(&mut self, ino: u32, from: u64, to: u64) {
        let mut victims: Vec<Key> = match self.dirty.get(&ino) {
            Some((_, set)) => set.range(from..to).map(|&o| (ino, o)).collect(),
            None => Vec::new(),
        };
        for &k in &victims {
            self.unmark_dirty(k);
        }
        // Clean pages: short ranges (direct I/O) by key, long ones (truncate) by an LRU scan.
        if to.saturating_sub(from) <= 4096 {
            victims.extend((from..to).map(|o| (ino, o)).filter(|k| self.pages.contains_key(k)));
        } else {
            victims.extend(self.lru.values().filter(|k| k.0 == ino && k.1 >= from && k.1 < to).copied());
        }
        for key in victims {
            if let Some(p) = self.pages.remove(&key) {
                if !p.dirty {
                    self.lru.remove(&p.seq);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_clean_pages_only() {
        let mut c = PageCache::new(2);
        c.insert_clean(1, 0, 10);
        c.write(1, 1, 11, SimTime(5));
        c.insert_clean(1, 2, 12); // over capacity: evicts (1,0), the LRU clean page
        assert_eq!(c.get(1, 0), None);
        assert_eq!(c.get(1, 1), Some(11));
        assert_eq!(c.get(1, 2), Some(12));
        assert_eq!(c.dirty_count(), 1);
        assert_eq!(c.stats.evictions, 1);
    }

    #[test]
    fn writeback_cleans_in_offset_order() {
        let mut c = PageCache::new(100);
        c.write(3, 9, 1, SimTime(1));
        c.write(3, 2, 2, SimTime(2));
        c.write(4, 0, 3, SimTime(0));
        assert_eq!(c.dirty_files(), vec![(4, SimTime(0)), (3, SimTime(1))]);
        assert_eq!(c.take_dirty(3, 10), vec![(2, 2), (9, 1)]);
        assert!(c.is_clean(3, 9));
        assert_eq!(c.dirty_count(), 1);
        c.drop_range(4, 0, u64::MAX);
        assert_eq!(c.dirty_count(), 0);
        assert_eq!(c.get(4, 0), None);
        // A clean re-read never hides a newer dirty page.
        c.write(5, 0, 7, SimTime(3));
        c.insert_clean(5, 0, 6);
        assert_eq!(c.get(5, 0), Some(7));
    }
}
