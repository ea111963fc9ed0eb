//! What a filesystem sees of a device: 4 KiB-block read, write with
//! per-block content and a stream id, discard and flush, each returning the
//! instant it completes. Filesystems issue their I/O through this trait so
//! that conventional, zoned and D2FS devices can sit under the same code.

use crate::nand::Lpn;
use crate::oracle::Fingerprint;
use crate::sim::SimTime;

pub trait BlockDevice {
    /// Exported capacity in 4 KiB blocks.
    fn capacity_blocks(&self) -> u64;
    /// Write `content.len()` blocks at `slba`.
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime;
    /// Read `nlb` blocks at `slba`; `out` receives one entry per block (None = unmapped).
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime;
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime;
    fn flush(&mut self, at: SimTime) -> SimTime;
}

impl BlockDevice for crate::ftl::Ssd {
    fn capacity_blocks(&self) -> u64 {
        self.logical_pages()
    }
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime {
        assert!(!content.is_empty() && slba.0 + content.len() as u64 <= self.logical_pages(), "write beyond the device");
        crate::ftl::Ssd::write(self, at, slba, content.len() as u32, stream, |i| content[i as usize])
    }
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime {
        out.clear();
        self.read_blocks(at, slba, nlb, out)
    }
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        self.discard_blocks(at, slba, nlb)
    }
    fn flush(&mut self, at: SimTime) -> SimTime {
        crate::ftl::Ssd::flush(self, at)
    }
}

/// The first `blocks` of a device as a device of its own (a partition
/// starting at LBA 0); the rest of the device is left untouched.
pub struct Partition<D: BlockDevice> {
    pub dev: D,
    blocks: u64,
}

impl<D: BlockDevice> Partition<D> {
    pub fn new(dev: D, blocks: u64) -> Self {
        assert!(blocks > 0 && blocks <= dev.capacity_blocks(), "partition of {blocks} blocks does not fit the device");
        Partition { dev, blocks }
    }
}

impl<D: BlockDevice> BlockDevice for Partition<D> {
    fn capacity_blocks(&self) -> u64 {
        self.blocks
    }
    fn write(&mut self, at: SimTime, slba: Lpn, content: &[Fingerprint], stream: u8) -> SimTime {
        assert!(slba.0 + content.len() as u64 <= self.blocks, "write beyond the partition");
        self.dev.write(at, slba, content, stream)
    }
    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, out: &mut Vec<Option<Fingerprint>>) -> SimTime {
        assert!(slba.0 + nlb as u64 <= self.blocks, "read beyond the partition");
        self.dev.read(at, slba, nlb, out)
    }
    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        assert!(slba.0 + nlb as u64 <= self.blocks, "discard beyond the partition");
        self.dev.discard(at, slba, nlb)
    }
    fn flush(&mut self, at: SimTime) -> SimTime {
        self.dev.flush(at)
    }
}
