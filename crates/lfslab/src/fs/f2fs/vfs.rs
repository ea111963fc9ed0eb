//! F2FS (and its D2FS, IPLFS and zoned variants) behind the VFS trait.
//! Every entry point first runs the flusher thread's steps due by its
//! instant (`fs::flusher`).

use super::*;
use crate::fs::vfs::{FileStat, IoMode, Vfs};

impl<D: BlockDevice> Vfs for F2fs<D> {
    fn root(&self) -> Ino {
        self.root
    }
    fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        self.flusher_catch_up(now)?;
        F2fs::lookup(self, now, dir, name)
    }
    fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.flusher_catch_up(now)?;
        F2fs::create(self, now, dir, name)
    }
    fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.flusher_catch_up(now)?;
        F2fs::mkdir(self, now, dir, name)
    }
    fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::open(self, now, ino)
    }
    fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::close(self, now, ino)
    }
    fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::unlink(self, now, dir, name)
    }
    fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::rename(self, now, from_dir, from, to_dir, to)
    }
    fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        self.flusher_catch_up(now)?;
        F2fs::stat(self, now, ino)
    }
    fn read(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, mode: IoMode) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        self.read_file(now, ino, off, blocks, mode == IoMode::Buffered)
    }
    fn write(&mut self, now: SimTime, ino: Ino, off: u64, data: &[Fingerprint], mode: IoMode) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        match mode {
            IoMode::Direct => F2fs::write(self, now, ino, off, data),
            IoMode::Buffered => self.write_buffered(now, ino, off, data),
        }
    }
    fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, blocks: u64, keep_size: bool) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::fallocate(self, now, ino, off, blocks, keep_size)
    }
    fn truncate(&mut self, now: SimTime, ino: Ino, blocks: u64) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        F2fs::truncate(self, now, ino, blocks)
    }
    fn fsync(&mut self, now: SimTime, ino: Ino, datasync: bool) -> Result<SimTime, FsError> {
        self.flusher_catch_up(now)?;
        self.sync_file(now, ino, datasync)
    }
    /// F2FS decides for itself when it is idle (`idle_interval` since the
    /// last request), so its daemons run on every call.
    fn background(&mut self, now: SimTime) -> Result<(), FsError> {
        self.flusher(now)?;
        self.on_idle(now).map(|_| ())
    }
    fn prefetch(&self, ino: Ino, off: u64, stage: u8) {
        self.prefetch_page(ino, off, stage)
    }
    fn host_cpu(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        F2fs::host_cpu(self, at, d)
    }
}
