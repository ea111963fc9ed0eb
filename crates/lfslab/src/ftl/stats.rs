//! Counters the FTL keeps; the report derives WAF and rates from them.

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FtlStats {
    pub host_write_slots: u64,
    pub host_read_slots: u64,
    pub host_trim_slots: u64,
    /// Reads served from the write buffer (data not yet sent to flash).
    pub buffer_read_hits: u64,
    pub gc_write_slots: u64,
    /// Slots filled with padding to program a partial page (flush, GC end).
    pub padding_slots: u64,
    pub nand_program_units: u64,
    pub nand_read_units_host: u64,
    pub nand_read_units_gc: u64,
    pub gc_count: u64,
    /// Of `gc_count`, victims FEMU's background GC took (`Ssd::background_gc`).
    #[serde(default)]
    pub gc_background_count: u64,
    /// Sum over collected superblocks of (last erase done - GC start).
    pub gc_busy_ns: u64,
    /// Each victim's critical path (D2FS Fig. 16's device side), from when
    /// the first die is free for it (not queued behind host programs): until
    /// its last page read is in the controller, then until its last copy is
    /// programmed, then the erase.
    pub gc_read_ns: u64,
    pub gc_program_ns: u64,
    pub gc_erase_ns: u64,
    pub superblocks_erased: u64,
    pub buffer_full_waits: u64,
    pub flush_count: u64,
    /// Time the FTL spent reorganising its mapping (Interval Mapping compaction).
    pub mapping_stall_ns: u64,
    /// Slots the CSGC executor wrote for the host's offloaded migrations:
    /// filesystem GC writes done in the device, so they count on the host's
    /// side of the FTL's write amplification.
    pub offload_write_slots: u64,
    /// Address-remap pairs executed (RM-IPU).
    pub remap_entries: u64,
}


impl FtlStats {
    /// Slots programmed to NAND: host data, offloaded migrations, GC copies and padding.
    pub fn nand_write_slots(&self) -> u64 {
        self.host_write_slots + self.offload_write_slots + self.gc_write_slots + self.padding_slots
    }

    /// FTL write amplification: NAND writes / writes the host asked for
    /// (its writes and its offloaded migrations).
    pub fn waf(&self) -> f64 {
        let asked = self.host_write_slots + self.offload_write_slots;
        if asked == 0 {
            0.0
        } else {
            self.nand_write_slots() as f64 / asked as f64
        }
    }

    /// Device GC time per victim by stage (name, ms), from when a die was
    /// free for it (D2FS Fig. 16); None when the device collected nothing.
    pub fn gc_stages_per_victim(&self) -> Option<[(&'static str, f64); 3]> {
        if self.gc_count == 0 {
            return None;
        }
        let ms = |ns: u64| ns as f64 / self.gc_count as f64 / 1e6;
        Some([("read", ms(self.gc_read_ns)), ("program", ms(self.gc_program_ns)), ("erase", ms(self.gc_erase_ns))])
    }

    /// Counters accumulated since `earlier` (for measured phases).
    pub fn since(&self, earlier: &FtlStats) -> FtlStats {
        FtlStats {
            host_write_slots: self.host_write_slots - earlier.host_write_slots,
            host_read_slots: self.host_read_slots - earlier.host_read_slots,
            host_trim_slots: self.host_trim_slots - earlier.host_trim_slots,
            buffer_read_hits: self.buffer_read_hits - earlier.buffer_read_hits,
            gc_write_slots: self.gc_write_slots - earlier.gc_write_slots,
            padding_slots: self.padding_slots - earlier.padding_slots,
            nand_program_units: self.nand_program_units - earlier.nand_program_units,
            nand_read_units_host: self.nand_read_units_host - earlier.nand_read_units_host,
            nand_read_units_gc: self.nand_read_units_gc - earlier.nand_read_units_gc,
            gc_count: self.gc_count - earlier.gc_count,
            gc_background_count: self.gc_background_count - earlier.gc_background_count,
            gc_busy_ns: self.gc_busy_ns - earlier.gc_busy_ns,
            gc_read_ns: self.gc_read_ns - earlier.gc_read_ns,
            gc_program_ns: self.gc_program_ns - earlier.gc_program_ns,
            gc_erase_ns: self.gc_erase_ns - earlier.gc_erase_ns,
            superblocks_erased: self.superblocks_erased - earlier.superblocks_erased,
            buffer_full_waits: self.buffer_full_waits - earlier.buffer_full_waits,
            flush_count: self.flush_count - earlier.flush_count,
            mapping_stall_ns: self.mapping_stall_ns - earlier.mapping_stall_ns,
            offload_write_slots: self.offload_write_slots - earlier.offload_write_slots,
            remap_entries: self.remap_entries - earlier.remap_entries,
        }
    }
}
