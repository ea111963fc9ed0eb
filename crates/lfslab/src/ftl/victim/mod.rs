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

/// A policy is stateless: saved by name, restored with `by_name`.
pub(crate) mod by_name_serde {
    use super::VictimPolicy;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    #[allow(clippy::borrowed_box)] // serde `with` hands the field as is
    pub fn serialize<S: Serializer>(p: &Box<dyn VictimPolicy>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn VictimPolicy>, D::Error> {
        let name = String::deserialize(d)?;
        super::by_name(&name).ok_or_else(|| D::Error::custom(format!("unknown GC victim policy {name:?}")))
    }
}
