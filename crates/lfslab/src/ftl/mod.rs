//! Flash translation layer: mapping schemes behind `Mapping`, superblock
//! pool, write buffer, device GC with pluggable victim policies, and the
//! `Ssd` that executes NVMe commands on top of the NAND model.

mod activity;
mod block_pool;
mod config;
pub mod interval_mapping;
mod node_entries;
mod mapping;
pub mod migration;
pub mod mapping_checker;
mod page_mapping;
mod ssd;
mod stats;
pub mod victim;
mod write_buffer;

pub use activity::ActivityLog;
pub use block_pool::{BlockPool, SbState, SuperblockInfo};
pub use config::{gc_reserve_superblocks, ConfigError, FtlConfig, SsdConfig};
pub use mapping::Mapping;
pub use page_mapping::PageMapping;
pub use ssd::{CoupledConfig, CoupledStats, CsdConfig, CsdStats, MainArea, MappingMemory, Ssd};
pub use stats::FtlStats;
pub use write_buffer::WriteBuffer;

#[cfg(test)]
mod ssd_tests;
#[cfg(test)]
mod coupled_tests;
#[cfg(test)]
mod zns_tests;
#[cfg(test)]
mod interval_tests;
#[cfg(test)]
mod sftl_tests;
#[cfg(test)]
mod remap_tests;
