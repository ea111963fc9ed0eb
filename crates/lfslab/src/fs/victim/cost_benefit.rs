//! F2FS cost-benefit (fs/f2fs/gc.c `get_cb_cost`): u = valid%, age =
//! 100 - 100 * (mtime - min) / (max - min) over the candidates' mean segment
//! mtimes, and the victim maximises 100 * (100 - u) * age / (100 + u).

use super::SectionVictim;
use crate::fs::segment::SectionView;

pub struct CostBenefit;

impl SectionVictim for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    fn select(&self, candidates: &[SectionView], blocks_per_sec: u64) -> Option<u32> {
        let min = candidates.iter().map(|c| c.mtime_ns).min()?;
        let max = candidates.iter().map(|c| c.mtime_ns).max()?;
        // Ties (e.g. all mtimes equal, so every age is 0) go to the emptier section.
        let mut best: Option<((u64, u64), u32)> = None;
        for c in candidates {
            let u = c.valid_blocks as u64 * 100 / blocks_per_sec;
            let age = if max > min { 100 - 100 * (c.mtime_ns - min) / (max - min) } else { 0 };
            let key = (100 * (100 - u) * age / (100 + u), blocks_per_sec - c.valid_blocks as u64);
            if best.is_none_or(|(b, _)| key > b) {
                best = Some((key, c.secno));
            }
        }
        best.map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::victim::Greedy;

    #[test]
    fn old_beats_slightly_emptier_young() {
        let c = [
            SectionView { secno: 0, valid_blocks: 600, mtime_ns: 0 },
            SectionView { secno: 1, valid_blocks: 500, mtime_ns: 1_000 },
        ];
        assert_eq!(CostBenefit.select(&c, 1000), Some(0));
        assert_eq!(Greedy.select(&c, 1000), Some(1));
    }
}
