//! Filesystem GC victim selection over sections, one policy per file.
//! F2FS uses greedy for foreground GC and cost-benefit for background GC
//! (fs/f2fs/gc.c `select_gc_type`). A policy is the kernel's cost of one
//! section (`get_gc_cost`); the search that visits sections is the
//! segment manager's (`SegmentManager::bg_victim`, `get_victim_by_default`).

mod cost_benefit;
mod greedy;

pub use cost_benefit::CostBenefit;
pub use greedy::Greedy;

use super::segment::SectionView;

/// sit_info's `min_mtime` / `max_mtime`: the age scale of cost-benefit.
/// The kernel sets them at mount and widens them as writes and victim
/// searches meet older or newer sections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MtimeRange {
    pub min_ns: u64,
    pub max_ns: u64,
}

pub trait SectionVictim {
    fn name(&self) -> &'static str;
    /// The section's cost (lower is collected first); may widen `ages`.
    fn cost(&self, c: &SectionView, ages: &mut MtimeRange, blocks_per_sec: u64) -> u64;
    /// `get_max_cost`: a section costing this much or more is never chosen.
    fn max_cost(&self, blocks_per_sec: u64) -> u64;
    /// The first section of lowest cost in `candidates`' order.
    fn select(&self, candidates: &[SectionView], ages: &mut MtimeRange, blocks_per_sec: u64) -> Option<u32> {
        let mut best: Option<(u64, u32)> = None;
        for c in candidates {
            let cost = self.cost(c, ages, blocks_per_sec);
            if cost < best.map_or(self.max_cost(blocks_per_sec), |(b, _)| b) {
                best = Some((cost, c.secno));
            }
        }
        best.map(|(_, s)| s)
    }
}
