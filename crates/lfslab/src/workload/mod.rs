//! Workloads: fio-like jobs (synthetic or replayed from fio iologs, defined
//! in scenario TOML or fio job files), their access distributions, the
//! driver that runs them against the raw device or a filesystem, and
//! preconditioning; filebench personalities; and a database I/O model
//! (InnoDB) under YCSB and TPC-C.

pub mod database;
pub mod distribution;
mod driver;
pub mod filebench;
pub mod fio_jobfile;
pub(crate) mod fs_target;
pub mod iolog;
pub mod trace;
mod job;
mod precondition;
mod raw_target;

pub use distribution::{parse_size, AccessDistribution, OffsetSampler};
pub use driver::{run, DirResult, DriverConfig, DriverError, HostCosts, IoTarget, JobResult, Op, OpKind, Phase, Progress, ProgressTick, RunOutcome};
pub use fs_target::{age_files, file_sizes, layout_files, FileSet, FsTarget};
pub use job::{JobSpec, RwMode};
pub use precondition::{precondition, Precondition, PreconditionSummary};
pub use raw_target::RawTarget;
