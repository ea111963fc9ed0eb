//! F2FS cost-benefit (fs/f2fs/gc.c `get_cb_cost`): u = the section's valid
//! blocks per segment as a percentage, age = 100 - 100 * (mtime - min_mtime)
//! / (max_mtime - min_mtime) over sit_info's range, and the cost is
//! UINT_MAX - 100 * (100 - u) * age / (100 + u). `get_max_cost` is
//! UINT_MAX, so the newest section (age 0) and a full one are never chosen.

use super::{MtimeRange, SectionVictim};
use crate::fs::layout::BLOCKS_PER_SEG;
use crate::fs::segment::SectionView;

pub struct CostBenefit;

impl SectionVictim for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    fn cost(&self, c: &SectionView, ages: &mut MtimeRange, blocks_per_sec: u64) -> u64 {
        let segs = (blocks_per_sec / BLOCKS_PER_SEG as u64).max(1);
        let u = c.valid_blocks as u64 / segs * 100 / BLOCKS_PER_SEG as u64;
        // "Handle if the system time has changed by the user": the range
        // widens to take in what the search meets.
        ages.min_ns = ages.min_ns.min(c.mtime_ns);
        ages.max_ns = ages.max_ns.max(c.mtime_ns);
        let age = if ages.max_ns != ages.min_ns { 100 - 100 * (c.mtime_ns - ages.min_ns) / (ages.max_ns - ages.min_ns) } else { 0 };
        u32::MAX as u64 - 100 * (100 - u) * age / (100 + u)
    }
    fn max_cost(&self, _blocks_per_sec: u64) -> u64 {
        u32::MAX as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::victim::Greedy;

    #[test]
    fn old_beats_slightly_emptier_young() {
        let per_sec = BLOCKS_PER_SEG as u64;
        let c = [
            SectionView { secno: 0, valid_blocks: 300, mtime_ns: 100 },
            SectionView { secno: 1, valid_blocks: 250, mtime_ns: 900 },
        ];
        let mut ages = MtimeRange { min_ns: 0, max_ns: 1_000 };
        assert_eq!(CostBenefit.select(&c, &mut ages, per_sec), Some(0));
        assert_eq!(Greedy.select(&c, &mut ages, per_sec), Some(1));
    }

    /// The newest section has age 0: it costs the maximum and is never
    /// chosen, however empty; a section met outside the range widens it.
    #[test]
    fn the_newest_section_is_never_chosen() {
        let per_sec = BLOCKS_PER_SEG as u64;
        let c = [SectionView { secno: 4, valid_blocks: 1, mtime_ns: 2_000 }];
        let mut ages = MtimeRange { min_ns: 0, max_ns: 1_000 };
        assert_eq!(CostBenefit.select(&c, &mut ages, per_sec), None);
        assert_eq!(ages, MtimeRange { min_ns: 0, max_ns: 2_000 });
    }
}
