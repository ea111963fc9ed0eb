//! The segment manager: SIT entries (valid bitmap, valid count, mtime per
//! main segment), section accounting, free / prefree sections, and the six
//! active logs (F2FS `curseg`) with LFS (append) and SSR (threaded logging)
//! allocation.
//!
//! F2FS rules kept here (fs/f2fs/segment.c):
//! * a section whose last valid block dies becomes *prefree*; it is free
//!   only after the next checkpoint (so a crash never reuses live blocks);
//! * SSR reuses only blocks clear in the kernel's `ckpt_valid_map`, which
//!   `update_sit_entry` sets when a block is allocated and the checkpoint
//!   resets to the valid map: a block checkpointed or killed since the last
//!   checkpoint is never reused ("SSR should never reuse block which is
//!   checkpointed or newly invalidated");
//! * an SSR victim is chosen as `get_ssr_segment` / `f2fs_get_victim` do:
//!   greedy on `ckpt_valid_blocks` (`get_gc_cost`) among the dirty segments
//!   of the log's own type first, then the other types of its kind (data or
//!   node, all six logs use SSR), visiting at most `max_victim_search`
//!   dirty segments from where the last search stopped (`last_victim`);
//! * a log fills the segments of its section in order, then takes the next
//!   free section after its hint, as `get_new_segment` does: under noheap
//!   (Linux 6.0's default) hot data and node logs from the volume's start
//!   with one segment per section, every other log after its own section;
//! * hot data and node segments are searched for SSR from segment 0 too;
//! * segment mtime is the block-weighted mean (`update_segment_mtime`).

use super::chunked::Chunked;
use super::dirty_segmap::DirtySegmap;
use super::layout::{Layout, BLOCKS_PER_SEG};
use super::ssr_index::SsrIndex;
use super::victim_index::{self, VictimIndex};
use crate::sim::SimTime;
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub enum LogType {
    HotData,
    WarmData,
    ColdData,
    HotNode,
    WarmNode,
    ColdNode,
}

impl LogType {
    pub const ALL: [LogType; 6] =
        [LogType::HotData, LogType::WarmData, LogType::ColdData, LogType::HotNode, LogType::WarmNode, LogType::ColdNode];
    pub fn is_node(self) -> bool {
        matches!(self, LogType::HotNode | LogType::WarmNode | LogType::ColdNode)
    }
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether searches for this type start at segment 0 under `noheap`
    /// (Linux 6.0 gc.c `select_policy`, segment.c `__get_next_segno`).
    fn noheap_from_start(self) -> bool {
        self == LogType::HotData || self.is_node()
    }

    /// The order `get_ssr_segment` tries SSR victims for a log of this type:
    /// its own type, then the others of its kind, from the cold end for warm
    /// and cold logs ("For node segments, let's do SSR more intensively").
    fn ssr_order(self) -> [LogType; 3] {
        use LogType::*;
        match self {
            HotData => [HotData, WarmData, ColdData],
            WarmData => [WarmData, ColdData, HotData],
            ColdData => [ColdData, WarmData, HotData],
            HotNode => [HotNode, WarmNode, ColdNode],
            WarmNode => [WarmNode, ColdNode, HotNode],
            ColdNode => [ColdNode, WarmNode, HotNode],
        }
    }
}

/// DEF_MAX_VICTIM_SEARCH (fs/f2fs/gc.h): what one SSR victim search
/// (dirty segments) or background-GC search (dirty sections) visits.
pub const DEF_MAX_VICTIM_SEARCH: u32 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum AllocMode {
    Lfs,
    Ssr,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct SegEntry {
    valid: u16,
    map: [u64; 8],
    /// Valid at the last checkpoint (what a crash recovers).
    ckpt_map: [u64; 8],
    /// The kernel's `ckpt_valid_map`: `ckpt_map` plus every block allocated
    /// since the checkpoint; SSR reuses only blocks clear here.
    ssr_map: [u64; 8],
    /// Its population (`ckpt_valid_blocks`, the SSR victim cost).
    ssr_used: u16,
    mtime_ns: u64,
    /// Log whose data the segment holds (set when a log opens it).
    log: Option<LogType>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum SecState {
    Free,
    InUse,
    Prefree,
    /// D2FS GC region: allocated by the device's Coupled GC, never by a log.
    Device,
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Curseg {
    segno: u32,
    next_blkoff: u32,
    mode: AllocMode,
}

/// What a GC victim policy sees of one section.
#[derive(Clone, Copy, Debug)]
pub struct SectionView {
    pub secno: u32,
    pub valid_blocks: u32,
    pub mtime_ns: u64,
}

/// Clone: a checkpoint's image of the SIT and cursegs is kept for remount
/// when crash recovery is tracked (fs/f2fs/mount.rs).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct SegmentManager {
    layout: Layout,
    // Chunked: memory only for the segments in use (IPLFS's partition is
    // thousands of times the flash; F2FS's is touched everywhere anyway).
    segs: Chunked<SegEntry>,
    sec_valid: Chunked<u32>,
    sec_state: Chunked<SecState>,
    /// IPLFS: each log allocates only from its own area of this many sections
    /// (log i from area i + 1 of the main area, iplfs.txt: top 3 LBA bits).
    log_area_sections: Option<u32>,
    log_hint: [u32; 6],
    /// Sum of the sections' valid counts (read on every write by the IPU policy).
    valid_total: u64,
    free_count: u32,
    /// No section below this is free (a lower bound, not the first free
    /// one): searches from the volume's start, noheap's hot data and node
    /// logs, begin here instead of walking every section in use. Lowered
    /// when a checkpoint frees a section, raised by a search that found one.
    first_free_at_least: u32,
    prefree: BTreeSet<u32>,
    cursegs: [Option<Curseg>; 6],
    /// ScaleLFS's dedicated write streams (DWS, scalelfs.txt §4.4.2): one
    /// current segment per GC collector, holding cold data; empty otherwise.
    streams: Vec<Option<Curseg>>,
    /// Segments whose SIT entry changed since the checkpoint.
    dirty_sit_entries: super::id_set::IdSet,
    /// Segments the logs have left since the last `take_closed_segments`
    /// (their SSA blocks are due).
    closed: Vec<u32>,
    /// Section GC is emptying: SSR must not pick its segments.
    gc_victim: Option<u32>,
    /// Per log type: segments holding some but not all valid blocks, not
    /// open by a log (`dirty_segmap[type]`).
    dirty: [DirtySegmap; 6],
    /// Where the next greedy victim search starts (`last_victim[GC_GREEDY]`).
    last_victim: u32,
    /// Where background GC's next cost-benefit search starts (`last_victim[GC_CB]`).
    #[serde(default)]
    last_victim_cb: u32,
    /// sit_info's min_mtime / max_mtime (cost-benefit's age scale).
    #[serde(default)]
    ages: crate::fs::victim::MtimeRange,
    max_victim_search: u32,
    /// Dirty segments SSR victim searches visited, for their cost.
    #[serde(default)]
    ssr_searched: u64,
    /// GC's candidate sections by (valid, secno), which foreground and
    /// background victim searches walk: a cache, built on the first search
    /// and kept by `touch`.
    #[serde(skip)]
    victims: VictimIndex,
    /// SSR's victim search by words (`SsrIndex`): built on the first SSR
    /// search, kept by every change to the dirty maps and their costs.
    #[serde(skip)]
    ssr_index: Option<SsrIndex>,
    /// Per segment, blocks invalidated since the last checkpoint that its
    /// discards must skip (`invalidate_undiscarded`); empty unless
    /// `track_undiscarded` was called (D2FS).
    #[serde(default)]
    undiscarded: Vec<[u64; 8]>,
}

/// Which invalidated blocks a checkpoint reports for discard: the runs in a
/// dirty segment's `ckpt_valid_map` that are no longer valid, that is the
/// blocks valid at the last checkpoint or allocated since, and invalid now.
pub enum CpDiscards<'a> {
    /// None (zoned F2FS resets zones, or discard is off): the maps are
    /// not scanned for runs.
    Off,
    /// F2FS's `add_discard_addrs`: in segments still holding valid blocks;
    /// dead segments are discarded whole when their section is freed.
    InUse(&'a mut dyn FnMut(u64, u32)),
    /// In every dirty segment, dead ones too: IPLFS discards every block
    /// invalidated since the last checkpoint and never a whole section;
    /// D2FS those of them not invalidated by `invalidate_undiscarded`.
    Invalidated(&'a mut dyn FnMut(u64, u32)),
}

/// What a checkpoint did to the segment state.
#[derive(Clone, Debug, Default)]
pub struct SitCheckpoint {
    /// Sections that turned from prefree to free.
    pub freed: Vec<u32>,
    pub dirty_entries: usize,
    /// SIT blocks (first copy) holding dirty entries.
    pub dirty_blocks: Vec<u64>,
}

#[inline]
fn bit(map: &[u64; 8], off: u32) -> bool {
    map[(off / 64) as usize] >> (off % 64) & 1 == 1
}

/// The first offset at or after `from` whose bit is `set` (word at a time).
fn next_bit(map: &[u64; 8], from: u32, set: bool) -> Option<u32> {
    let mut w = (from / 64) as usize;
    if w >= 8 {
        return None;
    }
    let word = |i: usize| if set { map[i] } else { !map[i] };
    let mut x = word(w) & (!0u64 << (from % 64));
    loop {
        if x != 0 {
            return Some(w as u32 * 64 + x.trailing_zeros());
        }
        w += 1;
        if w == 8 {
            return None;
        }
        x = word(w);
    }
}

impl SegmentManager {
    pub fn new(layout: &Layout) -> Self {
        let secs = layout.main_sections as usize;
        SegmentManager {
            layout: layout.clone(),
            segs: Chunked::new(
                layout.main_segments as usize,
                SegEntry { valid: 0, map: [0; 8], ckpt_map: [0; 8], ssr_map: [0; 8], ssr_used: 0, mtime_ns: 0, log: None },
            ),
            sec_valid: Chunked::new(secs, 0),
            sec_state: Chunked::new(secs, SecState::Free),
            log_area_sections: None,
            log_hint: [0; 6],
            valid_total: 0,
            free_count: secs as u32,
            prefree: BTreeSet::new(),
            first_free_at_least: 0,
            cursegs: [None; 6],
            streams: Vec::new(),
            dirty_sit_entries: Default::default(),
            closed: Vec::new(),
            gc_victim: None,
            dirty: std::array::from_fn(|_| DirtySegmap::new(layout.main_segments)),
            last_victim: 0,
            last_victim_cb: 0,
            // init_min_max_mtime at mount of a fresh volume: every section
            // is free (mtime 0) and the clock starts at 0.
            ages: crate::fs::victim::MtimeRange::default(),
            max_victim_search: DEF_MAX_VICTIM_SEARCH,
            ssr_searched: 0,
            victims: VictimIndex::default(),
            ssr_index: None,
            undiscarded: Vec::new(),
        }
    }

    /// Keep, until the next checkpoint, which invalidated blocks a
    /// checkpoint's discards must skip (`invalidate_undiscarded`).
    pub fn track_undiscarded(&mut self) {
        if self.undiscarded.is_empty() {
            self.undiscarded = vec![[0; 8]; self.layout.main_segments as usize];
        }
    }

    /// Dirty segments every SSR victim search so far visited.
    pub fn ssr_searched(&self) -> u64 {
        self.ssr_searched
    }

    /// sysfs `max_victim_search`.
    pub fn set_max_victim_search(&mut self, n: u32) {
        assert!(n > 0, "max_victim_search must be positive");
        self.max_victim_search = n;
    }

    /// Dirty segments of `log`'s type (`nr_dirty[type]`).
    pub fn dirty_segments(&self, log: LogType) -> u32 {
        self.dirty[log.index()].count()
    }

    fn is_curseg(&self, segno: u32) -> bool {
        self.open_logs().any(|c| c.segno == segno)
    }

    /// Every open log: the six cursegs, then the dedicated streams.
    fn open_logs(&self) -> impl Iterator<Item = &Curseg> {
        self.cursegs.iter().flatten().chain(self.streams.iter().flatten())
    }

    /// Give GC `n` dedicated write streams (none open yet).
    pub fn set_gc_streams(&mut self, n: usize) {
        assert!(self.streams.iter().all(Option::is_none), "resizing streams that are open");
        self.streams = vec![None; n];
    }

    pub fn gc_streams(&self) -> usize {
        self.streams.len()
    }

    /// Allocate the next block of dedicated stream `k` (cold data, append
    /// only: `new_curseg` in LFS mode, the next segment of its section or
    /// a new free section) and mark it valid.
    pub fn alloc_stream(&mut self, k: usize, now: SimTime) -> Result<u64, NoSpace> {
        if !self.streams[k].is_some_and(|c| c.next_blkoff < BLOCKS_PER_SEG) {
            let spsec = self.layout.segs_per_sec;
            let old = self.streams[k].map(|c| c.segno);
            let next = old
                .filter(|s| (s + 1) % spsec != 0)
                .map(|s| s + 1)
                .filter(|&s| self.segs[s as usize].valid == 0 && self.segs[s as usize].log.is_none());
            let segno = match next {
                Some(s) => s,
                None => self.take_free_section(LogType::ColdData, old).ok_or(NoSpace)? * spsec,
            };
            self.segs[segno as usize].log = Some(LogType::ColdData);
            self.streams[k] = Some(Curseg { segno, next_blkoff: 0, mode: AllocMode::Lfs });
            self.touch(self.layout.sec_of_seg(segno));
            if let Some(old) = old {
                self.closed.push(old);
                self.locate_dirty(old);
                self.release_if_dead(self.layout.sec_of_seg(old));
            }
        }
        let c = self.streams[k].as_mut().expect("open");
        let blk = self.layout.seg_start(c.segno) + c.next_blkoff as u64;
        c.next_blkoff += 1;
        self.mark_valid(blk, now);
        Ok(blk)
    }

    /// `locate_dirty_segment`: a segment of a log with some valid and some
    /// invalid blocks, not open, is dirty for its type; otherwise it is not.
    fn locate_dirty(&mut self, segno: u32) {
        let e = &self.segs[segno as usize];
        let Some(log) = e.log else { return };
        let dirty = e.valid > 0 && (e.valid as u32) < BLOCKS_PER_SEG && !self.is_curseg(segno);
        let changed = if dirty { self.dirty[log.index()].insert(segno) } else { self.dirty[log.index()].remove(segno) };
        self.ssr_index_follows(segno, log, changed);
    }

    /// Take `segno` out of its type's dirty map (it is opened or freed).
    fn undirty(&mut self, segno: u32, log: LogType) {
        if self.dirty[log.index()].remove(segno) {
            self.ssr_index_follows(segno, log, true);
        }
    }

    /// The SSR index, if built, follows `segno` of type `log`: it `moved`
    /// in or out of the dirty map, or, while dirty, its cost changed.
    fn ssr_index_follows(&mut self, segno: u32, log: LogType, moved: bool) {
        if let Some(ix) = &mut self.ssr_index {
            let cost = self.segs[segno as usize].ssr_used;
            if moved || (self.dirty[log.index()].contains(segno) && ix.cost(segno) != cost) {
                ix.update(log.index(), segno, cost, &self.dirty[log.index()]);
            }
        }
    }

    /// Hand sections `first..` to the device (D2FS GC region, d2fs.txt §6.2):
    /// logs never allocate there; upcalls mark their blocks valid.
    pub fn reserve_device_region(&mut self, first: u32) {
        for s in first..self.layout.main_sections {
            assert_eq!(self.sec_state[s as usize], SecState::Free, "device region section {s} in use");
            self.sec_state[s as usize] = SecState::Device;
            self.free_count -= 1;
        }
    }

    /// Sections in use among `0..first` and sections holding valid blocks
    /// among `first..` (D2FS region utilisation, Fig. 11).
    pub fn region_usage(&self, first: u32) -> (u32, u32) {
        let f = first as usize;
        let regular = self.sec_state.iter_allocated().filter(|&(i, &s)| i < f && s != SecState::Free).count() as u32;
        let gc = self.sec_valid.iter_allocated().filter(|&(i, &v)| i >= f && v > 0).count() as u32;
        (regular, gc)
    }

    /// Whether `blk` is in the kernel's `ckpt_valid_map`: valid at the last
    /// checkpoint or allocated since. Only such blocks may not be discarded
    /// (F2FS punches a pending discard when its block is allocated again).
    pub fn ckpt_valid_map(&self, blk: u64) -> bool {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as u32;
        bit(&self.segs[segno as usize].ssr_map, off)
    }

    /// Whether `blk` was valid at the last checkpoint.
    pub fn ckpt_valid(&self, blk: u64) -> bool {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as u32;
        bit(&self.segs[segno as usize].ckpt_map, off)
    }

    pub fn set_gc_victim(&mut self, secno: Option<u32>) {
        self.gc_victim = secno;
    }

    pub fn section_is_free(&self, secno: u32) -> bool {
        self.sec_state[secno as usize] == SecState::Free
    }

    pub fn free_sections(&self) -> u32 {
        self.free_count
    }
    pub fn prefree_sections(&self) -> usize {
        self.prefree.len()
    }
    pub fn valid_blocks_total(&self) -> u64 {
        self.valid_total
    }
    pub fn curseg_mode(&self, log: LogType) -> Option<AllocMode> {
        self.cursegs[log.index()].map(|c| c.mode)
    }

    /// Open the six logs where mkfs.f2fs places them (f2fs-tools
    /// mkfs/f2fs_format.c `f2fs_prepare_super_block`, noheap, its default
    /// since 1.9, one section per zone): hot, warm and cold node in the
    /// main area's sections 0, 1 and 2, hot data in 3, cold data at a
    /// quarter of the area and warm data at its half (`last_zone(total_zones
    /// >> 2)`, `>> 1`); on a zoned device all six in a row (hot, warm, cold
    /// node, then hot, warm, cold data). (`verify_cur_segs` would lay them
    /// in a row when two coincide, under 24 sections: smaller than any
    /// layout lfslab accepts.) A log whose section is not free (D2FS's
    /// device region) opens at its first write instead.
    pub fn place_logs_as_mkfs(&mut self, zoned: bool) {
        use LogType::*;
        let total = self.layout.main_sections;
        let at: [(LogType, u32); 6] = if zoned {
            [(HotNode, 0), (WarmNode, 1), (ColdNode, 2), (HotData, 3), (WarmData, 4), (ColdData, 5)]
        } else {
            let cold = (total / 4).saturating_sub(1).max(4);
            let warm = (total / 2).saturating_sub(1).max(cold + 1);
            [(HotNode, 0), (WarmNode, 1), (ColdNode, 2), (HotData, 3), (ColdData, cold), (WarmData, warm)]
        };
        // Layout::mkfs asks for room for six logs beyond the reserve (30
        // sections at least), so no two coincide and all fit.
        assert!(at.iter().all(|&(_, s)| s < total) && at[4].1 < at[5].1, "mkfs's logs do not fit {total} sections");
        for (log, sec) in at {
            if self.sec_state[sec as usize] == SecState::Free {
                self.claim_free_section(sec);
                self.open_lfs_segment(log, sec * self.layout.segs_per_sec);
            }
        }
    }

    /// A free section leaves the free list.
    fn claim_free_section(&mut self, sec: u32) {
        debug_assert_eq!(self.sec_state[sec as usize], SecState::Free);
        self.sec_state[sec as usize] = SecState::InUse;
        self.free_count -= 1;
    }

    /// `log` appends from the start of `segno` (LFS mode).
    fn open_lfs_segment(&mut self, log: LogType, segno: u32) {
        self.segs[segno as usize].log = Some(log);
        self.cursegs[log.index()] = Some(Curseg { segno, next_blkoff: 0, mode: AllocMode::Lfs });
        self.touch(self.layout.sec_of_seg(segno));
    }

    /// Blocks `log`'s current segment has left as `has_curseg_enough_space`
    /// counts them (Linux 6.0 segment.h): its usable blocks less its
    /// `ckpt_valid_blocks`, which also counts every block allocated since
    /// the checkpoint. The kernel's logs always hold a segment with room
    /// (mkfs places all six; `f2fs_allocate_data_block` opens the next as
    /// one fills), so a log not opened yet, or whose segment is full and
    /// moves on at its next block, counts a fresh segment: exact in LFS
    /// mode, an upper bound where the next segment would come from SSR.
    pub fn curseg_left_blocks(&self, log: LogType) -> u32 {
        match self.cursegs[log.index()] {
            Some(c) if c.next_blkoff < BLOCKS_PER_SEG => BLOCKS_PER_SEG - self.segs[c.segno as usize].ssr_used as u32,
            _ => BLOCKS_PER_SEG,
        }
    }

    /// Whether a log has a segment of `secno` open (by segment range: no
    /// division, as this runs on every write once GC has begun).
    fn sec_is_current(&self, secno: u32) -> bool {
        let first = secno * self.layout.segs_per_sec;
        let segs = first..first + self.layout.segs_per_sec;
        self.open_logs().any(|c| segs.contains(&c.segno))
    }

    /// IPLFS: log `i` allocates sections only in area `i` of `sections` sections each.
    pub fn set_log_areas(&mut self, sections: u32) {
        assert!(6 * sections as u64 <= self.layout.main_sections as u64, "six log areas of {sections} sections do not fit");
        self.log_area_sections = Some(sections);
        for (i, h) in self.log_hint.iter_mut().enumerate() {
            *h = i as u32 * sections;
        }
    }

    fn take_free_section(&mut self, log: LogType, current: Option<u32>) -> Option<u32> {
        let (base, n, hint) = match self.log_area_sections {
            Some(a) => (log.index() as u32 * a, a, self.log_hint[log.index()] - log.index() as u32 * a),
            None => (0, self.layout.main_sections, self.free_section_hint(log, current)),
        };
        let free = |s: &u32| self.sec_state[*s as usize] == SecState::Free;
        let s = if self.log_area_sections.is_some() {
            (0..n).map(|i| base + (hint + i) % n).find(free)?
        } else {
            // `hint..`, then `..hint`, skipping the sections known in use
            // (`find_next_zero_bit` on free_secmap, then from 0).
            let lo = self.first_free_at_least;
            let s = (hint.max(lo)..n).find(free).or_else(|| (lo..hint).find(free))?;
            if s < hint || hint <= lo {
                // Everything from the bound up to `s` was looked at.
                self.first_free_at_least = s + 1;
            }
            s
        };
        self.claim_free_section(s);
        if self.log_area_sections.is_some() {
            self.log_hint[log.index()] = base + (s - base + 1) % n;
        }
        Some(s)
    }

    /// Where `get_new_segment` starts looking for a free section for a log
    /// whose current segment is `current` (Linux 6.0 segment.c
    /// `__get_next_segno`; `new_curseg` searches ALLOC_RIGHT under noheap,
    /// wrapping to the first free section): with one segment per section,
    /// hot data and node logs start at 0 (noheap); otherwise a log goes on
    /// from its own current section (`last_victim[ALLOC_NEXT]` is set only
    /// by multi-device F2FS), and a log not yet placed starts at 0.
    fn free_section_hint(&self, log: LogType, current: Option<u32>) -> u32 {
        match current {
            Some(segno) if self.layout.segs_per_sec > 1 || !log.noheap_from_start() => self.layout.sec_of_seg(segno),
            _ => 0,
        }
    }

    /// Open a new segment for `log`: the next segment of its section, or the
    /// first of a new free section; `ssr` picks a dirty segment instead.
    fn new_segment(&mut self, log: LogType, ssr: bool) -> Result<(), NoSpace> {
        let old = self.cursegs[log.index()].map(|c| c.segno);
        let r = self.open_segment(log, ssr);
        if let Some(old) = old {
            self.closed.push(old);
            self.locate_dirty(old);
            self.release_if_dead(self.layout.sec_of_seg(old));
        }
        r
    }

    /// A section left by its last log with no valid block becomes prefree.
    /// Either way `sec` may have changed as a GC candidate: every caller
    /// has just left it or invalidated a block of it.
    fn release_if_dead(&mut self, sec: u32) {
        if self.sec_valid[sec as usize] == 0 && self.sec_state[sec as usize] == SecState::InUse && !self.sec_is_current(sec) {
            self.sec_state[sec as usize] = SecState::Prefree;
            self.prefree.insert(sec);
        }
        self.touch(sec);
    }

    /// Whether `sec` is a foreground GC candidate (in use, not open by a
    /// log), and its key if so.
    fn candidate_key(&self, sec: u32) -> u64 {
        if self.sec_state[sec as usize] == SecState::InUse && !self.sec_is_current(sec) {
            victim_index::key(self.sec_valid[sec as usize], sec)
        } else {
            victim_index::NOT_A_CANDIDATE
        }
    }

    /// `sec`'s state, valid count or openness changed: update the index.
    #[inline]
    fn touch(&mut self, sec: u32) {
        if self.victims.is_built() {
            let k = self.candidate_key(sec);
            self.victims.set(sec, k);
        }
    }

    /// The victim index, built on first use.
    fn victim_index(&mut self) -> &VictimIndex {
        if !self.victims.is_built() {
            let mut ix = VictimIndex::default();
            ix.build(self.layout.main_sections as usize, self.layout.blocks_per_sec() as u32, |s| self.candidate_key(s));
            self.victims = ix;
        }
        &self.victims
    }

    /// Foreground GC's victim, (section, valid blocks), and how many dirty
    /// units the search visited: `f2fs_get_victim` with FG_GC in LFS mode
    /// (Linux 6.0 gc.c `get_victim_by_default`, `select_policy`). FG_GC
    /// searches every dirty unit, greedy on the section's valid blocks,
    /// from the greedy cursor `last_victim[GC_GREEDY]` (which SSR shares)
    /// to the end and then from 0; the first unit of least cost wins. The
    /// cursor ends one unit past the last unit visited, or, when the pass
    /// wrapped, one unit on from where it was. The index
    /// answers what that pass would; `kernel_lfs_search` in the tests is
    /// the pass itself.
    pub fn greedy_victim(&mut self) -> (Option<(u32, u32)>, u32) {
        let spsec = self.layout.segs_per_sec;
        let main = self.layout.main_segments;
        let lv = self.last_victim;
        let start = lv / spsec;
        let ix = self.victim_index();
        let best = ix.first_min_from(start);
        let dirty = ix.dirty();
        if let Some(last) = ix.last_dirty() {
            // The pass wraps (it reaches the end with a cursor set) exactly
            // when dirty units lie before the first one it visits; it then
            // stops at the last of them, so the cursor moves one unit on
            // from where it was. Otherwise it stops at the last dirty unit.
            let wrapped = ix.next_dirty(0, start).is_some();
            self.last_victim = if wrapped { lv + spsec } else { last * spsec + spsec } % main;
        }
        (best, dirty)
    }

    /// `need_new_seg` / `new_curseg` / `change_curseg`: an LFS log goes on
    /// in the next free segment of its section; otherwise, when SSR is
    /// needed and a victim exists, the log continues in that dirty segment;
    /// else it opens a new free section.
    fn open_segment(&mut self, log: LogType, ssr: bool) -> Result<(), NoSpace> {
        let spsec = self.layout.segs_per_sec;
        let next_in_sec = self.cursegs[log.index()]
            .filter(|c| c.mode == AllocMode::Lfs && (c.segno + 1) % spsec != 0)
            .map(|c| c.segno + 1)
            .filter(|&s| self.segs[s as usize].valid == 0 && self.segs[s as usize].log.is_none());
        if next_in_sec.is_none() && ssr {
            if let Some(segno) = self.ssr_victim(log) {
                self.undirty(segno, self.segs[segno as usize].log.expect("dirty segment has a log"));
                // reset_curseg -> __set_sit_entry_type: the segment becomes the log's type.
                self.segs[segno as usize].log = Some(log);
                self.cursegs[log.index()] = Some(Curseg { segno, next_blkoff: 0, mode: AllocMode::Ssr });
                self.touch(self.layout.sec_of_seg(segno));
                self.advance_ssr(log);
                assert!(
                    self.cursegs[log.index()].is_some_and(|c| c.next_blkoff < BLOCKS_PER_SEG),
                    "SSR victim {segno} has no reusable block"
                );
                return Ok(());
            }
        }
        let segno = match next_in_sec {
            Some(s) => s,
            None => self.take_free_section(log, self.cursegs[log.index()].map(|c| c.segno)).ok_or(NoSpace)? * spsec,
        };
        self.open_lfs_segment(log, segno);
        Ok(())
    }

    /// `get_ssr_segment`: the log's own type first, then the other types of
    /// its kind.
    fn ssr_victim(&mut self, log: LogType) -> Option<u32> {
        log.ssr_order().into_iter().find_map(|t| self.get_victim_ssr(t))
    }

    /// `f2fs_get_victim` in SSR mode (BG_GC: the search is capped at
    /// `max_victim_search`): greedy on `ckpt_valid_blocks` over
    /// `dirty_segmap[t]`, starting at `last_victim` and wrapping once;
    /// sections open by a log or being collected are skipped
    /// (`sec_usage_check`). A segment all of whose blocks are unusable
    /// costs the maximum and is never chosen.
    ///
    /// Hot data and node segments are searched from segment 0 instead:
    /// `select_policy` starts there under `noheap`, which Linux 6.0 mounts
    /// by default (super.c `default_options` sets NOHEAP). The window then
    /// ends before the volume's end, so the search never wraps.
    fn get_victim_ssr(&mut self, t: LogType) -> Option<u32> {
        let max_search = self.dirty[t.index()].count().min(self.max_victim_search);
        if max_search == 0 {
            return None;
        }
        if self.ssr_index.is_none() {
            self.ssr_index = Some(SsrIndex::build(&self.dirty, |s| self.segs[s as usize].ssr_used));
        }
        let ix = self.ssr_index.as_ref().expect("built");
        let last_victim = self.last_victim;
        let usable = |segno: u32| {
            let sec = self.layout.sec_of_seg(segno);
            !self.sec_is_current(sec) && self.gc_victim != Some(sec)
        };
        let from = if t.noheap_from_start() { 0 } else { last_victim };
        let found = ix.search(t.index(), &self.dirty[t.index()], from, max_search, BLOCKS_PER_SEG as u16, usable);
        let segno = found.last;
        self.last_victim = if found.wrapped && segno <= last_victim { last_victim + 1 } else { segno + 1 } % self.layout.main_segments;
        self.ssr_searched += max_search as u64;
        found.victim
    }

    /// Move an SSR curseg's next_blkoff to the next block usable by SSR.
    fn advance_ssr(&mut self, log: LogType) {
        let c = self.cursegs[log.index()].as_mut().expect("open");
        let e = &self.segs[c.segno as usize];
        // `__next_free_blkoff`: the next block clear in cur | ckpt_valid_map
        // (a word at a time: an SSR segment is mostly used blocks).
        let used: [u64; 8] = std::array::from_fn(|i| e.map[i] | e.ssr_map[i]);
        c.next_blkoff = next_bit(&used, c.next_blkoff, false).unwrap_or(BLOCKS_PER_SEG);
    }

    /// Allocate the next block of `log` and mark it valid; `ssr` asks for
    /// slack-space recycling when a new segment is needed.
    pub fn alloc(&mut self, log: LogType, now: SimTime, ssr: bool) -> Result<u64, NoSpace> {
        loop {
            match self.cursegs[log.index()] {
                Some(c) if c.next_blkoff < BLOCKS_PER_SEG => break,
                _ => self.new_segment(log, ssr)?,
            }
        }
        let c = self.cursegs[log.index()].expect("open");
        let blk = self.layout.seg_start(c.segno) + c.next_blkoff as u64;
        self.mark_valid(blk, now);
        let c = self.cursegs[log.index()].as_mut().expect("open");
        c.next_blkoff += 1;
        if c.mode == AllocMode::Ssr {
            self.advance_ssr(log);
        }
        Ok(blk)
    }

    fn mark_dirty(&mut self, segno: u32) {
        self.dirty_sit_entries.insert(segno);
    }

    pub fn mark_valid(&mut self, blk: u64, now: SimTime) {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as u32;
        let e = &mut self.segs[segno as usize];
        assert!(!bit(&e.map, off), "block {blk} allocated while still valid");
        e.map[(off / 64) as usize] |= 1 << (off % 64);
        // update_sit_entry: "SSR should never reuse block which is
        // checkpointed or newly invalidated".
        if !bit(&e.ssr_map, off) {
            e.ssr_map[(off / 64) as usize] |= 1 << (off % 64);
            e.ssr_used += 1;
        }
        // update_segment_mtime: block-weighted running mean; sit_info's
        // max_mtime follows the clock.
        self.ages.max_ns = self.ages.max_ns.max(now.ns());
        let e = &mut self.segs[segno as usize];
        let v = e.valid as i64;
        e.mtime_ns = (e.mtime_ns as i64 + (now.ns() as i64 - e.mtime_ns as i64) / (v + 1)) as u64;
        e.valid += 1;
        let sec = self.layout.sec_of_seg(segno) as usize;
        self.sec_valid[sec] += 1;
        self.valid_total += 1;
        if self.sec_state[sec] == SecState::Prefree {
            // SSR can reuse a prefree section's checkpoint-invalid blocks.
            self.prefree.remove(&(sec as u32));
            self.sec_state[sec] = SecState::InUse;
        }
        self.mark_dirty(segno);
        self.locate_dirty(segno);
        self.touch(sec as u32);
    }

    pub fn invalidate(&mut self, blk: u64) {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as u32;
        let e = &mut self.segs[segno as usize];
        assert!(bit(&e.map, off), "invalidating block {blk} that is not valid");
        e.map[(off / 64) as usize] &= !(1 << (off % 64));
        e.valid -= 1;
        let sec = self.layout.sec_of_seg(segno);
        self.sec_valid[sec as usize] -= 1;
        self.valid_total -= 1;
        self.mark_dirty(segno);
        self.locate_dirty(segno);
        self.release_if_dead(sec);
    }

    /// Invalidate `blk` and, when tracked, leave it out of the next
    /// checkpoint's discards (`CpDiscards::Invalidated`): D2FS discarded it
    /// already, or the device moved it.
    pub fn invalidate_undiscarded(&mut self, blk: u64) {
        self.invalidate(blk);
        if !self.undiscarded.is_empty() {
            let segno = self.layout.segno_of(blk);
            let off = blk - self.layout.seg_start(segno);
            self.undiscarded[segno as usize][(off / 64) as usize] |= 1 << (off % 64);
        }
    }

    /// Hint that block `blk` is invalidated soon: fetch its segment's
    /// entry and section count. Never changes results.
    #[inline]
    pub fn prefetch_block(&self, blk: u64) {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as usize;
        // Addresses only: indexing loads the chunk pointer, not the entry.
        let e = &self.segs[segno as usize];
        crate::prefetch::prefetch(&e.map, off / 64);
        crate::prefetch::prefetch(std::slice::from_ref(&e.valid), 0);
        self.sec_valid.prefetch(self.layout.sec_of_seg(segno) as usize);
    }

    pub fn is_valid(&self, blk: u64) -> bool {
        let segno = self.layout.segno_of(blk);
        let off = (blk - self.layout.seg_start(segno)) as u32;
        bit(&self.segs[segno as usize].map, off)
    }

    /// Valid blocks of segment `segno`, in address order.
    pub fn valid_blocks_of(&self, segno: u32) -> impl Iterator<Item = u64> + '_ {
        let start = self.layout.seg_start(segno);
        let e = &self.segs[segno as usize];
        (0..BLOCKS_PER_SEG).filter(move |&o| bit(&e.map, o)).map(move |o| start + o as u64)
    }

    pub fn section_valid(&self, secno: u32) -> u32 {
        self.sec_valid[secno as usize]
    }

    pub fn segment_valid(&self, segno: u32) -> u16 {
        self.segs[segno as usize].valid
    }

    /// A log has filled the segment and none has it open: until it is
    /// freed, only invalidation changes it (SSR may still reopen it).
    pub fn sealed(&self, segno: u32) -> bool {
        self.segs[segno as usize].log.is_some() && !self.open_logs().any(|c| c.segno == segno)
    }

    pub fn segment_log(&self, segno: u32) -> Option<LogType> {
        self.segs[segno as usize].log
    }

    /// Background GC's victim (`f2fs_get_victim` with BG_GC in LFS mode,
    /// Linux 6.0 gc.c `get_victim_by_default` and `select_policy`): walk
    /// the dirty units (`dirty_secmap`, or `dirty_segmap[DIRTY]` with one
    /// segment per section) from where the policy's last search stopped
    /// (`last_victim[gc_mode]`, a segment number; greedy shares SSR's),
    /// wrapping once, until `max_victim_search` units have been visited.
    /// Sections open by a log or being collected are skipped
    /// (`sec_usage_check`); the first section of lowest cost wins. The
    /// cursor then stands one unit past the last unit visited, or, when the
    /// walk wrapped and stopped before its start, one unit on from where
    /// it was. `cost_benefit` is `select_gc_type`'s GC_CB (else GC_GREEDY).
    /// Returns the victim and how many units the search visited.
    pub fn bg_victim(&mut self, cost_benefit: bool) -> (Option<u32>, u32) {
        self.lfs_victim(cost_benefit, Some(self.max_victim_search))
    }

    /// Foreground GC by cost-benefit, as `select_gc_type` picks it under
    /// gc_idle = 1 (GC_IDLE_CB): the same walk over every dirty unit from
    /// `last_victim[GC_CB]`. A pass over the dirty units per victim (there
    /// is no index for an age-weighted cost); only that setting pays it.
    pub fn fg_cost_benefit_victim(&mut self) -> (Option<u32>, u32) {
        self.lfs_victim(true, None)
    }

    /// The LFS victim walk itself; `cap` bounds the units visited (BG_GC's
    /// `max_victim_search`; FG_GC visits every dirty unit).
    fn lfs_victim(&mut self, cost_benefit: bool, cap: Option<u32>) -> (Option<u32>, u32) {
        use crate::fs::victim::{CostBenefit, Greedy, SectionVictim};
        let policy: &dyn SectionVictim = if cost_benefit { &CostBenefit } else { &Greedy };
        let dirty = self.victim_index().dirty();
        let max_search = cap.map_or(dirty, |c| dirty.min(c));
        if max_search == 0 {
            return (None, 0);
        }
        let main = self.layout.main_segments;
        let spsec = self.layout.segs_per_sec;
        let per_sec = self.layout.blocks_per_sec();
        let mut lv = if cost_benefit { self.last_victim_cb } else { self.last_victim };
        let last_victim = lv;
        let (mut last_unit, mut offset, mut nsearched) = (self.layout.main_sections, last_victim / spsec, 0u32);
        let mut min_cost = policy.max_cost(per_sec);
        let mut best = None;
        loop {
            let Some(sec) = self.victims.next_dirty(offset, last_unit) else {
                if lv != 0 {
                    last_unit = lv / spsec;
                    lv = 0;
                    offset = 0;
                    continue;
                }
                break;
            };
            let segno = sec * spsec;
            offset = sec + 1;
            nsearched += 1;
            // sec_usage_check: a dirty unit is never open by a log (the
            // index's candidates exclude those), so only GC's own victim.
            if self.gc_victim != Some(sec) {
                let view = self.section_view(sec);
                let cost = policy.cost(&view, &mut self.ages, per_sec);
                if cost < min_cost {
                    min_cost = cost;
                    best = Some(sec);
                }
            }
            if nsearched >= max_search {
                lv = if lv == 0 && segno <= last_victim { last_victim + spsec } else { segno + spsec } % main;
                break;
            }
        }
        if cost_benefit {
            self.last_victim_cb = lv;
        } else {
            self.last_victim = lv;
        }
        (best, nsearched)
    }

    /// One section as a victim policy sees it: valid blocks and the mean
    /// of its segments' mtimes (`get_cb_cost`).
    fn section_view(&self, s: u32) -> SectionView {
        let spsec = self.layout.segs_per_sec as usize;
        let mtime_ns = (s as usize * spsec..(s as usize + 1) * spsec).map(|i| self.segs[i].mtime_ns as u128).sum::<u128>() / spsec as u128;
        SectionView { secno: s, valid_blocks: self.sec_valid[s as usize], mtime_ns: mtime_ns as u64 }
    }

    /// Sections a GC victim may come from: in use, not open by a log.
    pub fn victim_candidates(&self) -> Vec<SectionView> {
        // The open logs' sections once, not a pass over the logs per section.
        let current: Vec<u32> = self.open_logs().map(|c| self.layout.sec_of_seg(c.segno)).collect();
        (0..self.layout.main_sections)
            .filter(|&s| self.sec_state[s as usize] == SecState::InUse && !current.contains(&s))
            .map(|s| self.section_view(s))
            .collect()
    }

    pub fn take_closed_segments(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.closed)
    }

    /// Checkpoint: prefree sections become free (returned, for discard), the
    /// checkpointed bitmaps catch up, and the dirty SIT state is reported and
    /// cleared. Sections in `keep` stay prefree (D2FS: records still name them).
    ///
    /// `discard` gets the runs of blocks in `ckpt_valid_map` but no longer
    /// valid as the walk over the dirty entries finds them (see
    /// `CpDiscards`); with `Off` the maps are not scanned for runs.
    pub fn checkpoint(&mut self, keep: &BTreeSet<u32>, mut discard: CpDiscards) -> SitCheckpoint {
        let (kept, freed): (BTreeSet<u32>, BTreeSet<u32>) = std::mem::take(&mut self.prefree).into_iter().partition(|s| keep.contains(s));
        self.prefree = kept;
        let freed: Vec<u32> = freed.into_iter().collect();
        let spsec = self.layout.segs_per_sec as usize;
        for &s in &freed {
            debug_assert_eq!(self.sec_valid[s as usize], 0);
            self.sec_state[s as usize] = SecState::Free;
            self.free_count += 1;
            self.first_free_at_least = self.first_free_at_least.min(s);
            for i in s as usize * spsec..(s as usize + 1) * spsec {
                if let Some(l) = self.segs[i].log {
                    self.undirty(i as u32, l);
                }
                let e = &mut self.segs[i];
                e.log = None;
                e.mtime_ns = 0;
            }
        }
        let dirty_entries = self.dirty_sit_entries.take_sorted();
        for &segno in &dirty_entries {
            let e = &self.segs[segno as usize];
            let wanted = match discard {
                CpDiscards::Off => None,
                CpDiscards::InUse(ref mut f) => (e.valid > 0).then_some(f),
                CpDiscards::Invalidated(ref mut f) => Some(f),
            };
            let skip = self.undiscarded.get_mut(segno as usize).map_or([0; 8], std::mem::take);
            if let Some(discard) = wanted.filter(|_| (e.valid as u32) < BLOCKS_PER_SEG) {
                let start = self.layout.seg_start(segno);
                let mut d = [0u64; 8];
                for (w, x) in d.iter_mut().enumerate() {
                    *x = e.ssr_map[w] & !e.map[w] & !skip[w];
                }
                let mut off = 0;
                while let Some(s) = next_bit(&d, off, true) {
                    let end = next_bit(&d, s, false).unwrap_or(BLOCKS_PER_SEG);
                    discard(start + s as u64, end - s);
                    off = end;
                }
            }
            let e = &mut self.segs[segno as usize];
            e.ckpt_map = e.map;
            e.ssr_map = e.map;
            e.ssr_used = e.valid;
            if let Some(log) = e.log {
                // A dirty segment's cost may have changed.
                self.ssr_index_follows(segno, log, false);
            }
        }
        let mut dirty_blocks: Vec<u64> = dirty_entries.iter().map(|&s| self.layout.sit_block_of(s)).collect();
        dirty_blocks.dedup();
        SitCheckpoint { freed, dirty_entries: dirty_entries.len(), dirty_blocks }
    }

    // ---- mount after a crash (fs/f2fs/mount.rs) ------------------------------

    /// Every valid block, in address order (the SIT's valid maps).
    pub fn valid_blocks(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.valid_total as usize);
        for (segno, e) in self.segs.iter_allocated() {
            if e.valid > 0 {
                let start = self.layout.seg_start(segno as u32);
                out.extend((0..BLOCKS_PER_SEG).filter(|&o| bit(&e.map, o)).map(|o| start + o as u64));
            }
        }
        out
    }

    /// Roll-forward found `blk` in use (`f2fs_replace_block` in recovery):
    /// mark it valid. A segment that had no type gets `log`, as
    /// `__f2fs_replace_block` types an empty segment WARM (or COLD) data; a
    /// free section leaves the free list.
    pub fn recover_block(&mut self, blk: u64, log: LogType, now: SimTime) {
        let segno = self.layout.segno_of(blk);
        let sec = self.layout.sec_of_seg(segno) as usize;
        if self.sec_state[sec] == SecState::Free {
            self.claim_free_section(sec as u32);
        }
        if self.segs[segno as usize].log.is_none() && self.sec_state[sec] != SecState::Device {
            self.segs[segno as usize].log = Some(log);
        }
        self.mark_valid(blk, now);
    }

    /// Sections the logs have open (zoned F2FS finishes them at remount).
    pub fn curseg_sections(&self) -> Vec<u32> {
        self.open_logs().map(|c| self.layout.sec_of_seg(c.segno)).collect()
    }

    /// Move every log to a new free section, as `f2fs_fix_curseg_write_pointer`
    /// does after recovery (`f2fs_allocate_new_section`): blocks a crashed
    /// mount wrote past the checkpoint's positions are never overwritten.
    pub fn restart_logs(&mut self) -> Result<(), NoSpace> {
        self.gc_victim = None;
        let open: Vec<(LogType, u32)> =
            LogType::ALL.iter().filter_map(|&l| self.cursegs[l.index()].map(|c| (l, c.segno))).collect();
        // All or nothing: a log left without a section would be lost to a retry.
        let room = match self.log_area_sections {
            None => self.free_count as usize >= open.len(),
            Some(a) => open.iter().all(|&(l, _)| {
                (l.index() as u32 * a..(l.index() as u32 + 1) * a).any(|s| self.sec_state[s as usize] == SecState::Free)
            }),
        };
        if !room {
            return Err(NoSpace);
        }
        for &(l, old) in &open {
            self.cursegs[l.index()] = None;
            let s = self.take_free_section(l, Some(old)).expect("room checked above") * self.layout.segs_per_sec;
            self.open_lfs_segment(l, s);
        }
        // Dedicated streams reopen when GC next writes (ScaleLFS checkpoints
        // their positions; a remount continues in a new section as the
        // cursegs do here).
        let streams: Vec<u32> = self.streams.iter_mut().filter_map(|c| c.take().map(|c| c.segno)).collect();
        for old in open.into_iter().map(|(_, s)| s).chain(streams) {
            self.closed.push(old);
            self.locate_dirty(old);
            // Every segment of a left section may now be dirty (only the open one was exempt).
            let sec = self.layout.sec_of_seg(old);
            for s in sec * self.layout.segs_per_sec..(sec + 1) * self.layout.segs_per_sec {
                self.locate_dirty(s);
            }
            self.release_if_dead(sec);
        }
        Ok(())
    }

    /// Consistency: per-section counts equal the sum of segment bitmaps, and
    /// the free count matches the states.
    pub fn check(&self) -> Result<(), String> {
        let spsec = self.layout.segs_per_sec as usize;
        let mut sums = std::collections::BTreeMap::new();
        for (segno, e) in self.segs.iter_allocated() {
            let pop: u32 = e.map.iter().map(|w| w.count_ones()).sum();
            assert_eq!(pop, e.valid as u32, "segment bitmap and count disagree");
            let ssr: u32 = e.ssr_map.iter().map(|w| w.count_ones()).sum();
            assert_eq!(ssr, e.ssr_used as u32, "segment {segno}: ckpt_valid_map and its count disagree");
            let want = e.log.filter(|_| e.valid > 0 && (e.valid as u32) < BLOCKS_PER_SEG && !self.is_curseg(segno as u32));
            for t in LogType::ALL {
                if self.dirty[t.index()].contains(segno as u32) != (want == Some(t)) {
                    return Err(format!("segment {segno} ({} valid, log {:?}): dirty map of {t:?} is wrong", e.valid, e.log));
                }
            }
            *sums.entry(segno / spsec).or_insert(0u32) += pop;
        }
        if let Some(ix) = &self.ssr_index {
            ix.check(&self.dirty, |s| self.segs[s as usize].ssr_used)?;
        }
        let secs: std::collections::BTreeSet<usize> =
            self.sec_valid.iter_allocated().map(|(i, _)| i).chain(self.sec_state.iter_allocated().map(|(i, _)| i)).chain(sums.keys().copied()).collect();
        for s in secs {
            let sum = sums.get(&s).copied().unwrap_or(0);
            if sum != self.sec_valid[s] {
                return Err(format!("section {s}: bitmaps hold {sum} valid blocks, count says {}", self.sec_valid[s]));
            }
            if self.sec_state[s] == SecState::Free && sum != 0 {
                return Err(format!("free section {s} holds {sum} valid blocks"));
            }
        }
        if self.victims.is_built() {
            for s in 0..self.layout.main_sections {
                if self.victims.get(s) != Some(self.candidate_key(s)) {
                    return Err(format!("section {s}: the victim index holds {:?}, the section says {}", self.victims.get(s), self.candidate_key(s)));
                }
            }
            let per_sec = self.layout.blocks_per_sec();
            let dirty = (0..self.layout.main_sections)
                .filter(|&s| self.candidate_key(s) != victim_index::NOT_A_CANDIDATE && (self.sec_valid[s as usize] as u64) < per_sec)
                .count() as u32;
            if self.victims.dirty() != dirty {
                return Err(format!("the victim index counts {} dirty sections, the sections {dirty}", self.victims.dirty()));
            }
        }
        let total: u64 = self.sec_valid.iter_allocated().map(|(_, &v)| v as u64).sum();
        if total != self.valid_total {
            return Err(format!("sections hold {total} valid blocks, running total says {}", self.valid_total));
        }
        if let Some(s) = (0..self.first_free_at_least).find(|&s| self.sec_state[s as usize] == SecState::Free) {
            return Err(format!("section {s} is free below the first-free bound {}", self.first_free_at_least));
        }
        let not_free = self.sec_state.iter_allocated().filter(|&(_, &s)| s != SecState::Free).count() as u32;
        let free = self.layout.main_sections - not_free;
        if free != self.free_count {
            return Err(format!("{free} free sections but count says {}", self.free_count));
        }
        Ok(())
    }
}

/// No free section left for a log: the filesystem is out of space (a GC or
/// configuration problem the caller must handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSpace;

#[cfg(test)]
mod tests {
    use super::*;

    fn sm() -> SegmentManager {
        SegmentManager::new(&Layout::mkfs(256 << 8, 2, Some(20.0)).unwrap())
    }

    /// Background GC searches `max_victim_search` dirty sections from where
    /// its last search stopped and wraps (get_victim_by_default), so it
    /// names the best section of that window, not of the volume.
    #[test]
    fn bg_victim_searches_a_window_from_the_last_victim() {
        let mut m = sm();
        let spsec = m.layout.segs_per_sec;
        let mut blocks: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
        for i in 0..12 * spsec as u64 * BLOCKS_PER_SEG as u64 {
            let b = m.alloc(LogType::WarmData, SimTime(i), false).unwrap();
            blocks.entry(m.layout.sec_of_seg(m.layout.segno_of(b))).or_default().push(b);
        }
        // Sections the log has left, in order; section k loses k + 1 blocks
        // per segment, so later ones are emptier.
        let secs: Vec<u32> = blocks.keys().copied().filter(|&s| !m.sec_is_current(s)).collect();
        assert!(secs.len() >= 8, "{secs:?}");
        for (k, &s) in secs.iter().enumerate() {
            for seg in s * spsec..(s + 1) * spsec {
                let live: Vec<u64> = m.valid_blocks_of(seg).take(k + 1).collect();
                for b in live {
                    m.invalidate(b);
                }
            }
        }
        // A window of two units (sections: Linux 6.0 searches
        // `dirty_secmap` a section at a time).
        m.set_max_victim_search(2);
        assert_eq!(m.bg_victim(false), (Some(secs[1]), 2));
        // The cursor moves one unit past the last section visited, so the
        // next window is the next two sections.
        assert_eq!(m.bg_victim(false), (Some(secs[3]), 2));
        m.set_max_victim_search(u32::MAX);
        assert_eq!(m.bg_victim(false).0, Some(*secs.last().unwrap()));
    }

    /// The kernel's LFS victim search (Linux 6.0 gc.c `get_victim_by_default`
    /// after `select_policy`), transcribed a unit at a time over a dirty map
    /// computed from the sections themselves: the reference the indexed
    /// searches must match. `fg`: FG_GC, every dirty unit is searched.
    fn kernel_lfs_search(m: &mut SegmentManager, cost_benefit: bool, fg: bool) -> (Option<u32>, u32) {
        use crate::fs::victim::{CostBenefit, Greedy, SectionVictim};
        let policy: &dyn SectionVictim = if cost_benefit { &CostBenefit } else { &Greedy };
        let spsec = m.layout.segs_per_sec;
        let per_sec = m.layout.blocks_per_sec();
        let dirty: Vec<bool> = (0..m.layout.main_sections)
            .map(|s| m.sec_state[s as usize] == SecState::InUse && !m.sec_is_current(s) && (m.sec_valid[s as usize] as u64) < per_sec)
            .collect();
        let count = dirty.iter().filter(|&&d| d).count() as u32;
        let max_search = if fg { count } else { count.min(m.max_victim_search) };
        if max_search == 0 {
            return (None, 0);
        }
        fn cursor(m: &mut SegmentManager, cb: bool) -> &mut u32 {
            if cb {
                &mut m.last_victim_cb
            } else {
                &mut m.last_victim
            }
        }
        let last_victim = *cursor(m, cost_benefit);
        let (mut last_segment, mut offset, mut nsearched) = (m.layout.main_segments, last_victim, 0u32);
        let mut min_cost = policy.max_cost(per_sec);
        let mut best = None;
        loop {
            let Some(unit) = (offset / spsec..last_segment / spsec).find(|&u| dirty[u as usize]) else {
                if *cursor(m, cost_benefit) != 0 {
                    last_segment = *cursor(m, cost_benefit);
                    *cursor(m, cost_benefit) = 0;
                    offset = 0;
                    continue;
                }
                break;
            };
            let segno = unit * spsec;
            offset = segno + spsec;
            nsearched += 1;
            if !m.sec_is_current(unit) && m.gc_victim != Some(unit) {
                let view = m.section_view(unit);
                let cost = policy.cost(&view, &mut m.ages, per_sec);
                if cost < min_cost {
                    min_cost = cost;
                    best = Some(unit);
                }
            }
            if nsearched >= max_search {
                let main = m.layout.main_segments;
                let c = cursor(m, cost_benefit);
                *c = if *c == 0 && segno <= last_victim { last_victim + spsec } else { segno + spsec } % main;
                break;
            }
        }
        (best, nsearched)
    }

    /// Foreground GC's and background GC's victims and cursors, from the
    /// index, match the kernel's loop through overwrites, SSR, dedicated
    /// streams, checkpoints and a remount.
    #[test]
    fn victim_searches_match_the_kernel_loop() {
        // Two-segment sections (dirty_secmap) and one segment per section
        // (dirty_segmap[DIRTY], and noheap's free-section hints).
        for spsec in [2, 1] {
            victim_searches_match_the_kernel_loop_with(SegmentManager::new(&Layout::mkfs(256 << 8, spsec, Some(20.0)).unwrap()));
        }
    }

    fn victim_searches_match_the_kernel_loop_with(mut m: SegmentManager) {
        m.set_gc_streams(2);
        let mut rng = crate::sim::SimRng::new(7);
        let mut live: Vec<u64> = Vec::new();
        let per_sec = m.layout.blocks_per_sec();
        let logs = [LogType::HotData, LogType::WarmData, LogType::ColdData];
        let (mut gcs, mut compared) = (0, 0);
        for step in 0..60_000u64 {
            let now = SimTime(step);
            // Keep about 70% of the blocks live: overwrite once there.
            if live.len() as u64 > m.layout.main_segments as u64 * BLOCKS_PER_SEG as u64 * 7 / 10 {
                let i = rng.below(live.len() as u64) as usize;
                m.invalidate(live.swap_remove(i));
            }
            // Foreground GC by the index: move the victim's blocks to the cold log.
            while m.free_sections() < 16 / m.layout.segs_per_sec {
                let (Some((victim, _)), _) = m.greedy_victim() else { break };
                let spsec = m.layout.segs_per_sec;
                let blocks: Vec<u64> = (victim * spsec..(victim + 1) * spsec).flat_map(|g| m.valid_blocks_of(g).collect::<Vec<_>>()).collect();
                for old in blocks {
                    m.invalidate(old);
                    let new = m.alloc(LogType::ColdData, now, false).expect("GC has room");
                    let i = live.iter().position(|&x| x == old).expect("a valid block is live");
                    live[i] = new;
                }
                m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
                gcs += 1;
            }
            let r = rng.below(100);
            let b = if r < 5 {
                m.alloc_stream(rng.below(2) as usize, now)
            } else {
                m.alloc(logs[rng.below(3) as usize], now, r < 40)
            };
            live.push(b.expect("room: 30% of the volume is invalid or free"));
            if step % 997 == 0 {
                m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
            }
            if step == 30_000 {
                m.restart_logs().unwrap();
            }
            if step % 101 == 0 {
                let mut k = m.clone();
                let want = kernel_lfs_search(&mut k, false, true);
                let (best, searched) = m.greedy_victim();
                // The index also names a full section when nothing is dirty
                // (the caller finds it futile); the kernel names none.
                let best = best.filter(|&(_, valid)| (valid as u64) < per_sec).map(|(s, _)| s);
                assert_eq!((best, searched), want, "FG, step {step}");
                assert_eq!(m.last_victim, k.last_victim, "FG cursor, step {step}");
                compared += 1;
            }
            if step % 211 == 0 {
                // gc_idle = 1: foreground GC by cost-benefit over every dirty unit.
                let mut k = m.clone();
                let want = kernel_lfs_search(&mut k, true, true);
                assert_eq!(m.fg_cost_benefit_victim(), want, "FG cost-benefit, step {step}");
                assert_eq!(m.last_victim_cb, k.last_victim_cb, "FG cost-benefit cursor, step {step}");
            }
            if step % 307 == 0 {
                let cb = step % 2 == 0;
                m.set_max_victim_search(1 + rng.below(6) as u32);
                let mut k = m.clone();
                let want = kernel_lfs_search(&mut k, cb, false);
                assert_eq!(m.bg_victim(cb), want, "BG (cost-benefit: {cb}), step {step}");
                assert_eq!((m.last_victim, m.last_victim_cb), (k.last_victim, k.last_victim_cb), "BG cursors, step {step}");
            }
            if step % 5003 == 0 {
                m.check().unwrap();
                // A copy (a checkpoint image) rebuilds its own index.
                let mut c = m.clone();
                assert_eq!(c.greedy_victim(), m.greedy_victim());
            }
        }
        m.check().unwrap();
        assert!(gcs > 20 && m.ssr_searched() > 0 && compared > 500, "the run exercised GC ({gcs} victims), SSR and the searches");
    }

    #[test]
    fn lfs_fills_section_then_takes_next() {
        let mut m = sm();
        let free0 = m.free_sections();
        let first = m.alloc(LogType::WarmData, SimTime(1), false).unwrap();
        assert_eq!(m.free_sections(), free0 - 1);
        let mut last = first;
        for _ in 1..1024 {
            let b = m.alloc(LogType::WarmData, SimTime(1), false).unwrap();
            assert_eq!(b, last + 1, "append-only within a section");
            last = b;
        }
        // Section of 2 segments (1024 blocks) is full: the next block opens a new section.
        m.alloc(LogType::WarmData, SimTime(1), false).unwrap();
        assert_eq!(m.free_sections(), free0 - 2);
        m.check().unwrap();
    }

    #[test]
    fn dead_section_is_prefree_until_checkpoint() {
        let mut m = sm();
        let blocks: Vec<u64> = (0..1024).map(|_| m.alloc(LogType::ColdData, SimTime(0), false).unwrap()).collect();
        // Move the log off this section.
        m.alloc(LogType::ColdData, SimTime(0), false).unwrap();
        let free = m.free_sections();
        for b in &blocks {
            m.invalidate(*b);
        }
        assert_eq!(m.prefree_sections(), 1);
        assert_eq!(m.free_sections(), free);
        let c = m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        assert_eq!(c.freed.len(), 1);
        assert!(c.dirty_entries >= 2 && !c.dirty_blocks.is_empty());
        assert_eq!(m.free_sections(), free + 1);
        m.check().unwrap();
    }

    /// A log's next free section (`__get_next_segno` under noheap, one
    /// segment per section): hot data and node logs take the volume's
    /// first free section, warm and cold data the first after their own.
    #[test]
    fn free_sections_are_found_from_each_logs_hint() {
        let mut m = SegmentManager::new(&Layout::mkfs(256 << 8, 1, Some(20.0)).unwrap());
        let sec_of = |m: &SegmentManager, b: u64| m.layout.sec_of_seg(m.layout.segno_of(b));
        let warm: Vec<u64> = (0..3 * BLOCKS_PER_SEG as u64).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
        let (w0, w1, w2) = (sec_of(&m, warm[0]), sec_of(&m, warm[512]), sec_of(&m, warm[1024]));
        assert_eq!((w0 + 1, w1 + 1), (w1, w2), "the warm log appends section after section");
        for &b in &warm[..1024] {
            m.invalidate(b);
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        let free = m.free_sections();
        let hot = m.alloc(LogType::HotData, SimTime(1), false).unwrap();
        assert_eq!(sec_of(&m, hot), w0, "hot data starts from the volume's first free section");
        let node = m.alloc(LogType::WarmNode, SimTime(1), false).unwrap();
        assert_eq!(sec_of(&m, node), w1, "so do node logs");
        let next_warm = m.alloc(LogType::WarmData, SimTime(1), false).unwrap();
        assert_eq!(sec_of(&m, next_warm), w2 + 1, "warm data goes on after its own section");
        assert_eq!(m.free_sections(), free - 3);
        m.check().unwrap();
    }

    /// mkfs.f2fs's initial logs: node logs and hot data at the start, cold
    /// data at a quarter, warm data at half the main area; in a row on a
    /// zoned device.
    #[test]
    fn logs_start_where_mkfs_places_them() {
        let opened = |m: &SegmentManager| -> Vec<u32> {
            LogType::ALL.iter().map(|&l| m.layout.sec_of_seg(m.cursegs[l.index()].expect("placed").segno)).collect()
        };
        // Order of LogType::ALL: hot, warm, cold data, then hot, warm, cold node.
        for spsec in [1, 2] {
            let mut m = SegmentManager::new(&Layout::mkfs(256 << 8, spsec, Some(20.0)).unwrap());
            let total = m.layout.main_sections;
            let free = m.free_sections();
            m.place_logs_as_mkfs(false);
            assert_eq!(opened(&m), [3, total / 2 - 1, total / 4 - 1, 0, 1, 2], "{spsec} segments per section");
            assert_eq!(m.free_sections(), free - 6);
            let mut z = SegmentManager::new(&m.layout.clone());
            z.place_logs_as_mkfs(true);
            assert_eq!(opened(&z), [3, 4, 5, 0, 1, 2]);
            // The warm log's first block is its section's first.
            let b = m.alloc(LogType::WarmData, SimTime(0), false).unwrap();
            assert_eq!(b, m.layout.seg_start((total / 2 - 1) * spsec));
            m.check().unwrap();
        }
    }

    /// `has_curseg_enough_space`'s room: a segment's blocks less its
    /// `ckpt_valid_blocks`, which counts every block allocated since the
    /// checkpoint, freed ones included; a full or unopened log counts a
    /// fresh segment, as the kernel's logs always hold one with room.
    #[test]
    fn curseg_room_is_what_ckpt_valid_blocks_leaves() {
        let mut m = sm();
        assert_eq!(m.curseg_left_blocks(LogType::HotNode), BLOCKS_PER_SEG);
        let b: Vec<u64> = (0..10).map(|_| m.alloc(LogType::HotNode, SimTime(0), false).unwrap()).collect();
        assert_eq!(m.curseg_left_blocks(LogType::HotNode), BLOCKS_PER_SEG - 10);
        m.invalidate(b[0]);
        assert_eq!(m.curseg_left_blocks(LogType::HotNode), BLOCKS_PER_SEG - 10, "a freed block stays in ckpt_valid_map");
        for _ in 10..BLOCKS_PER_SEG {
            m.alloc(LogType::HotNode, SimTime(0), false).unwrap();
        }
        assert_eq!(m.curseg_left_blocks(LogType::HotNode), BLOCKS_PER_SEG, "full: the next block opens a fresh segment");
    }

    #[test]
    fn ssr_reuses_only_checkpoint_invalid_blocks() {
        let mut m = sm();
        let blocks: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
        // Kill every other block of the first segment, before any checkpoint.
        for b in blocks[..512].iter().step_by(2) {
            m.invalidate(*b);
        }
        // Not yet checkpointed: SSR must not hand out those blocks.
        let c = m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        assert!(c.freed.is_empty());
        // Force the log to a new segment by SSR: fill the current segment first.
        while m.curseg_mode(LogType::WarmData) == Some(AllocMode::Lfs) {
            m.alloc(LogType::WarmData, SimTime(0), true).unwrap();
        }
        let b = m.alloc(LogType::WarmData, SimTime(0), true).unwrap();
        assert!(blocks[..512].iter().step_by(2).any(|&x| x == b), "SSR reused a dead block {b}");
        m.check().unwrap();
    }

    /// `update_sit_entry`: a block allocated and killed since the last
    /// checkpoint stays unusable for SSR until the next checkpoint.
    #[test]
    fn ssr_never_reuses_blocks_newly_invalidated() {
        let mut m = sm();
        let blocks: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
        for b in blocks[..512].iter().step_by(2) {
            m.invalidate(*b);
        }
        // No checkpoint: the dirty segment costs 512 (all unusable), so SSR has no victim.
        while m.curseg_mode(LogType::WarmData) == Some(AllocMode::Lfs) && m.dirty_segments(LogType::WarmData) == 1 {
            let b = m.alloc(LogType::WarmData, SimTime(0), true).unwrap();
            assert!(!blocks[..512].contains(&b), "SSR reused block {b} killed since the checkpoint");
            if m.cursegs[LogType::WarmData.index()].unwrap().next_blkoff == BLOCKS_PER_SEG {
                let b = m.alloc(LogType::WarmData, SimTime(0), true).unwrap();
                assert!(!blocks[..512].contains(&b), "SSR reused block {b} killed since the checkpoint");
                break;
            }
        }
        assert_eq!(m.curseg_mode(LogType::WarmData), Some(AllocMode::Lfs));
        m.check().unwrap();
    }

    /// `get_ssr_segment`: node logs use SSR too, their own type first, and
    /// never a data segment.
    #[test]
    fn node_logs_use_ssr_of_their_own_kind() {
        let mut m = sm();
        let data: Vec<u64> = (0..512).map(|_| m.alloc(LogType::ColdData, SimTime(0), false).unwrap()).collect();
        let cold: Vec<u64> = (0..512).map(|_| m.alloc(LogType::ColdNode, SimTime(0), false).unwrap()).collect();
        let warm: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmNode, SimTime(0), false).unwrap()).collect();
        m.alloc(LogType::ColdData, SimTime(0), false).unwrap();
        m.alloc(LogType::ColdNode, SimTime(0), false).unwrap();
        for b in data.iter().chain(&cold).step_by(3) {
            m.invalidate(*b);
        }
        for b in warm[..512].iter().step_by(5) {
            m.invalidate(*b);
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        // (Sections of 2 segments: the log has left the first one, which SSR may now use.)
        // Fill the open warm-node segment, then ask for SSR.
        // (to the end of its section: an LFS log first goes on in its section, `need_new_seg`).
        while m.cursegs[LogType::WarmNode.index()].map(|c| (c.segno % 2, c.next_blkoff)) != Some((1, BLOCKS_PER_SEG)) {
            m.alloc(LogType::WarmNode, SimTime(0), false).unwrap();
        }
        let b = m.alloc(LogType::WarmNode, SimTime(0), true).unwrap();
        assert_eq!(m.curseg_mode(LogType::WarmNode), Some(AllocMode::Ssr));
        assert!(warm[..512].contains(&b), "warm node SSR should take the warm node segment first, got {b}");
        assert!(!data.contains(&b));
        m.check().unwrap();
    }

    /// `add_discard_addrs`: a checkpoint reports the runs of blocks killed
    /// since the previous one in segments still holding valid blocks, and
    /// nothing for segments that died whole (their section is discarded).
    #[test]
    fn checkpoint_reports_runs_of_dead_blocks() {
        let mut m = sm();
        let blocks: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        for b in &blocks[10..20] {
            m.invalidate(*b);
        }
        m.invalidate(blocks[30]);
        let mut runs = Vec::new();
        m.checkpoint(&BTreeSet::new(), CpDiscards::InUse(&mut |s, l| runs.push((s, l))));
        assert_eq!(runs, vec![(blocks[10], 10), (blocks[30], 1)]);
        // Reported once: the next checkpoint has nothing new.
        let mut again = Vec::new();
        m.checkpoint(&BTreeSet::new(), CpDiscards::InUse(&mut |s, l| again.push((s, l))));
        assert!(again.is_empty());
        m.check().unwrap();
    }

    /// IPLFS's discards: every block invalidated since the last checkpoint,
    /// in dead segments too and among blocks allocated since, where F2FS's
    /// `add_discard_addrs` skips the dead segment.
    #[test]
    fn checkpoint_reports_every_invalidated_block_for_iplfs() {
        let runs_of = |iplfs: bool| {
            let mut m = sm();
            let blocks: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
            m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
            for b in &blocks[..512] {
                m.invalidate(*b);
            }
            m.invalidate(blocks[600]);
            let new: Vec<u64> = (0..5).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
            m.invalidate(new[1]);
            m.invalidate(new[2]);
            let mut runs = Vec::new();
            let mut f = |s, l| runs.push((s, l));
            m.checkpoint(&BTreeSet::new(), if iplfs { CpDiscards::Invalidated(&mut f) } else { CpDiscards::InUse(&mut f) });
            m.check().unwrap();
            (blocks, new, runs)
        };
        let (blocks, new, runs) = runs_of(true);
        assert_eq!(runs, vec![(blocks[0], 512), (blocks[600], 1), (new[1], 2)]);
        let (blocks, new, runs) = runs_of(false);
        assert_eq!(runs, vec![(blocks[600], 1), (new[1], 2)]);
    }

    #[test]
    fn undiscarded_blocks_are_left_out_of_one_checkpoint_only() {
        let mut m = sm();
        m.track_undiscarded();
        let blocks: Vec<u64> = (0..1100).map(|_| m.alloc(LogType::WarmData, SimTime(0), false).unwrap()).collect();
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        // A run with a block in its middle and one at its end skipped, and
        // a skipped block in a segment of its own.
        for b in &blocks[10..20] {
            m.invalidate(*b);
        }
        m.invalidate_undiscarded(blocks[20]);
        m.invalidate_undiscarded(blocks[700]);
        let mut runs = Vec::new();
        m.checkpoint(&BTreeSet::new(), CpDiscards::Invalidated(&mut |s, l| runs.push((s, l))));
        assert_eq!(runs, vec![(blocks[10], 10)]);
        // The next checkpoint has nothing to skip: blocks[21] is reported.
        m.invalidate(blocks[21]);
        m.invalidate(blocks[701]);
        let mut runs = Vec::new();
        m.checkpoint(&BTreeSet::new(), CpDiscards::Invalidated(&mut |s, l| runs.push((s, l))));
        assert_eq!(runs, vec![(blocks[21], 1), (blocks[701], 1)]);
        m.check().unwrap();
        // Untracked, the call is a plain invalidation.
        let mut m = sm();
        let b = m.alloc(LogType::WarmData, SimTime(0), false).unwrap();
        m.invalidate_undiscarded(b);
        let mut runs = Vec::new();
        m.checkpoint(&BTreeSet::new(), CpDiscards::Invalidated(&mut |s, l| runs.push((s, l))));
        assert_eq!(runs, vec![(b, 1)]);
    }

    /// The kernel's SSR search, one segment at a time (the code before
    /// `SsrIndex`): the reference the index must match.
    fn scan_victim_ssr(m: &mut SegmentManager, t: LogType) -> Option<u32> {
        let max_search = m.dirty[t.index()].count().min(m.max_victim_search);
        if max_search == 0 {
            return None;
        }
        let main = m.layout.main_segments;
        let last_victim = m.last_victim;
        let offset = if t.noheap_from_start() { 0 } else { last_victim };
        let (mut last_segment, mut offset, mut nsearched) = (main, offset, 0u32);
        let mut best: Option<(u16, u32)> = None;
        loop {
            let Some(segno) = m.dirty[t.index()].find_next(offset, last_segment) else {
                if m.last_victim != 0 {
                    last_segment = m.last_victim;
                    m.last_victim = 0;
                    offset = 0;
                    continue;
                }
                break;
            };
            offset = segno + 1;
            nsearched += 1;
            // The cost first: only a segment that would be the best so far
            // needs its section's usage checked (a division and a pass over
            // the open logs), and most candidates are not.
            let cost = m.segs[segno as usize].ssr_used;
            if (cost as u32) < BLOCKS_PER_SEG && best.is_none_or(|(c, _)| cost < c) {
                let sec = m.layout.sec_of_seg(segno);
                if !m.sec_is_current(sec) && m.gc_victim != Some(sec) {
                    best = Some((cost, segno));
                }
            }
            if nsearched >= max_search {
                m.last_victim = if m.last_victim == 0 && segno <= last_victim { last_victim + 1 } else { segno + 1 } % main;
                break;
            }
        }
        m.ssr_searched += nsearched as u64;
        best.map(|(_, s)| s)
    }

    /// Under `noheap` (Linux 6.0's default) hot data and node segments are
    /// searched from segment 0, the other types from the shared cursor.
    #[test]
    fn ssr_searches_hot_and_node_types_from_the_start() {
        let mut m = sm();
        let mut segs: std::collections::BTreeMap<(LogType, u32), Vec<u64>> = Default::default();
        // Interleave hot and warm data so each type has segments early and late.
        for round in 0..8u64 {
            for log in [LogType::HotData, LogType::WarmData] {
                for i in 0..BLOCKS_PER_SEG as u64 {
                    let b = m.alloc(log, SimTime(round * 1000 + i), false).unwrap();
                    segs.entry((log, m.layout.segno_of(b))).or_default().push(b);
                }
            }
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        // Every closed segment loses one block: all are dirty, of equal cost.
        for (&(_, segno), blocks) in &segs {
            if !m.is_curseg(segno) {
                m.invalidate(blocks[0]);
            }
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        let first = |log: LogType, from: u32| segs.keys().filter(|&&(l, s)| l == log && s >= from && !m.is_curseg(s)).map(|&(_, s)| s).next();
        let mid = m.layout.main_segments / 2;
        let hot_start = first(LogType::HotData, 0).unwrap();
        let warm_after = first(LogType::WarmData, 8).unwrap();
        assert!(hot_start < 8 && warm_after >= 8 && warm_after < mid, "{segs:?}");
        m.set_max_victim_search(1);
        m.last_victim = 8;
        assert_eq!(m.get_victim_ssr(LogType::HotData), Some(hot_start), "hot data from segment 0");
        // The search still moves the shared cursor: one past what it visited.
        assert_eq!(m.last_victim, hot_start + 1);
        m.last_victim = 8;
        assert_eq!(m.get_victim_ssr(LogType::WarmData), Some(warm_after), "warm data from the cursor");
    }

    /// A search that wraps past the volume's end moves the cursor on by one
    /// segment, not past what it visited (`get_victim_by_default`: `if
    /// (!sm->last_victim[p.gc_mode] && segno <= last_victim) last_victim +
    /// p.ofs_unit`). So once fewer than `max_victim_search` dirty segments
    /// lie ahead of the cursor, SSR searches nearly the same tail-and-head
    /// window while the cursor crawls to the volume's end a segment per
    /// search. With the kernel's 4096 at paper size, that crawl holds
    /// almost every SSR search of adaptive F2FS under a steady random
    /// overwrite (docs/performance.md, twenty-ninth session).
    #[test]
    fn a_wrapped_ssr_search_moves_the_cursor_one_segment() {
        let mut m = sm();
        let mut segs: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
        for _ in 0..40 * BLOCKS_PER_SEG {
            let b = m.alloc(LogType::WarmData, SimTime(0), false).unwrap();
            segs.entry(m.layout.segno_of(b)).or_default().push(b);
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        // Every closed segment loses one block: all dirty, all of cost 511.
        for (&segno, blocks) in &segs {
            if !m.is_curseg(segno) {
                m.invalidate(blocks[0]);
            }
        }
        m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
        let dirty: Vec<u32> = segs.keys().copied().filter(|&s| !m.is_curseg(s)).collect();
        assert_eq!(dirty, (0..39).collect::<Vec<_>>(), "warm data fills the volume from segment 0");
        m.set_max_victim_search(4);
        // Two dirty segments ahead, so the window takes two from the start too.
        m.last_victim = 37;
        assert_eq!(m.get_victim_ssr(LogType::WarmData), Some(37), "the first of least cost from the cursor");
        assert_eq!(m.last_victim, 38, "wrapped: one segment on, not past segment 1 where the search stopped");
        // Segment 38 shares its section with the open log's (sec_usage_check).
        assert_eq!(m.get_victim_ssr(LogType::WarmData), Some(0));
        assert_eq!(m.last_victim, 39);
        // Nothing dirty ahead: every search is segments 0..4, and the cursor
        // crawls to the volume's end before a search starts from 0 again.
        let main = m.layout.main_segments;
        for lv in 39..main {
            assert_eq!(m.last_victim, lv);
            assert_eq!(m.get_victim_ssr(LogType::WarmData), Some(0));
        }
        assert_eq!(m.last_victim, 0, "the crawl ends at the volume's end");
        assert_eq!(m.get_victim_ssr(LogType::WarmData), Some(0));
        assert_eq!(m.last_victim, 4, "unwrapped: one past the last segment visited");
    }

    /// SSR victims, `last_victim` and the index itself match the
    /// segment-by-segment search through random allocation, invalidation,
    /// checkpoints and GC victims, with a window small enough to wrap often.
    #[test]
    fn ssr_index_matches_the_scan_through_random_use() {
        let mut rng = crate::sim::SimRng::new(21);
        let mut m = sm();
        m.set_max_victim_search(1 + rng.below(9) as u32);
        let capacity = m.layout.main_segments as u64 * BLOCKS_PER_SEG as u64;
        let mut live: Vec<u64> = Vec::new();
        let mut compared = 0;
        for step in 0..60_000u64 {
            match rng.below(100) {
                0..=54 if (live.len() as u64) < capacity * 6 / 10 => {
                    let log = LogType::ALL[rng.below(6) as usize];
                    live.push(m.alloc(log, SimTime(step), true).unwrap());
                }
                0..=97 if !live.is_empty() => {
                    let i = rng.below(live.len() as u64) as usize;
                    m.invalidate(live.swap_remove(i));
                }
                98 => {
                    m.checkpoint(&BTreeSet::new(), CpDiscards::Off);
                }
                _ => {
                    let sec = rng.below(m.layout.main_sections as u64 + 1) as u32;
                    m.set_gc_victim((sec < m.layout.main_sections).then_some(sec));
                }
            }
            if step % 97 == 0 {
                m.check().unwrap();
                for t in LogType::ALL {
                    let (mut a, mut b) = (m.clone(), m.clone());
                    let (x, y) = (a.get_victim_ssr(t), scan_victim_ssr(&mut b, t));
                    assert_eq!((x, a.last_victim, a.ssr_searched), (y, b.last_victim, b.ssr_searched), "step {step} {t:?}");
                    compared += x.is_some() as u32;
                }
            }
        }
        assert!(compared > 500, "only {compared} searches found a victim");
        assert!(m.ssr_searched() > 0);
    }
}
