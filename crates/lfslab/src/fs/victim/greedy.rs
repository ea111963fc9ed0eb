//! Greedy: the section with the fewest valid blocks (F2FS `get_greedy_cost`
//! for LFS victims; `get_max_cost` is twice a section's blocks).

use super::{MtimeRange, SectionVictim};
use crate::fs::segment::SectionView;

pub struct Greedy;

impl SectionVictim for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn cost(&self, c: &SectionView, _ages: &mut MtimeRange, _blocks_per_sec: u64) -> u64 {
        c.valid_blocks as u64
    }
    fn max_cost(&self, blocks_per_sec: u64) -> u64 {
        2 * blocks_per_sec
    }
}
