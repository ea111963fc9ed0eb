//! Cost-benefit (Rosenblum & Ousterhout, "The Design and Implementation of a
//! Log-Structured File System", SOSP'91 §3.6): maximise
//! benefit/cost = (1 - u) * age / (1 + u), where u is the valid fraction,
//! reading the victim costs 1, writing its live data back costs u, and age
//! is the time since the superblock was last written. Old, cold superblocks
//! are collected at higher utilisation than greedy would allow, which keeps
//! cold data out of the way of hot data. (The LFS paper writes the cost as
//! 1 + u; F2FS's background GC uses the same shape.)

use super::VictimPolicy;
use crate::ftl::block_pool::BlockPool;
use crate::nand::SuperblockId;
use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct CostBenefit;

impl VictimPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    fn select(&mut self, pool: &BlockPool, now: SimTime) -> Option<SuperblockId> {
        let cap = pool.slots_per_superblock() as f64;
        let mut best: Option<(f64, SuperblockId)> = None;
        for (id, info) in pool.full() {
            let u = info.valid_slots as f64 / cap;
            // +1 ns keeps a just-written empty superblock preferable to a full old one.
            let age = now.saturating_since(info.last_write).ns() as f64 + 1.0;
            let score = (1.0 - u) * age / (1.0 + u);
            // Strictly greater: ties keep the lowest id.
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, id));
            }
        }
        best.map(|(_, id)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_old_over_slightly_emptier() {
        let mut p = BlockPool::new(2, 100);
        // sb0: 60% valid, written at t=0 (old). sb1: 50% valid, written at t=990 (young).
        for (valid, t) in [(60, 0), (50, 990)] {
            let sb = p.open().unwrap();
            for _ in 0..valid {
                p.add_valid(sb, SimTime(t));
            }
            p.close(sb);
        }
        assert_eq!(CostBenefit.select(&p, SimTime(1000)), Some(SuperblockId(0)));
        assert_eq!(crate::ftl::victim::Greedy.select(&p, SimTime(1000)), Some(SuperblockId(1)));
    }
}
