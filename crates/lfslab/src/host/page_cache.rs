//! The page cache: 4 KiB pages of files, a memory limit, LRU eviction of
//! clean pages, and dirty-page tracking for writeback (Linux defaults:
//! dirty_background_ratio 10%, dirty_ratio 20%, dirty_expire 30 s,
//! dirty_writeback 5 s; Documentation/admin-guide/sysctl/vm.rst).
//!
//! Each file's pages are found through a table indexed by offset, as the
//! kernel's are through the address_space's xarray (`i_pages`): an entry
//! holds the page's content fingerprint, its DIRTY mark and PG_reclaim,
//! so a lookup, a write to a cached page and writeback (which goes in
//! offset order) read one entry and no other line. The table is flat
//! where the kernel's is a radix tree: 8 bytes per offset up to the
//! highest cached, resident only where pages were (in 2 MiB huge pages
//! once a table passes 4 MiB, see `huge_pages`). Every page is on one
//! list in order of last use (`LruRing`: its entry holds its place, and
//! the ring a live bit per place), as Linux keeps dirty pages on the LRU
//! too; eviction takes the least recently used clean page, reading the
//! ring and the file's dirty bitmap but not the page's entry, which it
//! leaves behind for the ring's compaction to clear. Writeback leaves a
//! page where it was (its age is its last use, not its writeback). A use is a read or the
//! page's arrival: a rewrite of a cached page does not move it, as Linux's
//! writes do not mark pages accessed (see `write`). A dirty page eviction
//! meets is moved on and marked, and goes first once written back (see
//! `evict_clean`), so eviction passes each dirty page once. One list stands
//! for Linux's active and inactive lists: a simplification. Each file's
//! dirty pages are a bitmap by offset with a count per 4096 offsets, so
//! writeback takes them in offset order without a tree node per page.

use crate::sim::{SimDuration, SimTime};
use serde::Serialize;
use crate::slot_index::SlotIndex;
use super::under_writeback::UnderWriteback;
use super::lru_ring::{LruRing, TAGS};
use std::collections::BTreeMap;

/// fs-writeback.c MIN_WRITEBACK_PAGES: 4 MiB of 4 KiB pages, the smallest
/// chunk background writeback takes.
pub const MIN_WRITEBACK_PAGES: usize = 1024;

/// The report's note on eviction (see `PageCache::write` and `evict_clean`).
pub const EVICTION_SIMPLIFICATION: &str = "page cache eviction: one list stands for Linux's active and inactive lists; a page goes to its end when added or read (mark_page_accessed), not when rewritten (writes mark no page accessed since Linux 4.7); the oldest clean page is evicted, and a dirty page eviction meets goes to the end marked PG_reclaim and is evicted first once written back (shrink_page_list, rotate_reclaimable_page); no refault (workingset) detection, and a page is evictable once its writeback is submitted";

/// What a writer does after one turn of balance_dirty_pages' loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throttle {
    /// Under the setpoint: go on now.
    Go,
    /// At or above the dirty limit: sleep until then, then look again.
    Pause(SimTime),
    /// Sleep until then and go on.
    Last(SimTime),
}

/// The longest one balance_dirty_pages sleep (mm/page-writeback.c
/// MAX_PAUSE, HZ / 5).
pub const MAX_PAUSE: SimDuration = SimDuration::from_ms(200);

/// CONFIG_HZ: Kconfig.hz's default, 250.
const HZ: u64 = 250;
const JIFFY: SimDuration = SimDuration::from_ms(1000 / HZ);

/// INIT_BW (mm/backing-dev.c): a writeback's bandwidth before any is
/// measured, 100 MB/s in 4 KiB pages.
const INIT_BW_PAGES: u64 = 100 << (20 - 12);

type Key = (u32, u64);

/// A page's key packed in one word (file offsets stay below 2^32 blocks:
/// F2FS's largest file has about 2^30).
#[inline]
fn pack((ino, off): Key) -> u64 {
    assert!(off < 1 << 32, "page offset {off} beyond 2^32 blocks");
    (ino as u64) << 32 | off
}

#[inline]
fn unpack(k: u64) -> Key {
    ((k >> 32) as u32, k & 0xffff_ffff)
}
/// Offsets per dirty bitmap chunk (whose pages writeback counts).
const CHUNK_BITS: u32 = 12;
const CHUNK_WORDS: usize = (1 << CHUNK_BITS) / 64;


/// A page table entry: `fp << 32 | flags | (tag + 1)`, the tag being the
/// page's place on the LRU ring; 0 is no page. `DIRTY` stands for the
/// xarray's DIRTY mark.
type Entry = u64;
const E_TAG: u64 = (1 << 30) - 1;
const DIRTY: u64 = 1 << 30;
/// PG_reclaim: eviction met the page dirty and moved it on; once written
/// back it goes to the front of the list, to be evicted next. Only a dirty
/// page carries it.
const RECLAIM: u64 = 1 << 31;

#[inline]
fn entry(fp: u32, flags: u64, tag: u32) -> Entry {
    (fp as u64) << 32 | flags | (tag as u64 + 1)
}
#[inline]
fn tag_in(e: Entry) -> u32 {
    ((e & E_TAG) as u32).wrapping_sub(1)
}
/// `e` at LRU place `tag`.
#[inline]
fn retagged(e: Entry, tag: u32) -> Entry {
    e & !E_TAG | (tag as u64 + 1)
}
const _: () = assert!(TAGS <= E_TAG);
#[inline]
fn fp_in(e: Entry) -> u32 {
    (e >> 32) as u32
}

/// One file's page table: an entry per offset up to the highest cached
/// (zeroed memory, grown by `grown`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct FilePages {
    ino: u32,
    pages: u32,
    table: Vec<Entry>,
}

/// Inodes below this find their page table without hashing (a 256 KiB
/// table at most); F2FS's and ext4's first files are numbered low.
const SMALL_INOS: u32 = 1 << 16;

/// Where a page's entry sits: (its file's table in `files`, offset).
type Pos = (u32, usize);

/// One file's dirty pages.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct DirtyFile {
    /// When the file first became dirty (for dirty_expire).
    since: SimTime,
    /// A bit per offset up to the highest dirty one: one flat vector (on
    /// huge pages once it passes 4 MiB, 2^25 offsets), so eviction's test
    /// of a page and its hint reach the bit's word without a pointer.
    words: Vec<u64>,
    /// Dirty pages per chunk of `1 << CHUNK_BITS` offsets, so writeback
    /// skips clean chunks.
    counts: Vec<u32>,
    count: usize,
}

impl DirtyFile {
    fn new(since: SimTime) -> Self {
        DirtyFile { since, words: Vec::new(), counts: Vec::new(), count: 0 }
    }

    fn insert(&mut self, off: u64) -> bool {
        let w = (off / 64) as usize;
        if w >= self.words.len() {
            // Doubled (in whole chunks) into fresh zeroed memory.
            let mut words = vec![0; (self.words.len() * 2).max(w + 1).next_multiple_of(CHUNK_WORDS)];
            words[..self.words.len()].copy_from_slice(&self.words);
            self.words = words;
            self.counts.resize(self.words.len().div_ceil(CHUNK_WORDS), 0);
        }
        let b = 1u64 << (off % 64);
        let fresh = self.words[w] & b == 0;
        self.words[w] |= b;
        self.counts[(off >> CHUNK_BITS) as usize] += fresh as u32;
        self.count += fresh as usize;
        fresh
    }

    #[inline]
    fn contains(&self, off: u64) -> bool {
        self.words.get((off / 64) as usize).is_some_and(|w| w >> (off % 64) & 1 != 0)
    }

    fn remove(&mut self, off: u64) -> bool {
        let b = 1u64 << (off % 64);
        match self.words.get_mut((off / 64) as usize) {
            Some(w) if *w & b != 0 => *w &= !b,
            _ => return false,
        }
        self.counts[(off >> CHUNK_BITS) as usize] -= 1;
        self.count -= 1;
        true
    }

    /// Dirty offsets in [from, to), ascending, at most `max`.
    fn offsets(&self, from: u64, to: u64, max: usize) -> Vec<u64> {
        let mut out = Vec::new();
        if from >= to {
            return out;
        }
        let first = (from >> CHUNK_BITS) as usize;
        let last = (((to - 1) >> CHUNK_BITS) as usize).min(self.counts.len().saturating_sub(1));
        for c in (first..=last).filter(|&c| self.counts.get(c).is_some_and(|&n| n > 0)) {
            for (wi, &word) in self.words[c * CHUNK_WORDS..(c + 1) * CHUNK_WORDS].iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let off = ((c as u64) << CHUNK_BITS) + (wi * 64) as u64 + x.trailing_zeros() as u64;
                    x &= x - 1;
                    if off >= to || out.len() >= max {
                        return out;
                    }
                    if off >= from {
                        out.push(off);
                    }
                }
            }
        }
        out
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
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

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PageCache {
    capacity: usize,
    /// Cached pages.
    len: usize,
    /// Inode -> its page table in `files`, plus one (0: none): directly
    /// for inodes below `SMALL_INOS`, through `file_index` above.
    small_inos: Vec<u32>,
    file_index: SlotIndex,
    files: Vec<FilePages>,
    free_files: Vec<u32>,
    /// All pages, least recently used at the front.
    lru: LruRing,
    dirty: BTreeMap<u32, DirtyFile>,
    /// Per file, where the next range-cyclic writeback starts
    /// (`mapping->writeback_index`); absent means 0. Kept while the file
    /// is clean, as the address_space keeps it.
    writeback_index: BTreeMap<u32, u64>,
    dirty_count: usize,
    /// Pages taken for writeback whose writes have not completed.
    under_writeback: UnderWriteback,
    /// Files a writeback left clean: (when they were first dirtied, when
    /// that writeback finished submitting). A file dirtied again before
    /// then keeps its dirtied_when, as the kernel's inode does: I_DIRTY_PAGES
    /// is cleared only after do_writepages returns (__writeback_single_inode),
    /// so __mark_inode_dirty finds it still set and leaves dirtied_when alone.
    written_back: BTreeMap<u32, (SimTime, SimTime)>,
    /// When kupdate-style writeback last ran (`wb->last_old_flush`).
    last_old_flush: SimTime,
    pub stats: PageCacheStats,
    /// Eviction's look-ahead (cache hints, not state): the ring positions
    /// up to which dirty bitmap words, and dirty pages' entries, were
    /// fetched.
    #[serde(skip)]
    evict_ahead: u64,
    #[serde(skip)]
    evict_ahead_entry: u64,
}

/// How many pages ahead of the head eviction fetches the entries of dirty
/// pages (it moves each one on, a random line), and half as far as it
/// fetches the dirty bitmap words it tests (`evict_look_ahead`).
const EVICT_AHEAD: u64 = 16;

impl PageCache {
    pub fn new(capacity_pages: usize) -> Self {
        assert!(capacity_pages > 0, "page cache needs at least one page");
        PageCache {
            capacity: capacity_pages,
            // Eviction follows the insert that overflows, hence one more.
            lru: LruRing::new(capacity_pages + 1),
            len: 0,
            small_inos: Vec::new(),
            file_index: SlotIndex::default(),
            files: Vec::new(),
            free_files: Vec::new(),
            dirty: BTreeMap::new(),
            writeback_index: BTreeMap::new(),
            dirty_count: 0,
            under_writeback: UnderWriteback::default(),
            written_back: BTreeMap::new(),
            last_old_flush: SimTime::ZERO,
            stats: PageCacheStats::default(),
            evict_ahead: 0,
            evict_ahead_entry: 0,
        }
    }

    /// `new` with an LRU ring whose tags come round every `tags` positions,
    /// so a test meets what paper-size runs meet after 2^30.
    #[cfg(test)]
    fn with_ring_tags(capacity_pages: usize, tags: u64) -> Self {
        PageCache { lru: LruRing::with_tags(capacity_pages + 1, tags), ..Self::new(capacity_pages) }
    }

    /// The page table of `ino`, if it has cached pages.
    #[inline(always)]
    fn file_of(&self, ino: u32) -> Option<u32> {
        if ino < SMALL_INOS {
            return self.small_inos.get(ino as usize).and_then(|&f| f.checked_sub(1));
        }
        self.file_index.get(ino as u64, |f| self.files[f as usize].ino as u64)
    }

    /// Where offset `off`'s entry sits in page table `f`, if the table is
    /// that long (the entry may still be 0).
    #[inline]
    fn at_in(&self, f: u32, off: u64) -> Option<Pos> {
        ((off as usize) < self.files[f as usize].table.len()).then_some((f, off as usize))
    }

    #[inline]
    fn e(&self, (f, o): Pos) -> Entry {
        self.files[f as usize].table[o]
    }

    #[inline]
    fn e_mut(&mut self, (f, o): Pos) -> &mut Entry {
        &mut self.files[f as usize].table[o]
    }

    /// Page (ino, off)'s entry: where it is and what it holds, if cached.
    #[inline]
    fn find(&self, ino: u32, off: u64) -> Option<(Pos, Entry)> {
        self.find_in(self.file_of(ino)?, off)
    }

    /// `find` in the page table `f`. An entry whose tag is off the LRU ring
    /// is a page eviction left behind (`evict_clean`): no page.
    #[inline]
    fn find_in(&self, f: u32, off: u64) -> Option<(Pos, Entry)> {
        self.at_in(f, off).map(|p| (p, self.e(p))).filter(|&(_, e)| self.current(e))
    }

    /// Whether `e` is a cached page's entry.
    #[inline]
    fn current(&self, e: Entry) -> bool {
        e != 0 && self.lru.is_current(tag_in(e))
    }

    #[cfg(test)]
    fn cached(&self, (ino, off): Key) -> bool {
        self.find(ino, off).is_some()
    }

    /// Enter page (ino, off) as `e`, making or growing its file's table.
    fn place(&mut self, ino: u32, off: u64, e: Entry) {
        assert!(off < 1 << 32, "page offset {off} beyond 2^32 blocks");
        let f = match self.file_of(ino) {
            Some(f) => f,
            None => {
                let f = take_free(&mut self.files, &mut self.free_files, FilePages { ino, pages: 0, table: Vec::new() });
                self.map_file(ino, Some(f));
                f
            }
        };
        let o = off as usize;
        if o >= self.files[f as usize].table.len() {
            let file = &mut self.files[f as usize];
            file.table = grown(std::mem::take(&mut file.table), o + 1);
        }
        assert!(!self.current(self.e((f, o))), "page ({ino}, {off}) entered twice");
        let file = &mut self.files[f as usize];
        file.table[o] = e;
        file.pages += 1;
    }

    /// Make `ino` find page table `f` (None: no table), the way `file_of`
    /// looks.
    fn map_file(&mut self, ino: u32, f: Option<u32>) {
        let key_of = |f: u32| self.files[f as usize].ino as u64;
        if ino < SMALL_INOS {
            if ino as usize >= self.small_inos.len() {
                self.small_inos.resize(ino as usize + 1, 0);
            }
            self.small_inos[ino as usize] = f.map_or(0, |f| f + 1);
        } else if let Some(f) = f {
            self.file_index.insert(ino as u64, f, key_of);
        } else {
            self.file_index.remove(ino as u64, key_of);
        }
    }

    /// Clear the entry at `p` (its key on the ring goes stale).
    fn unplace(&mut self, p: Pos) {
        let e = self.e(p);
        self.lru.drop_copy(tag_in(e));
        *self.e_mut(p) = 0;
        self.forget_in(p.0);
    }

    /// Count one page less in page table `f`, whose entry is cleared or
    /// dead; a file left without pages loses its table.
    fn forget_in(&mut self, f: u32) {
        let file = &mut self.files[f as usize];
        file.pages -= 1;
        if file.pages == 0 {
            file.table = Vec::new();
            let ino = file.ino;
            self.map_file(ino, None);
            self.free_files.push(f);
        }
    }

    /// Hint for a call that goes through pages `[from, to)` in order, at
    /// `at`: fetch the entry `RUN_AHEAD` pages on (the table is in offset
    /// order, so a line holds 8). Offsets past 2^32 are no page.
    #[inline]
    pub fn prefetch_run(&self, ino: u32, at: u64, from: u64, to: u64) {
        const RUN_AHEAD: u64 = 16;
        let to = to.min(1 << 32);
        let Some(f) = self.file_of(ino) else { return };
        if at == from {
            for o in (from.saturating_add(1)..from.saturating_add(RUN_AHEAD).min(to)).step_by(8) {
                self.prefetch_entry(f, o);
            }
        }
        if at.saturating_add(RUN_AHEAD) < to {
            self.prefetch_entry(f, at + RUN_AHEAD);
        }
    }

    #[inline]
    fn prefetch_entry(&self, f: u32, off: u64) {
        crate::prefetch::prefetch(&self.files[f as usize].table, off as usize);
    }

    /// Hint that page (ino, off) will be used soon, in stages a few
    /// operations apart: 0 fetches its page table entry, 1 the dirty bitmap
    /// word a write sets. A hint never changes results.
    #[inline]
    pub fn prefetch(&self, ino: u32, off: u64, stage: u8) {
        if off >= 1 << 32 {
            return;
        }
        if stage == 0 {
            if let Some(f) = self.file_of(ino) {
                self.prefetch_entry(f, off);
            }
        } else if let Some(f) = self.dirty.get(&ino) {
            crate::prefetch::prefetch(&f.words, (off / 64) as usize);
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    /// Make room on the LRU ring for one push (a compaction retags
    /// entries, so call it before reading a tag to replace).
    fn room(&mut self) {
        if self.lru.full() {
            self.compact_lru();
        }
    }

    /// Drop the ring's stale keys, giving the live pages new places, and
    /// clear the entries eviction left behind: one pass over every page
    /// table in memory order, not a random line per page.
    fn compact_lru(&mut self) {
        let plan = self.lru.compaction();
        let mut live = 0;
        for file in &mut self.files {
            for e in file.table.iter_mut().filter(|e| **e != 0) {
                *e = match plan.new_tag(tag_in(*e)) {
                    Some(tag) => {
                        live += 1;
                        retagged(*e, tag)
                    }
                    None => 0,
                };
            }
        }
        assert_eq!(live, self.len, "page cache: {live} current entries, {} pages counted", self.len);
        self.lru.compact();
        assert_eq!(self.lru.len(), self.len, "page cache: LRU ring holds {} live keys, {} pages counted", self.lru.len(), self.len);
        self.evict_ahead = 0;
        self.evict_ahead_entry = 0;
    }

    /// Push `key` at the LRU list's head (`LruRing::push_front`) and clear
    /// the dead entry that held the position before, if any; its tag.
    fn push_front(&mut self, key: u64) -> u32 {
        let (tag, old) = self.lru.push_front(key);
        let (ino, off) = unpack(old);
        if let Some(p) = self.file_of(ino).and_then(|f| self.at_in(f, off)) {
            let e = self.e(p);
            if e != 0 && tag_in(e) == tag {
                *self.e_mut(p) = 0;
            }
        }
        tag
    }

    /// Move page `key`, whose entry is at `p`, to the most recently used
    /// end, or with `head` to the least.
    fn relist(&mut self, key: Key, p: Pos, head: bool) {
        self.room();
        let e = self.e(p);
        self.lru.drop_copy(tag_in(e));
        let tag = if head { self.push_front(pack(key)) } else { self.lru.push_back(pack(key)) };
        *self.e_mut(p) = retagged(e, tag);
    }

    /// Content of a cached page (None on a miss); a hit refreshes its LRU age.
    pub fn get(&mut self, ino: u32, off: u64) -> Option<u32> {
        match self.find(ino, off) {
            Some((p, e)) => {
                self.stats.hits += 1;
                self.relist((ino, off), p, false);
                Some(fp_in(e))
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    /// Whether the page is cached and clean (its content equals the disk's).
    pub fn is_clean(&self, ino: u32, off: u64) -> bool {
        self.find(ino, off).is_some_and(|(_, e)| e & DIRTY == 0)
    }

    /// Content of a clean cached page, without touching LRU or statistics
    /// (for the FS cleaner, which must not look like application reuse).
    pub fn peek_clean(&self, ino: u32, off: u64) -> Option<u32> {
        self.find(ino, off).filter(|&(_, e)| e & DIRTY == 0).map(|(_, e)| fp_in(e))
    }

    /// Cache `fp` as page `key`. A new page goes to the most recently used
    /// end (`add_to_page_cache_lru`: the inactive list's head); a cached
    /// one moves there only if `accessed` (a read: `mark_page_accessed`).
    /// Returns the page's entry before (0: it was not cached).
    fn insert(&mut self, key: Key, fp: u32, dirty: bool, accessed: bool) -> Entry {
        let (ino, off) = key;
        let before = self.find(ino, off);
        match before {
            Some((p, e)) => {
                if e & DIRTY != 0 && !dirty {
                    self.unmark_dirty(key);
                }
                // set_page_dirty clears PG_reclaim: the page is in use again.
                let flags = if dirty { DIRTY } else { e & RECLAIM };
                *self.e_mut(p) = entry(fp, flags, tag_in(e));
                if accessed {
                    self.relist(key, p, false);
                }
            }
            None => {
                self.room();
                let tag = self.lru.push_back(pack(key));
                self.place(ino, off, entry(fp, if dirty { DIRTY } else { 0 }, tag));
                self.len += 1;
            }
        }
        self.evict_clean();
        before.map_or(0, |(_, e)| e)
    }

    /// Drop the page whose entry is at `p`.
    fn remove_page(&mut self, p: Pos) {
        self.unplace(p);
        self.len -= 1;
    }

    /// Evict clean pages, least recently used first, while over capacity.
    /// Dirty pages are never evicted; writeback must clean them first. A
    /// dirty page at the head is moved to the most recently used end and
    /// marked for reclaim, as `shrink_page_list` (mm/vmscan.c) activates a
    /// dirty file page it meets with PG_reclaim set, so that eviction
    /// passes each dirty page once, not on every call; writeback then puts
    /// it back at the head (`take_offsets`).
    ///
    /// The ring says which copies are live, and the file's dirty bitmap
    /// which pages are dirty, so evicting a clean page reads neither its
    /// entry nor any other random line: the entry is left as it is, no
    /// longer current once its copy is off the ring (`LruRing`).
    fn evict_clean(&mut self) {
        let mut moved = 0;
        // With a clean page on the list, the loop reaches it.
        while self.len > self.capacity && self.len > self.dirty_count {
            let (key, tag, live) = self.lru.pop_front().expect("cached pages are on the LRU ring");
            if !live {
                continue; // a stale copy: the page moved or left
            }
            let (ino, off) = unpack(key);
            let f = self.file_of(ino).expect("a live key's page has a page table");
            if self.listed_dirty(ino, off) {
                moved += 1;
                assert!(moved <= self.dirty_count, "page cache: {} dirty pages counted, but more met at the head", self.dirty_count);
                let p = (f, off as usize);
                let e = self.e(p);
                assert!(e & DIRTY != 0 && tag_in(e) == tag, "page ({ino}, {off}): entry {e:#x} at the ring's tag {tag}");
                // The pop made room for this push.
                let tag = self.lru.push_back(key);
                *self.e_mut(p) = retagged(e, tag) | RECLAIM;
                continue;
            }
            debug_assert!(self.e((f, off as usize)) & DIRTY == 0, "page ({ino}, {off}) dirty but not in its file's bitmap");
            self.forget_in(f);
            self.len -= 1;
            self.stats.evictions += 1;
        }
        if self.lru.must_compact() {
            self.compact_lru();
        }
        self.evict_look_ahead();
    }

    /// Hints for the live pages near the ring's front that no earlier call
    /// looked at: up to `2 * EVICT_AHEAD` places on, the word of the
    /// file's dirty bitmap that eviction tests; up to `EVICT_AHEAD`, that
    /// word being there by then, the entry of a page it says is dirty,
    /// which eviction moves on. Pages between may be touched or dropped
    /// meanwhile; only hints, no result depends on them.
    fn evict_look_ahead(&mut self) {
        let front = self.lru.front_pos();
        let len = self.lru.len() as u64;
        let end = front + (2 * EVICT_AHEAD).min(len);
        for pos in self.evict_ahead.max(front)..end {
            if let Some(key) = self.lru.live_key_at(pos) {
                let (ino, off) = unpack(key);
                self.prefetch(ino, off, 1);
            }
        }
        self.evict_ahead = self.evict_ahead.max(end);
        let end = front + EVICT_AHEAD.min(len);
        for pos in self.evict_ahead_entry.max(front)..end {
            if let Some(key) = self.lru.live_key_at(pos) {
                let (ino, off) = unpack(key);
                if self.listed_dirty(ino, off) {
                    if let Some(f) = self.file_of(ino) {
                        self.prefetch_entry(f, off);
                    }
                }
            }
        }
        self.evict_ahead_entry = self.evict_ahead_entry.max(end);
    }

    /// A page read from disk.
    pub fn insert_clean(&mut self, ino: u32, off: u64, fp: u32) {
        if self.is_dirty((ino, off)) {
            return; // never replace newer data with older
        }
        self.insert((ino, off), fp, false, true);
    }

    /// A buffered write. Rewriting a cached page leaves its place on the
    /// LRU list: since Linux 4.7 (bbddabe2e436, "mm: filemap: only do
    /// access activations on reads") `grab_cache_page_write_begin` and
    /// F2FS's `f2fs_write_begin` take the page without FGP_ACCESSED, so a
    /// write neither references nor activates it.
    pub fn write(&mut self, ino: u32, off: u64, fp: u32, now: SimTime) {
        let before = self.insert((ino, off), fp, true, false);
        if before & DIRTY == 0 {
            self.stats.pages_dirtied += 1;
            self.mark_dirty((ino, off), now);
        }
    }

    /// Whether the page is in its file's dirty bitmap: `is_dirty` without
    /// reading the page's entry.
    #[inline]
    fn listed_dirty(&self, ino: u32, off: u64) -> bool {
        self.dirty.get(&ino).is_some_and(|d| d.contains(off))
    }

    fn is_dirty(&self, (ino, off): Key) -> bool {
        self.find(ino, off).is_some_and(|(_, e)| e & DIRTY != 0)
    }

    /// Count a page that just became dirty and list it under its file.
    fn mark_dirty(&mut self, (ino, off): Key, now: SimTime) {
        self.dirty_count += 1;
        let f = match self.dirty.entry(ino) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let since = match self.written_back.remove(&ino) {
                    Some((since, until)) if now < until => since,
                    _ => now,
                };
                e.insert(DirtyFile::new(since))
            }
        };
        f.insert(off);
    }

    /// Put back a page taken for writeback that was not written
    /// (`redirty_page_for_writepage`): dirty again, not a new write.
    pub fn redirty(&mut self, ino: u32, off: u64, fp: u32, now: SimTime) {
        if self.is_dirty((ino, off)) {
            return; // rewritten meanwhile: that version is the one to keep
        }
        self.insert((ino, off), fp, true, false);
        self.mark_dirty((ino, off), now);
    }

    fn unmark_dirty(&mut self, (ino, off): Key) {
        if let Some(f) = self.dirty.get_mut(&ino) {
            if f.remove(off) {
                self.dirty_count -= 1;
            }
            if f.count == 0 {
                let since = f.since;
                self.dirty.remove(&ino);
                self.written_back.insert(ino, (since, SimTime::ZERO));
            }
        }
    }

    /// Dirty pages of one file (`get_dirty_pages`).
    pub fn dirty_of(&self, ino: u32) -> usize {
        self.dirty.get(&ino).map_or(0, |f| f.count)
    }

    pub fn has_dirty(&self, ino: u32) -> bool {
        self.dirty.contains_key(&ino)
    }

    /// balance_dirty_pages: a writer that left more than `dirty_pct` of
    /// the cache dirty writes back this many pages, down to
    /// `background_pct`; None while under the limit.
    pub fn over_dirty_limit(&self, dirty_pct: u32, background_pct: u32) -> Option<usize> {
        let limit = self.capacity() * dirty_pct as usize / 100;
        let target = self.capacity() * background_pct as usize / 100;
        (self.dirty_count() > limit).then(|| self.dirty_count() - target)
    }

    /// `pages` of `ino` taken for writeback at `now` are submitted by
    /// `submitted` and written by `done`; until then they count against the
    /// dirty limits (NR_WRITEBACK). A file the writeback left clean keeps
    /// its dirtied_when if it is dirtied again before `submitted`.
    pub fn note_writeback(&mut self, ino: u32, now: SimTime, submitted: SimTime, done: SimTime, pages: usize) {
        self.under_writeback.add(now, done, pages);
        if let Some((_, until)) = self.written_back.get_mut(&ino) {
            *until = (*until).max(submitted);
        }
    }

    /// Pages under writeback at `now`.
    pub fn writeback_count(&mut self, now: SimTime) -> usize {
        self.under_writeback.settle(now);
        self.under_writeback.pages()
    }

    /// IO-less balance_dirty_pages (Linux 3.2 and later): when a writer at
    /// `now` finds the dirty pages plus those under writeback above the
    /// control setpoint, it sleeps while the flusher's writes complete; it
    /// writes nothing itself. The kernel paces the sleeps so the dirty count
    /// hovers around `setpoint = (freerun + limit) / 2`, `freerun =
    /// (background + limit) / 2` (pos_ratio_polynom, dirty_freerun_ceiling).
    /// One sleep is at most `wb_max_pause`; at or above the dirty limit
    /// (task_ratelimit 0) the writer sleeps that long at a time until it is
    /// under it, then once more, and returns (`if (task_ratelimit) break`).
    /// The last sleep lasts until the count is back at the setpoint or the
    /// pause cap, whichever is first, not the kernel's rate-based pause
    /// (pages dirtied / task_ratelimit; simplified).
    ///
    /// This is one turn of that loop at `now`: the caller
    /// (`fs::dirty_balance`) lets the flusher run to a `Pause`'s end and
    /// asks again.
    pub fn throttle_step(&mut self, now: SimTime, dirty_pct: u32, background_pct: u32) -> Throttle {
        let limit = self.capacity() * dirty_pct as usize / 100;
        let background = self.capacity() * background_pct as usize / 100;
        let setpoint = ((background + limit) / 2 + limit) / 2;
        self.under_writeback.settle(now);
        let total = self.dirty_count + self.under_writeback.pages();
        if total <= setpoint {
            return Throttle::Go;
        }
        let pause = self.max_pause(now, total);
        if total >= limit {
            return Throttle::Pause(now + pause);
        }
        let to_setpoint = self.under_writeback.until_at_most(now, setpoint.saturating_sub(self.dirty_count));
        Throttle::Last(to_setpoint.min(now + pause))
    }

    /// wb_max_pause (mm/page-writeback.c): at most `MAX_PAUSE`, and for a
    /// small dirty set about an eighth of the time the device takes to
    /// write it (`wb_dirty / (1 + bw / roundup_pow_of_two(1 + HZ / 8))`
    /// jiffies, plus one), "if sleeping for too long time, a small pool of
    /// dirty/writeback pages may go empty and disk go idle". The write
    /// bandwidth is the rate at which the pages now under writeback
    /// complete (the kernel's avg_write_bandwidth measures the same over
    /// 200 ms periods); with none, the kernel's initial 100 MB/s.
    fn max_pause(&self, now: SimTime, wb_dirty: usize) -> SimDuration {
        let in_flight = self.under_writeback.pages() as u64;
        let bw = match self.under_writeback.last_done().map(|t| t.saturating_since(now).ns()) {
            None => INIT_BW_PAGES,
            Some(0) => in_flight.saturating_mul(1_000_000_000),
            Some(drain) => (in_flight as u128 * 1_000_000_000 / drain as u128) as u64,
        };
        let jiffies = wb_dirty as u64 / (1 + bw / (1 + HZ / 8).next_power_of_two()) + 1;
        JIFFY.mul(jiffies).min(MAX_PAUSE)
    }

    /// Pages above `background_pct` (what background writeback would take).
    /// Background writeback goes in chunks of at least `MIN_WRITEBACK_PAGES`.
    pub fn over_background(&self, background_pct: u32) -> usize {
        self.dirty_count().saturating_sub(self.capacity() * background_pct as usize / 100)
    }

    /// The flusher's work at `now` (wb_workfn): pages to write back to get
    /// under `background_pct`, and the files first dirtied `expire` or
    /// longer ago. The second is kupdate's, which runs at most once per
    /// `interval` (wb_check_old_data_flush and `wb->last_old_flush`,
    /// vm.dirty_writeback_centisecs); between two, no file is expired.
    pub fn flusher_work(
        &mut self,
        now: SimTime,
        background_pct: u32,
        expire: crate::sim::SimDuration,
        interval: crate::sim::SimDuration,
    ) -> (usize, Vec<u32>) {
        let background = self.capacity() * background_pct as usize / 100;
        let excess = self.dirty_count().saturating_sub(background);
        if now < self.last_old_flush + interval {
            return (excess, Vec::new());
        }
        self.last_old_flush = now;
        let expired = self.dirty_files().into_iter().filter(|&(_, at)| now.saturating_since(at) >= expire).map(|(i, _)| i).collect();
        (excess, expired)
    }

    /// The oldest-dirtied file (ties: the lowest inode), where background
    /// writeback goes next.
    pub fn oldest_dirty_file(&self) -> Option<u32> {
        self.dirty.iter().min_by_key(|&(&i, f)| (f.since, i)).map(|(&i, _)| i)
    }

    /// Files with dirty pages, oldest-dirtied first.
    pub fn dirty_files(&self) -> Vec<(u32, SimTime)> {
        let mut v: Vec<(u32, SimTime)> = self.dirty.iter().map(|(&i, f)| (i, f.since)).collect();
        v.sort_by_key(|&(i, t)| (t, i));
        v
    }

    /// Take up to `max` dirty pages of `ino` from offset 0, in offset order,
    /// marking them clean: writeback of the whole file (fsync's
    /// `filemap_write_and_wait_range(0, LLONG_MAX)`). As
    /// f2fs_write_cache_pages does for a `range_whole` pass, the next cyclic
    /// writeback starts at the last page taken.
    pub fn take_dirty(&mut self, ino: u32, max: usize) -> Vec<(u64, u32)> {
        let offs = match self.dirty.get(&ino) {
            Some(f) => f.offsets(0, u64::MAX, max),
            None => return Vec::new(),
        };
        if let Some(&last) = offs.last() {
            self.writeback_index.insert(ino, last);
        }
        self.take_offsets(ino, offs)
    }

    /// Take up to `max` dirty pages of `ino` for ext4's range-cyclic
    /// writeback (the flusher's background and kupdate work): from the
    /// file's `writeback_index` to its end, then from offset 0
    /// (ext4_do_writepages keeps its `cycled` retry from the start of the
    /// file; F2FS's does not, see `take_dirty_sweep`). A pass that uses up
    /// `max` leaves the index at its last page (`done_index`); one that
    /// reaches the end leaves it at 0. ext4 keeps the page after the last
    /// instead; the two differ only when that page is dirtied again before
    /// the next pass.
    pub fn take_dirty_cyclic(&mut self, ino: u32, max: usize) -> Vec<(u64, u32)> {
        let Some(f) = self.dirty.get(&ino) else { return Vec::new() };
        let from = self.writeback_index.get(&ino).copied().unwrap_or(0);
        let mut offs = f.offsets(from, u64::MAX, max);
        if offs.len() < max && from > 0 {
            offs.extend(f.offsets(0, from, max - offs.len()));
        }
        self.advance_writeback_index(ino, &offs, max);
        self.take_offsets(ino, offs)
    }

    /// `done_index` after a range-cyclic call that took `offs` of at most
    /// `max`: its last page when the quota was used up, else 0 (the call
    /// reached the end).
    fn advance_writeback_index(&mut self, ino: u32, offs: &[u64], max: usize) {
        match offs.last().filter(|_| offs.len() == max) {
            Some(&last) if last > 0 => {
                self.writeback_index.insert(ino, last);
            }
            _ => {
                self.writeback_index.remove(&ino);
            }
        }
    }

    /// Take up to `max` dirty pages of `ino` for F2FS's range-cyclic
    /// writeback (the flusher's kupdate and background work): from the
    /// file's `writeback_index` to its end, never wrapping within one call
    /// (`f2fs_write_cache_pages` dropped its wrap in 2020, after mm's
    /// 64081362e8ff). Returns the pages and whether the sweep reached the
    /// file's end (`!done`). The index then goes back to 0, and the inode
    /// is requeued as fs-writeback.c's `requeue_inode` does when writepages
    /// returns with quota left: a file still dirty goes to the dirty
    /// list's tail with dirtied_when set to `now` (`redirty_tail_locked`;
    /// F2FS's node inode is always on b_dirty before it), so kupdate finds
    /// it expired only `dirty_expire` later. One left clean is forgotten
    /// the same way: a page dirtied while its writes are submitted dates
    /// the file from `now`.
    pub fn take_dirty_sweep(&mut self, ino: u32, max: usize, now: SimTime) -> (Vec<(u64, u32)>, bool) {
        let Some(f) = self.dirty.get(&ino).filter(|_| max > 0) else { return (Vec::new(), max > 0) };
        let from = self.writeback_index.get(&ino).copied().unwrap_or(0);
        let offs = f.offsets(from, u64::MAX, max);
        let end = offs.len() < max;
        self.advance_writeback_index(ino, &offs, max);
        let out = self.take_offsets(ino, offs);
        if end {
            if let Some(f) = self.dirty.get_mut(&ino) {
                f.since = f.since.max(now);
            } else if let Some((since, _)) = self.written_back.get_mut(&ino) {
                *since = (*since).max(now);
            }
        }
        (out, end)
    }

    /// Mark the dirty pages `offs` of `ino` clean and return their contents.
    fn take_offsets(&mut self, ino: u32, offs: Vec<u64>) -> Vec<(u64, u32)> {
        let mut out = Vec::with_capacity(offs.len());
        let Some(f) = self.file_of(ino).filter(|_| !offs.is_empty()) else {
            assert!(offs.is_empty(), "dirty pages of {ino} without a page table");
            return out;
        };
        for (k, &off) in offs.iter().enumerate() {
            // Offsets ascend but may lie far apart: fetch a few ahead.
            if let Some(&ahead) = offs.get(k + 8) {
                self.prefetch_entry(f, ahead);
            }
            let (p, e) = self.find_in(f, off).expect("dirty page is cached");
            out.push((off, fp_in(e)));
            *self.e_mut(p) = e & !(DIRTY | RECLAIM);
            // end_page_writeback's rotate_reclaimable_page: a page eviction
            // met dirty goes to the head once written back (here when it is
            // taken: the model cleans a page at submission).
            if e & RECLAIM != 0 {
                self.relist((ino, off), p, true);
            }
            self.unmark_dirty((ino, off));
        }
        self.evict_clean();
        out
    }

    /// Drop pages of `ino` in [from, to) (truncate, unlink, direct I/O).
    pub fn drop_range(&mut self, ino: u32, from: u64, to: u64) {
        if from == 0 {
            // Nothing left from the index on: a pass from there would find
            // nothing and reset it (f2fs_write_cache_pages), so reset it now.
            self.writeback_index.remove(&ino);
        }
        let dirty: Vec<u64> = self.dirty.get(&ino).map_or_else(Vec::new, |f| f.offsets(from, to, usize::MAX));
        for &o in &dirty {
            self.unmark_dirty((ino, o));
        }
        if from == 0 {
            // Nothing of the file is left to write back (truncate to 0, unlink).
            self.written_back.remove(&ino);
        }
        // The range's pages (the dirty ones too), through the file's table.
        let Some(f) = self.file_of(ino) else { return };
        let table = &self.files[f as usize].table;
        let end = to.min(table.len() as u64) as usize;
        let start = (from as usize).min(end);
        let victims: Vec<Pos> = (start..end).filter(|&o| self.current(table[o])).map(|o| (f, o)).collect();
        for p in victims {
            self.remove_page(p);
        }
    }
}

/// Put `x` in a free place of `v` (the last freed) or at its end; its index.
fn take_free<T>(v: &mut Vec<T>, free: &mut Vec<u32>, x: T) -> u32 {
    match free.pop() {
        Some(i) => {
            v[i as usize] = x;
            i
        }
        None => {
            v.push(x);
            (v.len() - 1) as u32
        }
    }
}

/// `table` grown to hold at least `len` entries: doubled, in fresh zeroed
/// memory, with only the parts that hold pages copied (a copy of zeros
/// would make untouched memory resident).
fn grown(table: Vec<Entry>, len: usize) -> Vec<Entry> {
    const PIECE: usize = 512;
    let mut t = vec![0; (table.len() * 2).clamp(PIECE, 1 << 32).max(len)];
    for (k, piece) in table.chunks(PIECE).enumerate() {
        if piece.iter().any(|&e| e != 0) {
            t[k * PIECE..k * PIECE + piece.len()].copy_from_slice(piece);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writeback that fails puts back what it took, even pages the cache
    /// had evicted meanwhile, and never over a newer write.
    #[test]
    fn redirty_restores_pages_taken_for_writeback() {
        let mut c = PageCache::new(2);
        c.write(1, 0, 10, SimTime(1));
        c.write(1, 1, 11, SimTime(1));
        let taken = c.take_dirty(1, 8);
        assert_eq!((taken.len(), c.dirty_count()), (2, 0));
        c.insert_clean(2, 0, 20);
        c.insert_clean(2, 1, 21); // the taken pages, clean now, are evicted
        c.write(1, 1, 12, SimTime(2)); // a newer version of page 1
        for (off, fp) in taken {
            c.redirty(1, off, fp, SimTime(3));
        }
        assert_eq!(c.dirty_count(), 2);
        assert_eq!(c.dirty_of(1), 2);
        assert_eq!(c.get(1, 0), Some(10));
        assert_eq!(c.get(1, 1), Some(12));
    }

    /// Range-cyclic writeback goes on from where the last pass stopped and
    /// wraps to offset 0 (ext4_do_writepages' writeback_index); a
    /// whole-file pass starts at 0.
    #[test]
    fn cyclic_writeback_resumes_where_it_stopped() {
        let mut c = PageCache::new(100);
        for off in [1, 3, 5, 7, 9] {
            c.write(1, off, off as u32, SimTime(1));
        }
        let offs = |v: Vec<(u64, u32)>| v.into_iter().map(|(o, _)| o).collect::<Vec<_>>();
        assert_eq!(offs(c.take_dirty_cyclic(1, 2)), vec![1, 3]);
        c.write(1, 0, 100, SimTime(2)); // behind the cursor: waits for the wrap
        assert_eq!(offs(c.take_dirty_cyclic(1, 2)), vec![5, 7]);
        assert_eq!(offs(c.take_dirty_cyclic(1, 3)), vec![9, 0]);
        // That pass reached the end: the next starts at 0.
        c.write(1, 4, 4, SimTime(3));
        c.write(1, 2, 2, SimTime(3));
        assert_eq!(offs(c.take_dirty_cyclic(1, 1)), vec![2]);
        c.write(1, 1, 1, SimTime(4));
        assert_eq!(offs(c.take_dirty(1, usize::MAX)), vec![1, 4]);
        assert_eq!(c.dirty_count(), 0);
    }

    /// F2FS's sweep stops at the file's end (no wrap within a call); a
    /// file it leaves dirty is dated anew (requeue_inode ->
    /// redirty_tail_locked), so kupdate does not find it expired again for
    /// a whole dirty_expire.
    #[test]
    fn an_f2fs_sweep_to_the_end_requeues_a_dirty_file_as_new() {
        let mut c = PageCache::new(100);
        for off in [1, 3, 5, 7, 9] {
            c.write(1, off, off as u32, SimTime(1));
        }
        let offs = |v: (Vec<(u64, u32)>, bool)| (v.0.into_iter().map(|(o, _)| o).collect::<Vec<_>>(), v.1);
        assert_eq!(offs(c.take_dirty_sweep(1, 2, SimTime(10))), (vec![1, 3], false));
        assert_eq!(c.dirty_files(), vec![(1, SimTime(1))], "quota used up: the file keeps its age");
        c.write(1, 0, 100, SimTime(11)); // behind the cursor
        assert_eq!(offs(c.take_dirty_sweep(1, 5, SimTime(20))), (vec![5, 7, 9], true));
        assert_eq!(c.dirty_files(), vec![(1, SimTime(20))], "swept to the end, still dirty: dated now");
        // The next sweep starts at offset 0.
        assert_eq!(offs(c.take_dirty_sweep(1, 5, SimTime(30))), (vec![0], true));
        assert!(c.dirty_files().is_empty());
        // Left clean at 30 and dirtied again before its writes are submitted:
        // the file dates from the sweep, not from its first dirtying.
        c.note_writeback(1, SimTime(30), SimTime(40), SimTime(50), 1);
        c.write(1, 2, 2, SimTime(35));
        assert_eq!(c.dirty_files(), vec![(1, SimTime(30))]);
    }

    /// A rewrite leaves a cached page where it was on the list (Linux
    /// since 4.7 marks pages accessed on reads only); a read moves it.
    #[test]
    fn a_rewrite_does_not_refresh_a_pages_age() {
        for read_it in [false, true] {
            let mut c = PageCache::new(2);
            c.insert_clean(1, 0, 10);
            c.insert_clean(1, 1, 11);
            c.write(1, 0, 12, SimTime(1));
            if read_it {
                assert_eq!(c.get(1, 0), Some(12));
            }
            assert_eq!(c.take_dirty(1, 8), vec![(0, 12)]);
            c.insert_clean(1, 2, 13);
            let evicted = if read_it { 1 } else { 0 };
            assert_eq!(c.cached((1, evicted)), false, "read first: {read_it}");
            assert_eq!(c.len(), 2);
        }
    }

    /// Eviction moves a dirty page it meets to the other end and marks it
    /// (shrink_page_list's activate with PG_reclaim); written back, the
    /// page goes to the head and is the next evicted
    /// (rotate_reclaimable_page), unless a write meanwhile cleared the mark.
    #[test]
    fn a_dirty_page_met_by_eviction_goes_first_once_written_back() {
        for rewritten in [false, true] {
            let mut c = PageCache::new(2);
            c.write(1, 0, 10, SimTime(1));
            c.insert_clean(1, 1, 11);
            c.insert_clean(1, 2, 12); // page 0 is moved on, page 1 evicted
            assert_eq!((c.cached((1, 1)), c.stats.evictions), (false, 1));
            assert!(c.find(1, 0).unwrap().1 & RECLAIM != 0);
            if rewritten {
                c.write(1, 0, 13, SimTime(2));
            }
            assert_eq!(c.take_dirty(1, 8).len(), 1);
            c.insert_clean(1, 3, 14);
            let evicted = if rewritten { 2 } else { 0 };
            assert_eq!(c.cached((1, evicted)), false, "rewritten: {rewritten}");
            assert_eq!(c.len(), 2);
        }
    }

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

    /// Against an exact list model under churn (hits, inserts, writes,
    /// writeback, drops): eviction takes exactly the least recently read or
    /// inserted clean page (a rewrite does not count as a use; a dirty page
    /// eviction met goes first once written back), whatever eviction's
    /// look-ahead hint points at meanwhile.
    #[test]
    fn eviction_matches_an_lru_model_under_churn() {
        // Inodes on both sides of SMALL_INOS: both ways to a page table.
        for base in [0, SMALL_INOS - 1] {
            churn_against_a_model(base, TAGS);
        }
        // Tags that come round every few hundred evictions: the entries
        // eviction leaves behind must be cleared before theirs does.
        churn_against_a_model(0, 2003);
    }

    fn churn_against_a_model(base: u32, tags: u64) {
        // (ino, off, fp, dirty), least recently used first.
        let mut model: Vec<(u32, u64, u32, bool)> = Vec::new();
        // Dirty pages eviction met (PG_reclaim).
        let mut reclaim = std::collections::BTreeSet::new();
        let cap = 300;
        let mut c = PageCache::with_ring_tags(cap, tags);
        let mut x = 11u64;
        for n in 0..40_000u32 {
            x = crate::sim::mix64(x + n as u64);
            let (ino, off) = (base + (x % 3) as u32, (x >> 8) % 700);
            let at = model.iter().position(|&(i, o, _, _)| (i, o) == (ino, off));
            match (x >> 40) % 16 {
                0..=5 => {
                    let got = c.get(ino, off);
                    assert_eq!(got, at.map(|k| model[k].2), "get ({ino}, {off}) at op {n}");
                    if let Some(k) = at {
                        let e = model.remove(k);
                        model.push(e);
                    }
                }
                6..=9 => {
                    c.insert_clean(ino, off, n);
                    if at.is_none_or(|k| !model[k].3) {
                        at.map(|k| model.remove(k));
                        model.push((ino, off, n, false));
                    }
                }
                10..=13 => {
                    // A rewrite stays where it is on the list (and loses
                    // its reclaim mark); a new page goes to the end.
                    c.write(ino, off, n, SimTime(n as u64));
                    match at {
                        Some(k) => model[k] = (ino, off, n, true),
                        None => model.push((ino, off, n, true)),
                    }
                    reclaim.remove(&(ino, off));
                }
                14 => {
                    for (o, fp) in c.take_dirty(ino, 40) {
                        let k = model.iter().position(|&(i, mo, _, _)| (i, mo) == (ino, o)).expect("taken page is cached");
                        assert_eq!(model[k].2, fp);
                        model[k].3 = false;
                        if reclaim.remove(&(ino, o)) {
                            let e = model.remove(k);
                            model.insert(0, e);
                        }
                    }
                }
                _ => {
                    let to = off + (x >> 50) % 64;
                    c.drop_range(ino, off, to);
                    model.retain(|&(i, o, _, _)| !(i == ino && o >= off && o < to));
                    reclaim.retain(|&(i, o)| !(i == ino && o >= off && o < to));
                }
            }
            while model.len() > cap && model.iter().any(|e| !e.3) {
                let e = model.remove(0);
                if e.3 {
                    reclaim.insert((e.0, e.1));
                    model.push(e);
                }
            }
            assert_eq!(c.len(), model.len(), "cached pages after op {n}");
            if n % 97 == 0 {
                for &(i, o, fp, dirty) in &model {
                    assert_eq!(c.peek_clean(i, o), (!dirty).then_some(fp), "page ({i}, {o}) after op {n}");
                }
            }
        }
        assert!(c.stats.evictions > 1_000, "the churn evicts: {}", c.stats.evictions);
    }

    /// A page written back after eviction met it dirty goes to the head, at
    /// the place the page evicted just after it had: that page's entry,
    /// left behind by eviction, must not read as cached again.
    #[test]
    fn a_page_pushed_to_the_head_does_not_revive_the_last_evicted() {
        let mut c = PageCache::new(2);
        c.write(1, 0, 10, SimTime(1));
        c.insert_clean(1, 1, 11);
        c.insert_clean(1, 2, 12); // page 0 is met dirty and moved on; page 1 goes
        assert_eq!((c.stats.evictions, c.len()), (1, 2));
        assert_eq!(c.take_dirty(1, 8), vec![(0, 10)]);
        assert_eq!((c.peek_clean(1, 1), c.get(1, 1), c.len()), (None, None, 2));
        c.insert_clean(1, 3, 13); // page 0 is at the head now
        assert_eq!((c.peek_clean(1, 0), c.peek_clean(1, 2), c.peek_clean(1, 3)), (None, Some(12), Some(13)));
    }

    /// A file's dirty bitmap lists its offsets in order over many chunks,
    /// as it grows and shrinks.
    #[test]
    fn dirty_offsets_match_a_set_across_chunks() {
        let mut d = DirtyFile::new(SimTime::ZERO);
        let mut model = std::collections::BTreeSet::new();
        let mut x = 5u64;
        for n in 0..20_000u64 {
            x = crate::sim::mix64(x + n);
            let off = (x >> 8) % 50_000;
            if x % 3 == 0 {
                assert_eq!(d.remove(off), model.remove(&off));
            } else {
                assert_eq!(d.insert(off), model.insert(off));
            }
            assert_eq!(d.contains(off), model.contains(&off));
            if n % 500 == 0 {
                let (from, to, max) = ((x >> 20) % 60_000, (x >> 40) % 60_000, (x >> 50) % 3_000 + 1);
                let want: Vec<u64> = model.range(from..to.max(from)).take(max as usize).copied().collect();
                assert_eq!(d.offsets(from, to, max as usize), want, "offsets({from}, {to}, {max})");
            }
        }
        assert_eq!((d.count, d.offsets(0, u64::MAX, usize::MAX)), (model.len(), model.into_iter().collect::<Vec<_>>()));
    }

    /// Dropping a range removes exactly the file's pages inside it, by key
    /// or by the LRU walk.
    #[test]
    fn drop_range_removes_exactly_the_range() {
        let mut c = PageCache::new(10_000);
        let mut x = 7u64;
        let mut model = std::collections::BTreeSet::new();
        for n in 0..6_000u64 {
            x = crate::sim::mix64(x + n);
            let (ino, off) = ((x % 5) as u32, (x >> 8) % 9_000);
            if x & 0x100 == 0 {
                c.write(ino, off, n as u32, SimTime(n));
            } else {
                c.insert_clean(ino, off, n as u32);
            }
            model.insert((ino, off));
        }
        for (ino, from, to) in [(1, 100, 200), (2, 0, u64::MAX), (3, 4_000, 8_500), (4, 8_990, 20_000), (0, 0, 50), (9, 0, 10)] {
            c.drop_range(ino, from, to);
            model.retain(|&(i, o)| !(i == ino && o >= from && o < to));
            assert_eq!(c.len(), model.len(), "after dropping {ino} [{from}, {to})");
        }
        for &(ino, off) in &model {
            assert!(c.get(ino, off).is_some(), "({ino}, {off}) was dropped");
        }
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

    #[test]
    fn a_file_dirtied_during_its_writeback_keeps_its_dirtied_when() {
        let s = |x: u64| SimTime::ZERO + SimDuration::from_secs(x);
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_ms(m);
        let mut c = PageCache::new(100);
        c.write(3, 0, 1, s(1));
        c.write(3, 1, 2, s(2));
        // A pass at 10 s takes every page; it finishes submitting at 12 s.
        assert_eq!(c.take_dirty_cyclic(3, usize::MAX).len(), 2);
        c.note_writeback(3, s(10), s(12), s(13), 2);
        assert!(!c.has_dirty(3));
        // Dirtied again at 11.5 s: the inode was still I_DIRTY_PAGES.
        c.write(3, 5, 3, ms(11_500));
        assert_eq!(c.dirty_files(), vec![(3, s(1))]);
        // Once clean after a pass that ended, a new dirtying starts afresh.
        c.take_dirty(3, usize::MAX);
        c.note_writeback(3, s(20), s(20), s(21), 1);
        c.write(3, 6, 4, s(21));
        assert_eq!(c.dirty_files(), vec![(3, s(21))]);
    }

    /// balance_dirty_pages' loop with no flusher running between turns.
    fn dirty_throttle(c: &mut PageCache, now: SimTime, dirty_pct: u32, background_pct: u32) -> SimTime {
        let mut t = now;
        loop {
            match c.throttle_step(t, dirty_pct, background_pct) {
                Throttle::Go => return t,
                Throttle::Pause(until) => t = until,
                Throttle::Last(until) => return until,
            }
        }
    }

    #[test]
    fn a_throttled_writer_sleeps_at_most_max_pause_at_a_time() {
        let s = |x: u64| SimTime::ZERO + SimDuration::from_secs(x);
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_ms(m);
        // 1000 pages: background 100, limit 200, setpoint 175.
        let mut c = PageCache::new(1000);
        c.note_writeback(1, s(0), s(0), s(1), 150);
        c.note_writeback(1, s(0), s(0), s(2), 30);
        // 180 pages in flight, above the setpoint, under the limit: one
        // pause, cut at MAX_PAUSE although the count gets back at 1 s.
        assert_eq!(dirty_throttle(&mut c, s(0), 20, 10), ms(200));
        // At the limit: whole pauses until writeback is under it (1 s),
        // then one more, which the setpoint ends before MAX_PAUSE.
        c.note_writeback(1, s(0), s(0), s(3), 20);
        assert_eq!(dirty_throttle(&mut c, s(0), 20, 10), s(1));
        let mut c = PageCache::new(1000);
        c.note_writeback(1, s(0), s(0), ms(300), 250);
        c.note_writeback(1, s(0), s(0), s(5), 180);
        assert_eq!(dirty_throttle(&mut c, s(0), 20, 10), ms(600));
        // wb_max_pause: 18000 pages the device writes in 100 ms (180 K pages
        // a second) give 18000 / (1 + 180000 / 32) + 1 = 4 jiffies.
        let mut c = PageCache::new(100_000);
        c.note_writeback(1, s(0), s(0), ms(100), 18_000);
        assert_eq!(dirty_throttle(&mut c, s(0), 20, 10), ms(16));
    }

    #[test]
    fn kupdate_looks_for_expired_files_once_per_interval() {
        let (s, d) = (|x: u64| SimTime::ZERO + SimDuration::from_secs(x), SimDuration::from_secs);
        let mut c = PageCache::new(100);
        c.write(1, 0, 1, s(0));
        assert_eq!(c.flusher_work(s(31), 10, d(30), d(5)), (0, vec![1]));
        // wb->last_old_flush is 31 s: nothing is expired before 36 s.
        assert_eq!(c.flusher_work(s(33), 10, d(30), d(5)), (0, vec![]));
        assert_eq!(c.flusher_work(s(36), 10, d(30), d(5)), (0, vec![1]));
    }
}
