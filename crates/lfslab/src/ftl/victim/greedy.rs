//! Greedy: the full superblock with the fewest valid slots (least copying
//! now). Ties go to the lowest id, for determinism.

use super::VictimPolicy;
use crate::ftl::block_pool::BlockPool;
use crate::nand::SuperblockId;
use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl VictimPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn select(&mut self, pool: &BlockPool, _now: SimTime) -> Option<SuperblockId> {
        pool.full().min_by_key(|(id, info)| (info.valid_slots, id.0)).map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_fewest_valid() {
        let mut p = BlockPool::new(3, 4);
        for valid in [3, 1, 2] {
            let sb = p.open().unwrap();
            for _ in 0..valid {
                p.add_valid(sb, SimTime(0));
            }
            p.close(sb);
        }
        assert_eq!(Greedy.select(&p, SimTime(0)), Some(SuperblockId(1)));
    }
}
