//! Filesystem GC victim selection over sections, one policy per file.
//! F2FS uses greedy for foreground GC and cost-benefit for background GC
//! (fs/f2fs/gc.c `select_gc_type`).

mod cost_benefit;
mod greedy;

pub use cost_benefit::CostBenefit;
pub use greedy::Greedy;

use super::segment::SectionView;

pub trait SectionVictim {
    fn name(&self) -> &'static str;
    fn select(&self, candidates: &[SectionView], blocks_per_sec: u64) -> Option<u32>;
}
