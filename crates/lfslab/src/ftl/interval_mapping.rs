//! Interval Mapping (IPLFS, ATC'22, "Interval Mapping"): a sparse
//! three-level L2P tree for a logical space far larger than the flash.
//!
//! * The top 3 bits of a block address name one of the six IPLFS areas
//!   (logs); each area has its own tree.
//! * Root: the zones of the area in use. Zone: 1024 map nodes. Map node: one
//!   mapping segment (512 blocks, an F2FS segment) with a region directory
//!   and, per region, an array of 4-byte physical addresses.
//! * Fixed-region mapping: every region of a node has the same size. A node
//!   starts with one region spanning its segment, which is what an
//!   append-only log fills. Its entries stay allocated when blocks die.
//! * Map-node compaction: when a node's mapping efficiency (valid entries /
//!   allocated entries) falls below the threshold, the FTL rebuilds it. The
//!   new region size is the one that minimises the node; the paper sizes
//!   regions by the smallest hole for that same goal. Only regions holding
//!   valid entries are kept. The work is charged as FTL time during which
//!   commands are not served (`take_pending_work_ns`).
//!
//! Memory is accounted from the structures:
//! * 16 B per root entry;
//! * 8 KiB + 16 B per zone (1024 child pointers);
//! * per map node, 16 B + 4 B per directory entry + 4 B per allocated entry.
//!
//! Stated simplification: lfslab addresses are 32-bit blocks, so the areas
//! are 2^29 blocks each. The structures are sparse, so a wider address
//! would change no figure here.

use super::mapping::Mapping;
use crate::nand::{Lpn, Ppn};
use std::collections::BTreeMap;

pub const AREA_SHIFT: u32 = 29;
pub const SEG: u32 = 512;
pub const NODES_PER_ZONE: u64 = 1024;
const UNMAPPED: u32 = u32::MAX;
const ROOT_ENTRY_BYTES: u64 = 16;
const ZONE_BYTES: u64 = NODES_PER_ZONE * 8 + 16;
const NODE_HEADER_BYTES: u64 = 16;
/// Firmware time to rebuild one map node (assumed): a scan of the segment
/// plus a copy per valid entry.
const COMPACT_BASE_NS: u64 = 10_000;
const COMPACT_PER_ENTRY_NS: u64 = 50;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IntervalConfig {
    pub compaction: bool,
    /// Compact a node when valid / allocated entries falls below this.
    pub threshold: f64,
}

impl Default for IntervalConfig {
    fn default() -> Self {
        IntervalConfig { compaction: true, threshold: 0.5 }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct MapNode {
    region: u32,
    regions: Vec<Option<Box<[u32]>>>,
    valid: u32,
    /// Invalidations since the last compaction (a rebuilt node is not rebuilt
    /// again until it has changed).
    since_compaction: u32,
}

impl MapNode {
    fn new() -> Self {
        MapNode { region: SEG, regions: vec![None], valid: 0, since_compaction: 0 }
    }
    fn allocated_entries(&self) -> u64 {
        self.regions.iter().flatten().count() as u64 * self.region as u64
    }
    fn bytes(&self) -> u64 {
        NODE_HEADER_BYTES + 4 * self.regions.len() as u64 + 4 * self.allocated_entries()
    }
    fn get(&self, within: u32) -> u32 {
        match &self.regions[(within / self.region) as usize] {
            Some(r) => r[(within % self.region) as usize],
            None => UNMAPPED,
        }
    }
    fn entries(&self) -> Vec<u32> {
        (0..SEG).map(|i| self.get(i)).collect()
    }
    /// Rebuild with the region size that makes the node smallest.
    fn compact(&mut self) {
        let e = self.entries();
        let cost = |r: u32| {
            let used = (0..SEG / r).filter(|k| e[(k * r) as usize..((k + 1) * r) as usize].iter().any(|&x| x != UNMAPPED)).count();
            4 * (SEG / r) as u64 + 4 * used as u64 * r as u64
        };
        let region = (0..=SEG.trailing_zeros()).map(|b| 1u32 << b).min_by_key(|&r| (cost(r), std::cmp::Reverse(r))).expect("sizes");
        self.region = region;
        self.regions = (0..SEG / region)
            .map(|k| {
                let chunk = &e[(k * region) as usize..((k + 1) * region) as usize];
                chunk.iter().any(|&x| x != UNMAPPED).then(|| chunk.to_vec().into_boxed_slice())
            })
            .collect();
        self.since_compaction = 0;
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct IntervalMapping {
    cfg: IntervalConfig,
    logical: u64,
    /// (area, zone) -> map nodes by index in the zone.
    zones: BTreeMap<(u32, u64), BTreeMap<u16, MapNode>>,
    bytes: u64,
    pub peak_bytes: u64,
    pub compactions: u64,
    pending_ns: u64,
}

fn locate(lpn: Lpn) -> ((u32, u64), u16, u32) {
    let area = (lpn.0 >> AREA_SHIFT) as u32;
    let off = lpn.0 & ((1 << AREA_SHIFT) - 1);
    let seg = off / SEG as u64;
    ((area, seg / NODES_PER_ZONE), (seg % NODES_PER_ZONE) as u16, (off % SEG as u64) as u32)
}

impl IntervalMapping {
    pub fn new(logical_pages: u64, cfg: IntervalConfig) -> Self {
        assert!(logical_pages < UNMAPPED as u64, "logical space of {logical_pages} blocks: lfslab block addresses are 32-bit");
        IntervalMapping { cfg, logical: logical_pages, zones: BTreeMap::new(), bytes: 0, peak_bytes: 0, compactions: 0, pending_ns: 0 }
    }

    pub fn map_nodes(&self) -> usize {
        self.zones.values().map(|z| z.len()).sum()
    }

    fn account(&mut self, before: u64, after: u64) {
        self.bytes = self.bytes + after - before;
        self.peak_bytes = self.peak_bytes.max(self.bytes);
    }

}

impl Mapping for IntervalMapping {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn name(&self) -> &'static str {
        "interval"
    }
    fn logical_pages(&self) -> u64 {
        self.logical
    }

    fn get(&self, lpn: Lpn) -> Option<Ppn> {
        let (z, n, w) = locate(lpn);
        let p = self.zones.get(&z)?.get(&n)?.get(w);
        (p != UNMAPPED).then_some(Ppn(p as u64))
    }

    fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        assert!(ppn.0 < UNMAPPED as u64, "physical page {ppn} needs more than 32 bits");
        let (z, n, w) = locate(lpn);
        let mut grown = 0;
        let zone = self.zones.entry(z).or_insert_with(|| {
            grown += ROOT_ENTRY_BYTES + ZONE_BYTES;
            BTreeMap::new()
        });
        let node = zone.entry(n).or_insert_with(MapNode::new);
        let before = if node.valid == 0 && node.allocated_entries() == 0 { 0 } else { node.bytes() };
        let r = node.region;
        let slot = node.regions[(w / r) as usize].get_or_insert_with(|| vec![UNMAPPED; r as usize].into_boxed_slice());
        let old = std::mem::replace(&mut slot[(w % r) as usize], ppn.0 as u32);
        if old == UNMAPPED {
            node.valid += 1;
        }
        let after = node.bytes();
        self.account(before, after + grown);
        (old != UNMAPPED).then_some(Ppn(old as u64))
    }

    fn unset(&mut self, lpn: Lpn) -> Option<Ppn> {
        let (z, n, w) = locate(lpn);
        let zone = self.zones.get_mut(&z)?;
        let node = zone.get_mut(&n)?;
        let r = node.region;
        let old = node.regions[(w / r) as usize].as_mut().map(|reg| std::mem::replace(&mut reg[(w % r) as usize], UNMAPPED))?;
        if old == UNMAPPED {
            return None;
        }
        let before = node.bytes();
        node.valid -= 1;
        node.since_compaction += 1;
        if node.valid == 0 {
            zone.remove(&n);
            let mut freed = before;
            if zone.is_empty() {
                self.zones.remove(&z);
                freed += ROOT_ENTRY_BYTES + ZONE_BYTES;
            }
            self.bytes -= freed;
            return Some(Ppn(old as u64));
        }
        let eff = node.valid as f64 / node.allocated_entries() as f64;
        if self.cfg.compaction && eff < self.cfg.threshold && node.since_compaction >= node.region.min(16) {
            node.compact();
            self.compactions += 1;
            self.pending_ns += COMPACT_BASE_NS + COMPACT_PER_ENTRY_NS * node.valid as u64;
        }
        let after = node.bytes();
        self.account(before, after);
        Some(Ppn(old as u64))
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
                let seg_start = ((area as u64) << AREA_SHIFT) | ((zone * NODES_PER_ZONE + n as u64) * SEG as u64);
                for w in 0..SEG {
                    let p = node.get(w);
                    if p != UNMAPPED {
                        f(Lpn(seg_start + w as u64), Ppn(p as u64));
                    }
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

    fn recount(m: &IntervalMapping) -> u64 {
        m.zones.values().map(|z| ROOT_ENTRY_BYTES + ZONE_BYTES + z.values().map(|n| n.bytes()).sum::<u64>()).sum()
    }

    #[test]
    fn a_filled_segment_is_one_region_and_areas_are_sparse() {
        let mut m = IntervalMapping::new(u32::MAX as u64 - 1, IntervalConfig::default());
        let far = 5u64 << AREA_SHIFT | 12_345_678;
        for i in 0..SEG as u64 {
            m.set(Lpn(i), Ppn(i));
        }
        m.set(Lpn(far), Ppn(7));
        assert_eq!(m.get(Lpn(far)), Some(Ppn(7)));
        assert_eq!(m.get(Lpn(far + 1)), None);
        assert_eq!(m.map_nodes(), 2);
        // Two zones, one full node (one region) and one node holding one entry.
        assert_eq!(m.memory_bytes(), 2 * (ROOT_ENTRY_BYTES + ZONE_BYTES) + 2 * (NODE_HEADER_BYTES + 4 + 4 * SEG as u64));
        assert_eq!(m.memory_bytes(), recount(&m));
    }

    #[test]
    fn compaction_shrinks_an_aged_node_and_without_it_memory_stays() {
        let run = |compaction| {
            let mut m = IntervalMapping::new(u32::MAX as u64 - 1, IntervalConfig { compaction, threshold: 0.5 });
            for i in 0..SEG as u64 {
                m.set(Lpn(i), Ppn(i));
            }
            // Kill all but the first 64 blocks.
            for i in 64..SEG as u64 {
                m.unset(Lpn(i));
            }
            for i in 0..64 {
                assert_eq!(m.get(Lpn(i)), Some(Ppn(i)));
            }
            assert_eq!(m.memory_bytes(), recount(&m));
            m
        };
        let (without, mut with) = (run(false), run(true));
        assert_eq!(without.compactions, 0);
        assert!(with.compactions > 0 && with.take_pending_work_ns() > 0);
        // The map node (the zone's 8 KiB pointer array aside) keeps its
        // whole region without compaction; with it, regions of 64 entries
        // and efficiency back above the threshold (64 valid of 128 allocated).
        let zone = ROOT_ENTRY_BYTES + ZONE_BYTES;
        assert_eq!(without.memory_bytes() - zone, NODE_HEADER_BYTES + 4 + 4 * SEG as u64);
        assert_eq!(with.memory_bytes() - zone, NODE_HEADER_BYTES + 4 * 8 + 4 * 128);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn behaves_like_a_map(ops in proptest::collection::vec((0u64..4096, any::<bool>(), 0u32..1000), 1..600), compaction in any::<bool>()) {
            let mut m = IntervalMapping::new(u32::MAX as u64 - 1, IntervalConfig { compaction, threshold: 0.6 });
            let mut r: BTreeMap<u64, u64> = BTreeMap::new();
            for (i, (l, set, p)) in ops.into_iter().enumerate() {
                // Spread over two areas and several nodes.
                let lpn = if i % 3 == 0 { l | 3 << AREA_SHIFT } else { l };
                if set {
                    prop_assert_eq!(m.set(Lpn(lpn), Ppn(p as u64)), r.insert(lpn, p as u64).map(Ppn));
                } else {
                    prop_assert_eq!(m.unset(Lpn(lpn)), r.remove(&lpn).map(Ppn));
                }
                prop_assert_eq!(m.memory_bytes(), recount(&m));
            }
            for (&l, &p) in &r {
                prop_assert_eq!(m.get(Lpn(l)), Some(Ppn(p)));
            }
        }
    }
}
