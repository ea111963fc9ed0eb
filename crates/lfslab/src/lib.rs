//! lfslab: a deterministic full-stack simulator of log-structured
//! filesystems on flash SSDs. Layers, bottom-up: `sim` (time, scheduler,
//! PRNG), `nand`, `ftl`, `nvme`, `workload`, `metrics`, `scenario`.
//! Libraries never print; output goes through `metrics` sinks.

pub mod aged;
pub mod compare;
pub mod engine;
pub mod fs;
pub mod ftl;
pub mod host;
pub mod huge_pages;
pub mod metrics;
pub mod nand;
pub mod nvme;
pub mod oracle;
mod prefetch;
pub mod scenario;
pub mod sim;
mod slot_index;
pub mod swarm;
pub mod workload;
