//! The log-structured filesystem. F2FS is the baseline; the designs of the
//! other papers will be configurations and policies of this same code.

mod any;
mod config;
mod chunked;
mod dirty_balance;
mod dirty_segmap;
mod discard_queue;
mod flusher;
mod id_set;
pub mod ext4;
mod f2fs;
mod io;
pub mod layout;
pub mod node;
pub mod null;
mod recovery;
pub mod segment;
mod ssa;
mod ssr_index;
pub mod victim;
mod victim_index;
pub mod vfs;

pub use config::{D2fsConfig, DiscardPolicy, FsConfig, FsCosts, FsMode, FsTuning, GcEngineConfig, GcEngineKind, GcStageCosts, IpuPolicy};
pub use any::AnyFs;
pub use ext4::{Ext4, Ext4Options};
pub use f2fs::{default_reclaim_segments, CsgcConfig, F2fs, FsError, FsLockStats, FsStats, Ino, MountReport, ParallelGcStats, RegionSample, MAX_RECLAIM_PREFREE_SEGMENTS};
pub use layout::Layout;
pub use recovery::{CrashReport, Redo};
pub use vfs::{FileStat, IoMode, Vfs};

#[cfg(test)]
pub(crate) mod f2fs_tests;
#[cfg(test)]
mod namespace_tests;
#[cfg(test)]
pub(crate) mod d2fs_tests;
#[cfg(test)]
mod zoned_tests;
#[cfg(test)]
mod csgc_tests;
#[cfg(test)]
mod rmipu_tests;
#[cfg(test)]
mod iplfs_tests;
#[cfg(test)]
mod scalelfs_tests;
