//! A fio-like job on the raw device (fio(1) option names: rw, bs, iodepth,
//! numjobs, size, offset, runtime, io_size, rwmixread,
//! random_distribution). Sizes here are already resolved to 4 KiB blocks.

use super::distribution::AccessDistribution;
use super::iolog::Iolog;
use crate::sim::SimDuration;
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed (fio `rw`/`readwrite`).
    ReadWrite,
    RandRw,
}

impl RwMode {
    pub const NAMES: [&'static str; 7] = ["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw"];

    pub fn parse(s: &str) -> Option<RwMode> {
        Some(match s {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            _ => return None,
        })
    }

    pub fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw)
    }

    /// Percentage of reads implied by the mode, or None for mixed modes.
    pub fn fixed_read_pct(self) -> Option<u32> {
        match self {
            RwMode::Read | RwMode::RandRead => Some(100),
            RwMode::Write | RwMode::RandWrite => Some(0),
            RwMode::ReadWrite | RwMode::RandRw => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub name: String,
    pub rw: RwMode,
    /// Reads as a percentage of I/Os for mixed modes (fio default 50).
    pub rwmixread: u32,
    pub bs_blocks: u32,
    pub iodepth: u32,
    pub numjobs: u32,
    pub offset_blocks: u64,
    pub size_blocks: u64,
    pub runtime: Option<SimDuration>,
    pub io_size_blocks: Option<u64>,
    pub distribution: AccessDistribution,
    /// NVMe stream id attached to writes.
    pub stream: u8,
    /// Filesystem jobs: files per clone and blocks per file (size_blocks =
    /// nrfiles * file_blocks); fsync after every `fsync_every` writes (0 = never).
    pub nrfiles: u32,
    pub file_blocks: u64,
    pub fsync_every: u32,
    /// fio time_based: keep going until `runtime` even after `size` is done.
    pub time_based: bool,
    /// Stonewall group: a job starts when every job of earlier groups is done.
    pub group: u32,
    /// Replay this fio iolog instead of generating I/O.
    pub iolog: Option<Arc<Iolog>>,
    /// fio replay_no_stall: ignore the log's timing and replay back to back.
    pub replay_no_stall: bool,
    /// fio filename: a file shared by every job and clone that names it.
    pub filename: Option<String>,
    /// fio direct: O_DIRECT (true) or buffered through the page cache.
    pub direct: bool,
    /// fio group_reporting: the clones are reported as one.
    pub group_reporting: bool,
    /// Create missing file blocks with fallocate(2) instead of writing them.
    pub layout_fallocate: bool,
}

impl JobSpec {
    pub fn read_pct(&self) -> u32 {
        self.rw.fixed_read_pct().unwrap_or(self.rwmixread)
    }
}
