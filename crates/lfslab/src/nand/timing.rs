//! NAND and interface timings. Every operation's cost comes from here.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Timing {
    /// tR: array to page register, per (multi-plane) page read.
    pub read_ns: u64,
    /// tPROG: page register to array, per (multi-plane) program.
    pub program_ns: u64,
    /// tBERS: block erase.
    pub erase_ns: u64,
    /// NAND channel bandwidth in MB/s (10^6 B/s); 0 means transfers are free
    /// (FEMU's default channel model).
    pub channel_mbps: u64,
    /// Host interface (PCIe) bandwidth in MB/s; 0 means free.
    pub pcie_mbps: u64,
    /// Firmware time to accept a write command into the write buffer.
    pub fw_write_ns: u64,
    /// Extra firmware time per 4 KiB written into the buffer.
    pub fw_write_per_4k_ns: u64,
    /// Firmware time to process a read command.
    pub fw_read_ns: u64,
    /// Per-command time on the controller's command-processing core,
    /// serialized across every command (FEMU: its NVMe poller thread
    /// handles one request at a time). 0: commands are processed in parallel.
    #[serde(default)]
    pub cmd_ns: u64,
}

impl Timing {
    /// Time to move `bytes` across a link of `mbps` MB/s.
    #[inline]
    pub fn xfer_ns(bytes: u64, mbps: u64) -> u64 {
        if mbps == 0 {
            0
        } else {
            // bytes / (mbps * 1e6 B/s) in ns = bytes * 1000 / mbps
            (bytes * 1000).div_ceil(mbps)
        }
    }
    pub fn channel_xfer_ns(&self, bytes: u64) -> u64 {
        Self::xfer_ns(bytes, self.channel_mbps)
    }
    pub fn pcie_xfer_ns(&self, bytes: u64) -> u64 {
        Self::xfer_ns(bytes, self.pcie_mbps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transfer_times() {
        // 16 KiB over an 800 MB/s channel = 20.48 us.
        assert_eq!(Timing::xfer_ns(16384, 800), 20_480);
        assert_eq!(Timing::xfer_ns(4096, 0), 0);
    }
}
