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
