//! The log-structured filesystem. F2FS is the baseline; the designs of the
//! other papers will be configurations and policies of this same code.

mod config;
mod chunked;
mod dirty_segmap;
mod discard_queue;
mod id_set;
mod f2fs;
pub mod layout;
pub mod node;
mod recovery;
pub mod segment;
pub mod victim;

pub use config::{D2fsConfig, DiscardPolicy, FsConfig, FsCosts, FsMode, FsTuning, IpuPolicy};
pub use f2fs::{default_reclaim_segments, F2fs, FsError, FsLockStats, FsStats, Ino, RegionSample, MAX_RECLAIM_PREFREE_SEGMENTS};
pub use layout::Layout;
pub use recovery::{CrashReport, Redo};

#[cfg(test)]
mod f2fs_tests;
#[cfg(test)]
pub(crate) mod d2fs_tests;
#[cfg(test)]
mod zoned_tests;
#[cfg(test)]
mod iplfs_tests;
