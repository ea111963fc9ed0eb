//! Workloads: fio-like synthetic jobs on the raw device, their access
//! distributions, and preconditioning.

pub mod distribution;
mod file_runner;
mod job;
mod precondition;
mod runner;

pub use distribution::{parse_size, AccessDistribution, OffsetSampler};
pub use file_runner::{age_files, layout_files, run_file_jobs, FileRunError, FileSet};
pub use job::{JobSpec, RwMode};
pub use precondition::{precondition, Precondition, PreconditionSummary};
pub use runner::{run_jobs, DirResult, HostCosts, JobResult, RunOutcome};
