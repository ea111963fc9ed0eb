//! Interval Mapping (IPLFS, ATC'22, "Interval Mapping"): a sparse
//! three-level L2P tree for a logical space far larger than the flash.
//!
//! The paper's summary gives the structure; its numbers come from the
//! authors' own code, which this module follows: the NVMeVirt port that the
//! D2FS authors ran as their IPLFS baseline (ESOS-Lab/D2FS, branch IPLFS,
//! ssd_emulator/conv_ftl.c under MEM_CALC and COMPACTION_DIRTY_ONLY, and
//! nvmev.h for the sizes).
//!
//! * The top 3 bits of a block address name one of the six IPLFS areas
//!   (logs); each area has its own tree of zones, and a zone holds 1024 map
//!   nodes.
//! * A map node covers one mapping segment of `MSblks` = 2^20 blocks. A new
//!   node is one region spanning the segment: a header entry and one 4-byte
//!   entry per block, 14 bytes of fields besides (`default_MS_sz`). Blocks
//!   that die keep their entries.
//! * A node is freed once every block of its segment was written and
//!   discarded (conv_ftl.c `vacancy_check`).
//! * Map-node compaction runs once per second of device time
//!   (`COMPACTION_TIME_INTERVAL`) over the nodes a discard touched since the
//!   last pass (`compaction1`), and the FTL serves nothing meanwhile. It keeps the span from the first to the last
//!   live block, with the region size set to the smallest hole of at least
//!   64 blocks between live runs (fixed-region mapping; the whole span if
//!   there is none). Each region that starts a live run costs a header, and
//!   holes inside a region stay as entries (`GET_REMAINING_INVALID_MAPPING`).
//!   The new size is 10 B + 4 B per entry + 8 B per region (the artifact's
//!   `4 * regions` directory slots of 2 B). The node is rebuilt only if that
//!   saves at least 10% of its size. Blocks never written count as live, as
//!   the artifact's bitmap starts full.
//! * The tree costs 4 KiB per zone and 4 B per zone in the root (32-bit
//!   entries, `MEM_CALC_32BIT`).
//!
//! Like the artifact, the sizes are accounted, and lookups use a plain array
//! per node: what the FTL would hold is what is counted, the lookup path is
//! not modelled. Two slips of the artifact are not reproduced: its
//! `find_next_set_bit_` only matches bit 7 of each byte, and
//! `GET_REMAINING_INVALID_MAPPING` leaves its sum uninitialised; the
//! algorithm is taken as written.
//!
//! Scaled volumes: the segment is 2^20 blocks times the run's volume scale
//! (a power of two, at least 512), so a 1/16 run has as many map nodes over
//! its file as the paper's volume has over its own. The pass interval
//! shrinks by the same factor: a scaled run checkpoints (and so discards)
//! as often per volume written as the paper's, that is more often per
//! second, and each pass scans smaller nodes, so compaction costs the same
//! share of the device's time at any scale.
//!
//! Stated simplification: lfslab addresses are 32-bit blocks, so the areas
//! are 2^29 blocks each. The structures are sparse, so a wider address
//! would change no figure here.

use super::mapping::Mapping;
use crate::nand::{Lpn, Ppn};
use std::collections::{BTreeMap, BTreeSet};

pub const AREA_SHIFT: u32 = 29;
/// The artifact's mapping segment (nvmev.h `MSblks`).
pub const PAPER_SEGMENT_BLOCKS: u32 = 1 << 20;
pub const MIN_SEGMENT_BLOCKS: u32 = 512;
pub const NODES_PER_ZONE: u64 = 1024;
use super::node_entries::{NodeEntries, UNMAPPED};
const MAP_SZ: u64 = 4;
const ZONE_BYTES: u64 = NODES_PER_ZONE * MAP_SZ;
const ROOT_ENTRY_BYTES: u64 = MAP_SZ;
/// A hole shorter than this does not set the region size (conv_ftl.c
/// `compaction1`: `cur_drange_size >= 64`).
const MIN_REGION_HOLE: u32 = 64;
/// Firmware time of a compaction pass. The artifact adds its own kernel time
/// to the command that ran it (`REFLECT_COMP_OVERHEAD`); that time is mostly
/// two bit-by-bit walks of each dirty node's bitmap (`compaction1`'s scan and
/// `GET_REMAINING_INVALID_MAPPING`'s), and the copy of the entries of each
/// node rebuilt (`compact_map_node`). Assumed: 1 ns per bit tested per walk,
/// 5 ns per entry copied.
const SCAN_NS_PER_BLOCK: u64 = 2;
const COPY_NS_PER_ENTRY: u64 = 5;
/// The artifact's `COMPACTION_TIME_INTERVAL`, for a 2^20-block segment.
const PAPER_PASS_INTERVAL_NS: u64 = 1_000_000_000;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IntervalConfig {
    pub compaction: bool,
    /// Blocks per mapping segment (map node).
    pub segment_blocks: u32,
}

impl Default for IntervalConfig {
    fn default() -> Self {
        IntervalConfig { compaction: true, segment_blocks: PAPER_SEGMENT_BLOCKS }
    }
}

impl IntervalConfig {
    /// The segment for a volume `scale` times the paper's.
    pub fn segment_blocks_for(scale: f64) -> u32 {
        let want = if scale.is_finite() && scale > 0.0 { PAPER_SEGMENT_BLOCKS as f64 * scale } else { PAPER_SEGMENT_BLOCKS as f64 };
        let pow = want.log2().round().clamp(MIN_SEGMENT_BLOCKS.trailing_zeros() as f64, PAPER_SEGMENT_BLOCKS.trailing_zeros() as f64);
        1 << pow as u32
    }
}

/// One mapping segment: its entries, which of them were ever written, and
/// the bytes the FTL accounts for it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct MapNode {
    seg: u32,
    entries: NodeEntries,
    written: Box<[u64]>,
    /// Written and unmapped now: the blocks compaction finds dead (kept
    /// beside the entries so a pass reads a bitmap, not the entries).
    dead: Box<[u64]>,
    n_written: u32,
    mapped: u32,
    bytes: u64,
    compacted: bool,
}

impl MapNode {
    fn new(seg: u32) -> Self {
        MapNode {
            seg,
            entries: NodeEntries::new(seg),
            written: vec![0; seg.div_ceil(64) as usize].into_boxed_slice(),
            dead: vec![0; seg.div_ceil(64) as usize].into_boxed_slice(),
            n_written: 0,
            mapped: 0,
            bytes: full_node_bytes(seg),
            compacted: false,
        }
    }
    fn was_written(&self, w: u32) -> bool {
        bit(&self.written, w)
    }
    /// Live for compaction: mapped, or never written (the artifact's bitmap
    /// starts full and only discards clear it).
    #[cfg(test)]
    fn live(&self, w: u32) -> bool {
        self.entries.get(w) != UNMAPPED || !self.was_written(w)
    }
    fn is_dead(&self, w: u32) -> bool {
        bit(&self.dead, w)
    }
    /// The last live block before `w`, if any.
    fn prev_live(&self, w: u32) -> Option<u32> {
        let mut i = (w / 64) as usize;
        let mut x = !self.dead[i] & ((1u64 << (w % 64)) - 1);
        loop {
            if x != 0 {
                return Some(i as u32 * 64 + 63 - x.leading_zeros());
            }
            i = i.checked_sub(1)?;
            x = !self.dead[i];
        }
    }
    /// The first live block after `w`, if any.
    fn next_live(&self, w: u32) -> Option<u32> {
        let mut i = (w / 64) as usize;
        let mut x = !self.dead[i] & (!0u64).checked_shl(w % 64 + 1).unwrap_or(0);
        loop {
            if x != 0 {
                return Some(i as u32 * 64 + x.trailing_zeros());
            }
            i += 1;
            x = !*self.dead.get(i)?;
        }
    }
    fn freeable(&self) -> bool {
        self.mapped == 0 && self.n_written == self.seg
    }

    /// The node's size once compacted (conv_ftl.c `compaction1`), or None if
    /// nothing in it is live. The artifact walks the node bit by bit; this
    /// gets the same figure a word at a time (`compacted_bytes_bitwise` is
    /// the walk, and a test holds them equal):
    /// * the region is the shortest hole of at least 64 blocks between live
    ///   runs (the whole segment if there is none);
    /// * every live run costs a header if the hole before it ends in another
    ///   region than it began (it holds a region boundary, or the block
    ///   after it is one), else the hole stays as entries.
    fn compacted_bytes(&self) -> Option<u64> {
        let seg = self.seg;
        let words = self.dead.len();
        let fi = (0..words).find(|&i| self.dead[i] != !0)?;
        let li = (0..words).rev().find(|&i| self.dead[i] != !0).expect("a live word exists");
        let first = fi as u32 * 64 + (!self.dead[fi]).trailing_zeros();
        let last = li as u32 * 64 + 63 - (!self.dead[li]).leading_zeros();
        // Outside fi..=li every block is dead, so the span holds all the
        // node's live blocks: the counts give them without a pass over the
        // bitmap (a dead block is a written one not mapped now;
        // `behaves_like_a_map` holds this against the bit walk).
        let live = (seg - (self.n_written - self.mapped)) as u64;
        // The shortest hole of at least 64 between live runs: holes shorter
        // than a word inside one word never qualify.
        let (mut hole, mut run) = (seg, 0u32);
        for i in fi..=li {
            let mut x = self.dead[i];
            if i == fi {
                x &= (!0u64).checked_shl(first % 64).unwrap_or(0);
            }
            if i == li {
                x &= !0u64 >> (63 - last % 64);
            }
            if x == !0 {
                run += 64;
                continue;
            }
            run += x.trailing_ones();
            if run >= MIN_REGION_HOLE {
                hole = hole.min(run);
            }
            run = x.leading_ones();
        }
        let region = hole;
        let span = (last - first + 1) as u64;
        // Holes that hold a region boundary B (dead at B, or ending at B - 1).
        let (mut crossing, mut crossing_len) = (0u64, 0u64);
        let mut b = (first / region + 1) as u64 * region as u64;
        while b <= last as u64 {
            let at = b as u32;
            let p = if self.is_dead(at) {
                at
            } else if self.is_dead(at - 1) {
                at - 1
            } else {
                b += region as u64;
                continue;
            };
            let start = self.prev_live(p).expect("a hole after the first live block") + 1;
            let end = self.next_live(p).expect("a hole before the last live block") - 1;
            crossing += 1;
            crossing_len += (end - start + 1) as u64;
            // Later boundaries up to end + 1 fall in this same hole. (A hole
            // is rarely longer than the region, its shortest: a step or two,
            // not a division.)
            while b <= end as u64 + 1 {
                b += region as u64;
            }
        }
        let headers = 1 + crossing;
        let kept = span - live - crossing_len;
        let regions = span.div_ceil(region as u64);
        Some(10 + MAP_SZ * (headers + live + kept) + 2 * 4 * regions)
    }

    /// `compacted_bytes` bit by bit, as `compaction1` walks it: the
    /// oracle the word-wise version is tested against.
    #[cfg(test)]
    fn compacted_bytes_bitwise(&self) -> Option<u64> {
        let seg = self.seg;
        let (mut first, mut last, mut live) = (None, 0, 0u64);
        // The smallest hole of at least 64 blocks between live runs.
        let (mut hole, mut run_hole) = (seg, 0u32);
        for w in 0..seg {
            if self.live(w) {
                live += 1;
                if first.is_some() && run_hole >= MIN_REGION_HOLE {
                    hole = hole.min(run_hole);
                }
                run_hole = 0;
                first.get_or_insert(w);
                last = w;
            } else {
                run_hole += 1;
            }
        }
        let first = first?;
        let region = hole;
        // Headers: a run that starts in another region than the previous
        // run ended in; else the hole between them stays as entries.
        let (mut headers, mut kept) = (0u64, 0u64);
        let mut prev_end: Option<u32> = None;
        let mut w = first;
        while w <= last {
            if !self.live(w) {
                w += 1;
                continue;
            }
            let start = w;
            while w <= last && self.live(w) {
                w += 1;
            }
            match prev_end {
                Some(e) if start / region == e / region => kept += (start - e - 1) as u64,
                _ => headers += 1,
            }
            prev_end = Some(w - 1);
        }
        let span = (last - first + 1) as u64;
        let regions = span.div_ceil(region as u64);
        Some(10 + MAP_SZ * (headers + live + kept) + 2 * 4 * regions)
    }
}

fn bit(words: &[u64], w: u32) -> bool {
    words[(w / 64) as usize] >> (w % 64) & 1 == 1
}

fn set_bit(words: &mut [u64], w: u32, on: bool) {
    let (i, b) = ((w / 64) as usize, 1u64 << (w % 64));
    if on {
        words[i] |= b;
    } else {
        words[i] &= !b;
    }
}

/// A new node: 10 B + 4 B of fields, a header entry and an entry per block
/// (nvmev.h `default_MS_sz`).
fn full_node_bytes(seg: u32) -> u64 {
    10 + 4 + MAP_SZ * (1 + seg as u64)
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct IntervalMapping {
    cfg: IntervalConfig,
    seg_shift: u32,
    logical: u64,
    /// (area, zone) -> map nodes by index in the zone.
    zones: BTreeMap<(u32, u64), BTreeMap<u16, MapNode>>,
    /// Nodes a discard touched since the last compaction pass.
    dirty: BTreeSet<((u32, u64), u16)>,
    bytes: u64,
    pub peak_bytes: u64,
    pub compactions: u64,
    pending_ns: u64,
    last_pass: crate::sim::SimTime,
}

impl IntervalMapping {
    pub fn new(logical_pages: u64, cfg: IntervalConfig) -> Self {
        assert!(logical_pages < UNMAPPED as u64, "logical space of {logical_pages} blocks: lfslab block addresses are 32-bit");
        assert!(
            cfg.segment_blocks.is_power_of_two() && (MIN_SEGMENT_BLOCKS..=PAPER_SEGMENT_BLOCKS).contains(&cfg.segment_blocks),
            "map segment of {} blocks",
            cfg.segment_blocks
        );
        IntervalMapping {
            seg_shift: cfg.segment_blocks.trailing_zeros(),
            cfg,
            logical: logical_pages,
            zones: BTreeMap::new(),
            dirty: BTreeSet::new(),
            bytes: 0,
            peak_bytes: 0,
            compactions: 0,
            pending_ns: 0,
            last_pass: crate::sim::SimTime::ZERO,
        }
    }

    pub fn map_nodes(&self) -> usize {
        self.zones.values().map(|z| z.len()).sum()
    }

    fn locate(&self, lpn: Lpn) -> ((u32, u64), u16, u32) {
        let area = (lpn.0 >> AREA_SHIFT) as u32;
        let off = lpn.0 & ((1 << AREA_SHIFT) - 1);
        let seg = off >> self.seg_shift;
        ((area, seg / NODES_PER_ZONE), (seg % NODES_PER_ZONE) as u16, (off & ((1 << self.seg_shift) - 1)) as u32)
    }

    /// One compaction pass over the nodes discards touched (conv_ftl.c
    /// `compaction1`).
    fn compaction_pass(&mut self) {
        for (z, n) in std::mem::take(&mut self.dirty) {
            let Some(node) = self.zones.get_mut(&z).and_then(|zone| zone.get_mut(&n)) else { continue };
            self.pending_ns += SCAN_NS_PER_BLOCK * node.seg as u64;
            let Some(new) = node.compacted_bytes() else { continue };
            // Rebuilt only if it saves at least 10% (integer percent, as the artifact computes it).
            if new > node.bytes || 100 - (100 * new) / node.bytes < 10 {
                continue;
            }
            self.pending_ns += COPY_NS_PER_ENTRY * new / MAP_SZ;
            self.bytes -= node.bytes - new;
            node.bytes = new;
            node.compacted = true;
            self.compactions += 1;
        }
    }

    fn grow(&mut self, by: u64) {
        self.bytes += by;
        self.peak_bytes = self.peak_bytes.max(self.bytes);
    }
}

impl Mapping for IntervalMapping {
    fn name(&self) -> &'static str {
        "interval"
    }
    fn logical_pages(&self) -> u64 {
        self.logical
    }

    fn get(&self, lpn: Lpn) -> Option<Ppn> {
        let (z, n, w) = self.locate(lpn);
        let p = self.zones.get(&z)?.get(&n)?.entries.get(w);
        (p != UNMAPPED).then_some(Ppn(p as u64))
    }

    fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        assert!(ppn.0 < UNMAPPED as u64, "physical page {ppn} needs more than 32 bits");
        let (z, n, w) = self.locate(lpn);
        let seg = self.cfg.segment_blocks;
        let mut grown = 0;
        let zone = self.zones.entry(z).or_insert_with(|| {
            grown += ROOT_ENTRY_BYTES + ZONE_BYTES;
            BTreeMap::new()
        });
        let node = zone.entry(n).or_insert_with(|| {
            grown += full_node_bytes(seg);
            MapNode::new(seg)
        });
        let old = node.entries.replace(w, ppn.0 as u32, seg);
        if old == UNMAPPED {
            node.mapped += 1;
            set_bit(&mut node.dead, w, false);
            if !node.was_written(w) {
                set_bit(&mut node.written, w, true);
                node.n_written += 1;
            } else if node.compacted {
                // A block discarded before is written again (IPLFS never
                // does): the rebuilt node has no entry for it, so it takes
                // its full size back.
                grown += full_node_bytes(seg) - node.bytes;
                node.bytes = full_node_bytes(seg);
                node.compacted = false;
            }
        }
        self.grow(grown);
        (old != UNMAPPED).then_some(Ppn(old as u64))
    }

    fn unset(&mut self, lpn: Lpn) -> Option<Ppn> {
        let (z, n, w) = self.locate(lpn);
        let zone = self.zones.get_mut(&z)?;
        let node = zone.get_mut(&n)?;
        let old = node.entries.replace(w, UNMAPPED, node.seg);
        if old == UNMAPPED {
            return None;
        }
        set_bit(&mut node.dead, w, true);
        node.mapped -= 1;
        if node.n_written == node.seg {
            node.entries.settle(node.mapped, node.seg);
        }
        if node.freeable() {
            self.bytes -= node.bytes;
            zone.remove(&n);
            self.dirty.remove(&(z, n));
            if zone.is_empty() {
                self.zones.remove(&z);
                self.bytes -= ROOT_ENTRY_BYTES + ZONE_BYTES;
            }
        } else if self.cfg.compaction {
            self.dirty.insert((z, n));
        }
        Some(Ppn(old as u64))
    }

    fn maintain(&mut self, now: crate::sim::SimTime) {
        // The pass interval scales with the segment (see the module doc).
        let interval = PAPER_PASS_INTERVAL_NS * self.cfg.segment_blocks as u64 / PAPER_SEGMENT_BLOCKS as u64;
        if now.saturating_since(self.last_pass).ns() < interval {
            return;
        }
        self.last_pass = now;
        self.compaction_pass();
    }

    fn memory_bytes(&self) -> u64 {
        self.bytes
    }

    fn take_pending_work_ns(&mut self) -> u64 {
        std::mem::take(&mut self.pending_ns)
    }

    fn for_each_mapped(&self, f: &mut dyn FnMut(Lpn, Ppn)) {
        for (&(area, zone), nodes) in &self.zones {
            for (&n, node) in nodes {
                let seg_start = ((area as u64) << AREA_SHIFT) | ((zone * NODES_PER_ZONE + n as u64) << self.seg_shift);
                for (w, p) in node.entries.mapped() {
                    f(Lpn(seg_start + w as u64), Ppn(p as u64));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::Mapping;
    use proptest::prelude::*;

    const SEG: u32 = MIN_SEGMENT_BLOCKS;

    fn cfg(compaction: bool) -> IntervalConfig {
        IntervalConfig { compaction, segment_blocks: SEG }
    }

    fn recount(m: &IntervalMapping) -> u64 {
        m.zones.values().map(|z| ROOT_ENTRY_BYTES + ZONE_BYTES + z.values().map(|n| n.bytes).sum::<u64>()).sum()
    }

    /// A node whose blocks follow `states` (0 never written, 1 mapped, 2
    /// written and discarded), runs of random length.
    fn node_of(seg: u32, rng: &mut crate::sim::SimRng, mean_run: u64, weights: [u64; 3]) -> MapNode {
        let mut n = MapNode::new(seg);
        let mut w = 0;
        while w < seg {
            let r = rng.below(weights.iter().sum());
            let state = if r < weights[0] { 0 } else if r < weights[0] + weights[1] { 1 } else { 2 };
            let len = 1 + rng.below(2 * mean_run) as u32;
            for v in w..(w + len).min(seg) {
                set_bit(&mut n.written, v, state > 0);
                if state == 1 {
                    n.entries.replace(v, v, seg);
                }
                set_bit(&mut n.dead, v, state == 2);
            }
            w += len;
        }
        n.n_written = n.written.iter().map(|x| x.count_ones()).sum();
        n.mapped = n.n_written - n.dead.iter().map(|x| x.count_ones()).sum::<u32>();
        n
    }

    #[test]
    fn compaction_word_wise_equals_the_bit_walk() {
        let mut rng = crate::sim::SimRng::new(11);
        for case in 0..3000 {
            let seg = [512, 1024, 4096][case % 3];
            let mean_run = [1, 3, 20, 70, 300][rng.below(5) as usize];
            let weights = [[0, 1, 1], [1, 1, 1], [0, 1, 9], [0, 9, 1], [1, 0, 5], [0, 0, 1]][rng.below(6) as usize];
            let n = node_of(seg, &mut rng, mean_run, weights);
            assert_eq!(n.compacted_bytes(), n.compacted_bytes_bitwise(), "case {case}: seg {seg}, runs {mean_run}, weights {weights:?}");
        }
    }

    #[test]
    fn segments_follow_the_volume_scale() {
        assert_eq!(IntervalConfig::segment_blocks_for(1.0), 1 << 20);
        assert_eq!(IntervalConfig::segment_blocks_for(0.0625), 1 << 16);
        assert_eq!(IntervalConfig::segment_blocks_for(1e-6), MIN_SEGMENT_BLOCKS);
        assert_eq!(IntervalConfig::segment_blocks_for(16.0), 1 << 20);
    }

    #[test]
    fn a_written_segment_costs_a_full_node_and_areas_are_sparse() {
        let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(true));
        let far = 5u64 << AREA_SHIFT | 12_345_678;
        for i in 0..SEG as u64 {
            m.set(Lpn(i), Ppn(i));
        }
        m.set(Lpn(far), Ppn(7));
        assert_eq!(m.get(Lpn(far)), Some(Ppn(7)));
        assert_eq!(m.get(Lpn(far + 1)), None);
        assert_eq!(m.map_nodes(), 2);
        // Two zones and two nodes, each node of full size however little of it is written.
        assert_eq!(m.memory_bytes(), 2 * (ROOT_ENTRY_BYTES + ZONE_BYTES) + 2 * (14 + 4 * (1 + SEG as u64)));
        assert_eq!(m.memory_bytes(), recount(&m));
    }

    /// Killed at random, blocks leave one-block holes: no region skips them,
    /// so the node keeps its span (the D2FS authors: the saving "does not
    /// work well under small random write workload").
    #[test]
    fn scattered_holes_are_not_worth_a_rebuild() {
        let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(true));
        for i in 0..SEG as u64 {
            m.set(Lpn(i), Ppn(i));
        }
        for i in (0..SEG as u64).filter(|i| i % 3 != 0) {
            m.unset(Lpn(i));
        }
        m.compaction_pass();
        assert_eq!(m.compactions, 0);
        assert_eq!(m.memory_bytes(), recount(&m));
        assert!(m.take_pending_work_ns() > 0, "the pass scanned the node");
    }

    /// Holes of 64 blocks and more set the region size: the node keeps a
    /// header and the live entries of each run, and a directory.
    #[test]
    fn large_holes_compact_to_the_live_runs() {
        let run = |compaction| {
            let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(compaction));
            for i in 0..SEG as u64 {
                m.set(Lpn(i), Ppn(i));
            }
            // Keep blocks 64..128 and 256..320: two runs, holes of 128 and 192 (the tail's does not count).
            for i in (0..SEG as u64).filter(|i| !(64..128).contains(i) && !(256..320).contains(i)) {
                m.unset(Lpn(i));
            }
            m.compaction_pass();
            for i in (64..128).chain(256..320) {
                assert_eq!(m.get(Lpn(i)), Some(Ppn(i)));
            }
            assert_eq!(m.memory_bytes(), recount(&m));
            m
        };
        let (without, with) = (run(false), run(true));
        let zone = ROOT_ENTRY_BYTES + ZONE_BYTES;
        assert_eq!(without.compactions, 0);
        assert_eq!(without.memory_bytes() - zone, 14 + 4 * (1 + SEG as u64));
        // Span 64..320 (256 blocks) in regions of 128: two headers, 128 live entries, 2 regions x 8 B.
        assert_eq!(with.compactions, 1);
        assert_eq!(with.memory_bytes() - zone, 10 + 4 * (2 + 128) + 8 * 2);
    }

    /// A node 1/2048 of the paper's passes 2048 times as often, and a pass
    /// scans only the nodes discards touched.
    #[test]
    fn passes_come_at_the_scaled_interval_over_dirty_nodes() {
        use crate::sim::{SimDuration, SimTime};
        let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(true));
        for i in 0..2 * SEG as u64 {
            m.set(Lpn(i), Ppn(i));
        }
        m.unset(Lpn(3));
        let interval = SimDuration(1_000_000_000 * SEG as u64 / PAPER_SEGMENT_BLOCKS as u64);
        let t = SimTime::ZERO + interval;
        m.maintain(t);
        assert_eq!(m.take_pending_work_ns(), SCAN_NS_PER_BLOCK * SEG as u64, "one dirty node scanned");
        m.unset(Lpn(SEG as u64 + 3));
        m.maintain(t + SimDuration(interval.0 - 1));
        assert_eq!(m.take_pending_work_ns(), 0, "too early");
        m.maintain(t + interval);
        assert_eq!(m.take_pending_work_ns(), SCAN_NS_PER_BLOCK * SEG as u64);
        m.maintain(t + interval + interval);
        assert_eq!(m.take_pending_work_ns(), 0, "nothing dirty");
    }

    #[test]
    fn a_segment_written_and_discarded_whole_is_freed() {
        let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(true));
        for i in 0..SEG as u64 / 2 {
            m.set(Lpn(i), Ppn(i));
            m.unset(Lpn(i));
        }
        // Half written: the node stays (the head of a log is still to come).
        assert_eq!(m.map_nodes(), 1);
        for i in SEG as u64 / 2..SEG as u64 {
            m.set(Lpn(i), Ppn(i));
            m.unset(Lpn(i));
        }
        assert_eq!((m.map_nodes(), m.memory_bytes()), (0, 0));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn behaves_like_a_map(ops in proptest::collection::vec((0u64..4096, any::<bool>(), 0u32..1000), 1..600), compaction in any::<bool>()) {
            let mut m = IntervalMapping::new(u32::MAX as u64 - 1, cfg(compaction));
            let mut r: BTreeMap<u64, u64> = BTreeMap::new();
            for (i, (l, set, p)) in ops.into_iter().enumerate() {
                // Spread over two areas and several nodes.
                let lpn = if i % 3 == 0 { l | 3 << AREA_SHIFT } else { l };
                if set {
                    prop_assert_eq!(m.set(Lpn(lpn), Ppn(p as u64)), r.insert(lpn, p as u64).map(Ppn));
                } else {
                    prop_assert_eq!(m.unset(Lpn(lpn)), r.remove(&lpn).map(Ppn));
                }
                if i % 50 == 0 {
                    m.compaction_pass();
                }
                prop_assert_eq!(m.memory_bytes(), recount(&m));
            }
            for (&l, &p) in &r {
                prop_assert_eq!(m.get(Lpn(l)), Some(Ppn(p)));
            }
            // The dead map is the written blocks no longer mapped.
            for node in m.zones.values().flat_map(|z| z.values()) {
                for w in 0..node.seg {
                    prop_assert_eq!(node.is_dead(w), node.was_written(w) && node.entries.get(w) == UNMAPPED);
                }
                prop_assert_eq!(node.compacted_bytes(), node.compacted_bytes_bitwise());
            }
        }
    }
}
