//! GC victim selection policies, one file each behind `VictimPolicy`.

mod cost_benefit;
mod greedy;

pub use cost_benefit::CostBenefit;
pub use greedy::Greedy;

use super::block_pool::BlockPool;
use crate::nand::SuperblockId;
use crate::sim::SimTime;

pub trait VictimPolicy {
    fn name(&self) -> &'static str;
    /// Choose a full superblock to collect, or None if none is full.
    fn select(&mut self, pool: &BlockPool, now: SimTime) -> Option<SuperblockId>;
}

pub const POLICY_NAMES: [&str; 2] = ["greedy", "cost-benefit"];

pub fn by_name(name: &str) -> Option<Box<dyn VictimPolicy>> {
    match name {
        "greedy" => Some(Box::new(Greedy)),
        "cost-benefit" => Some(Box::new(CostBenefit)),
        _ => None,
    }
}
