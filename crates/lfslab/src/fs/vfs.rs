//! The VFS-like interface every workload uses to reach a filesystem, so a
//! second filesystem (ext4) plugs in beside F2FS and its variants.
//!
//! Files are named by inode number once looked up, as the kernel's VFS
//! hands a filesystem an inode. Every call takes the instant the caller
//! makes it and returns the instant it completes for the caller; sizes and
//! offsets are in 4 KiB blocks. Data is carried as fingerprints (one per
//! block) so every read can be checked against what was written.

use super::f2fs::{FsError, Ino};
use crate::oracle::Fingerprint;
use crate::sim::SimTime;

/// How file data moves: O_DIRECT or through the page cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    Direct,
    Buffered,
}

/// What `stat` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    pub ino: Ino,
    pub size_blocks: u64,
    pub is_dir: bool,
    /// Directory entries (0 for a file).
    pub entries: u64,
}

/// The filesystem calls workloads make (Linux VFS names).
pub trait Vfs {
    /// The root directory.
    fn root(&self) -> Ino;
    /// Resolve `name` in directory `dir` (a dcache hit: CPU only).
    fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError>;
    /// create(2) of a regular file; `Exists` if the name is taken.
    fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError>;
    fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError>;
    /// open(2) of an existing inode; a file unlinked while open lives until
    /// its last `close`.
    fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError>;
    fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError>;
    /// unlink(2) (or rmdir(2) of an empty directory).
    fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError>;
    /// rename(2): replaces an existing target file.
    fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError>;
    fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError>;
    fn read(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, mode: IoMode) -> Result<SimTime, FsError>;
    fn write(&mut self, now: SimTime, ino: Ino, off: u64, data: &[Fingerprint], mode: IoMode) -> Result<SimTime, FsError>;
    /// fallocate(2) mode 0 (or FALLOC_FL_KEEP_SIZE): reserve blocks without data.
    fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, keep_size: bool) -> Result<SimTime, FsError>;
    /// ftruncate(2) to `blocks`.
    fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError>;
    /// fsync(2), or fdatasync(2) when `datasync`.
    fn fsync(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError>;
    /// Work the filesystem does on its own (flusher, background GC, discard),
    /// called periodically; the filesystem judges idleness itself.
    fn background(&mut self, now: SimTime) -> Result<(), FsError>;
    /// Hint that block `off` of `ino` is touched soon (stage 0 early, 1 later);
    /// never changes results.
    fn prefetch(&self, _ino: Ino, _off: u64, _stage: u8) {}
    /// A burst `d` of an application thread's CPU from `at` on the host's
    /// cores (`host::CpuPool`); returns when it ends. Unlimited by default.
    fn host_cpu(&mut self, at: SimTime, d: crate::sim::SimDuration) -> SimTime {
        at + d
    }
}

/// Longest name (NAME_MAX; F2FS_NAME_LEN and EXT4_NAME_LEN alike).
pub const NAME_MAX: usize = 255;

/// A name a directory may hold: 1 to 255 bytes, no '/' or NUL, not "." or "..".
pub(crate) fn check_name(name: &str) -> Result<(), FsError> {
    if name.is_empty() || name.len() > NAME_MAX || name.contains(['/', '\0']) || name == "." || name == ".." {
        return Err(FsError::BadName(name.into()));
    }
    Ok(())
}

/// rename(2) over an existing `old`: a file replaces a file, a directory
/// an empty directory (`old_dir_empty`: None when `old` is a file).
pub(crate) fn check_rename_over(src_is_dir: bool, old: Ino, old_dir_empty: Option<bool>) -> Result<(), FsError> {
    match (src_is_dir, old_dir_empty) {
        (_, Some(false)) => Err(FsError::NotEmpty(old)),
        (false, Some(true)) => Err(FsError::IsDir(old)),
        (true, None) => Err(FsError::NotDir(old)),
        _ => Ok(()),
    }
}
