//! Greedy: the section with the fewest valid blocks (F2FS `get_greedy_cost`).

use super::SectionVictim;
use crate::fs::segment::SectionView;

pub struct Greedy;

impl SectionVictim for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn select(&self, candidates: &[SectionView], _blocks_per_sec: u64) -> Option<u32> {
        candidates.iter().min_by_key(|c| (c.valid_blocks, c.secno)).map(|c| c.secno)
    }
}
