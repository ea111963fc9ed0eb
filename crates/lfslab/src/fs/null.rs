//! A filesystem that stores nothing and answers every call after a fixed
//! latency: `lfslab bench` runs a workload model against it to time the
//! model alone (workload generators must cost little beside the I/O they
//! drive). Never used for results.

use super::vfs::{FileStat, IoMode, Vfs};
use super::{FsError, Ino};
use crate::oracle::Fingerprint;
use crate::sim::{SimDuration, SimTime};

pub struct NullFs {
    next_ino: Ino,
    latency: SimDuration,
}

impl NullFs {
    /// Every call completes `latency` after it is made.
    pub fn new(latency: SimDuration) -> Self {
        NullFs { next_ino: 4, latency }
    }
}

impl Vfs for NullFs {
    fn root(&self) -> Ino {
        3
    }
    fn lookup(&mut self, now: SimTime, _dir: Ino, _name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        Ok((None, now))
    }
    fn create(&mut self, now: SimTime, _dir: Ino, _name: &str) -> Result<(Ino, SimTime), FsError> {
        self.next_ino += 1;
        Ok((self.next_ino, now + self.latency))
    }
    fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.create(now, dir, name)
    }
    fn open(&mut self, now: SimTime, _ino: Ino) -> Result<SimTime, FsError> {
        Ok(now)
    }
    fn close(&mut self, now: SimTime, _ino: Ino) -> Result<SimTime, FsError> {
        Ok(now)
    }
    fn unlink(&mut self, now: SimTime, _dir: Ino, _name: &str) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn rename(&mut self, now: SimTime, _fd: Ino, _f: &str, _td: Ino, _t: &str) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        Ok((FileStat { ino, size_blocks: 0, is_dir: false, entries: 0 }, now))
    }
    fn read(&mut self, now: SimTime, _ino: Ino, _off: u64, _blocks: u64, _mode: IoMode) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn write(&mut self, now: SimTime, _ino: Ino, _off: u64, _data: &[Fingerprint], _mode: IoMode) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn fallocate(&mut self, now: SimTime, _ino: Ino, _off: u64, _blocks: u64, _keep: bool) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn truncate(&mut self, now: SimTime, _ino: Ino, _blocks: u64) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn fsync(&mut self, now: SimTime, _ino: Ino, _datasync: bool) -> Result<SimTime, FsError> {
        Ok(now + self.latency)
    }
    fn background(&mut self, _now: SimTime) -> Result<(), FsError> {
        Ok(())
    }
}
