//! One of lfslab's filesystems on a device: what a run holds. Workloads
//! reach it through `Vfs`; the report asks it for what every filesystem
//! has (counters, cache, oracle) and, for F2FS and its variants, the rest.

use super::ext4::Ext4;
use super::f2fs::{F2fs, FsError, FsLockStats, FsStats, Ino, MountReport};
use super::vfs::{FileStat, IoMode, Vfs};
use crate::host::PageCacheStats;
use crate::nvme::BlockDevice;
use crate::oracle::{Fingerprint, OracleStats};
use crate::sim::SimTime;

#[derive(serde::Serialize, serde::Deserialize)]
pub enum AnyFs<D: BlockDevice> {
    F2fs(F2fs<D>),
    Ext4(Ext4<D>),
}

/// Forward a call to whichever filesystem this is.
macro_rules! each {
    ($self:expr, $f:ident => $e:expr) => {
        match $self {
            AnyFs::F2fs($f) => $e,
            AnyFs::Ext4($f) => $e,
        }
    };
}

impl<D: BlockDevice> AnyFs<D> {
    pub fn dev(&self) -> &D {
        each!(self, f => &f.dev)
    }
    pub fn dev_mut(&mut self) -> &mut D {
        each!(self, f => &mut f.dev)
    }
    pub fn stats(&self) -> &FsStats {
        each!(self, f => f.stats())
    }
    pub fn oracle(&self) -> &OracleStats {
        each!(self, f => f.oracle())
    }
    pub fn page_cache_stats(&self) -> PageCacheStats {
        each!(self, f => f.page_cache_stats())
    }
    pub fn lock_stats(&self) -> FsLockStats {
        each!(self, f => f.lock_stats())
    }
    pub fn utilization_pct(&self) -> f64 {
        each!(self, f => f.utilization_pct())
    }
    /// Make everything durable: F2FS's checkpoint, ext4's writeback + commit.
    pub fn sync_fs(&mut self, now: SimTime) -> Result<SimTime, FsError> {
        match self {
            AnyFs::F2fs(f) => Ok(f.checkpoint(now)),
            AnyFs::Ext4(f) => f.sync_fs(now),
        }
    }
    pub fn check_consistency(&self) -> Result<(), String> {
        each!(self, f => f.check_consistency())
    }
    pub fn file_size_blocks(&self, ino: Ino) -> Option<u64> {
        each!(self, f => f.file_size_blocks(ino))
    }
    /// Every inode, in order.
    pub fn files(&self) -> Vec<Ino> {
        each!(self, f => f.files().collect())
    }
    /// The sizes of every file, summed (blocks).
    pub fn total_file_blocks(&self) -> u64 {
        each!(self, f => f.files().filter_map(|i| f.file_size_blocks(i)).sum())
    }
    /// Power is cut at `at`: mount again from the device (F2FS: checkpoint,
    /// roll-forward, D2FS redo; ext4: jbd2 replay, orphan cleanup) and
    /// check every promise. The report is F2FS's; ext4 fills the fields it has.
    pub fn crash_remount(self, at: SimTime) -> Result<(Self, MountReport), String> {
        match self {
            AnyFs::F2fs(f) => f.crash_remount(at).map(|(f, r)| (AnyFs::F2fs(f), r)),
            AnyFs::Ext4(f) => {
                let (f, r) = f.crash_remount(at)?;
                let rep = MountReport {
                    inodes: r.inodes,
                    orphans_evicted: r.orphans_evicted,
                    promised_checked: r.promised_checked,
                    promised_lost: r.promised_lost,
                    unsynced_visible: r.unsynced_visible,
                    errors: r.errors,
                    ..MountReport::default()
                };
                Ok((AnyFs::Ext4(f), rep))
            }
        }
    }
    pub fn as_f2fs(&self) -> Option<&F2fs<D>> {
        match self {
            AnyFs::F2fs(f) => Some(f),
            AnyFs::Ext4(_) => None,
        }
    }
    pub fn as_ext4(&self) -> Option<&Ext4<D>> {
        match self {
            AnyFs::Ext4(f) => Some(f),
            AnyFs::F2fs(_) => None,
        }
    }
}

impl<D: BlockDevice> Vfs for AnyFs<D> {
    fn root(&self) -> Ino {
        each!(self, f => Vfs::root(f))
    }
    fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        each!(self, f => Vfs::lookup(f, now, dir, name))
    }
    fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        each!(self, f => Vfs::create(f, now, dir, name))
    }
    fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        each!(self, f => Vfs::mkdir(f, now, dir, name))
    }
    fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::open(f, now, ino))
    }
    fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::close(f, now, ino))
    }
    fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::unlink(f, now, dir, name))
    }
    fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::rename(f, now, from_dir, from, to_dir, to))
    }
    fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        each!(self, f => Vfs::stat(f, now, ino))
    }
    fn read(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, mode: IoMode) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::read(f, now, ino, off, blocks, mode))
    }
    fn write(&mut self, now: SimTime, ino: Ino, off: u64, data: &[Fingerprint], mode: IoMode) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::write(f, now, ino, off, data, mode))
    }
    fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, keep_size: bool) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::fallocate(f, now, ino, off, blocks, keep_size))
    }
    fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::truncate(f, now, ino, blocks))
    }
    fn fsync(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError> {
        each!(self, f => Vfs::fsync(f, now, ino, datasync))
    }
    fn background(&mut self, now: SimTime) -> Result<(), FsError> {
        each!(self, f => Vfs::background(f, now))
    }
    fn prefetch(&self, ino: Ino, off: u64, stage: u8) {
        each!(self, f => Vfs::prefetch(f, ino, off, stage))
    }
    fn host_cpu(&mut self, at: SimTime, d: crate::sim::SimDuration) -> SimTime {
        each!(self, f => Vfs::host_cpu(f, at, d))
    }
}
