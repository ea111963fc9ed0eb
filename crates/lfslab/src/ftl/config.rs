//! FTL and device configuration, validated before a device is built.

use crate::nand::{Geometry, Timing};
use serde::Serialize;

/// Mapping schemes: page mapping, and IPLFS's Interval Mapping with and
/// without map-node compaction.
pub const MAPPINGS: [&str; 3] = ["page", "interval", "interval-no-compaction"];

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct FtlConfig {
    /// Mapping scheme, one of `MAPPINGS`.
    pub mapping: String,
    /// GC victim policy name (see `victim::POLICY_NAMES`).
    pub victim_policy: String,
    /// Device GC runs while fewer than this many superblocks are free.
    pub gc_threshold_superblocks: u32,
    /// FEMU's background GC (0: none): after each command, one victim while
    /// at most this many superblocks are free, if at least 1/8 of its slots
    /// are invalid (`Ssd::background_gc`).
    #[serde(default)]
    pub gc_background_superblocks: u32,
    /// Write buffer size in 4 KiB slots.
    pub write_buffer_slots: u32,
    /// Number of host log heads; a write's stream id picks one (id % streams).
    pub streams: u32,
    /// Interval Mapping: blocks per mapping segment (map node), the paper's
    /// 2^20 scaled with the volume (`IntervalConfig::segment_blocks_for`).
    pub map_segment_blocks: u32,
    /// Firmware time per pair of an address-remap command (RM-IPU §4.1:
    /// 0.1 us per mapping entry, the NVM-backed reverse map's update).
    #[serde(default = "default_remap_entry_ns")]
    pub remap_entry_ns: u64,
}

fn default_remap_entry_ns() -> u64 {
    100
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SsdConfig {
    pub geometry: Geometry,
    pub timing: Timing,
    /// Exported capacity in 4 KiB logical pages.
    pub logical_pages: u64,
    pub ftl: FtlConfig,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub value: String,
    pub reason: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}: {}", self.field, self.value, self.reason)
    }
}
impl std::error::Error for ConfigError {}

fn err(field: &str, value: impl ToString, reason: impl ToString) -> ConfigError {
    ConfigError { field: field.into(), value: value.to_string(), reason: reason.to_string() }
}

/// Spare superblocks device GC needs: its threshold, one open superblock
/// per log head, and two so a victim with an invalid slot always exists.
pub fn gc_reserve_superblocks(gc_threshold_superblocks: u32, streams: u32) -> u32 {
    gc_threshold_superblocks + streams + 2
}

impl SsdConfig {
    /// Overprovisioning actually provided: spare / logical.
    pub fn op(&self) -> f64 {
        let phys = self.geometry.total_slots() as f64;
        (phys - self.logical_pages as f64) / self.logical_pages as f64
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        self.geometry.validate().map_err(|e| err(e.field, e.value, e.reason))?;
        let g = &self.geometry;
        if !MAPPINGS.contains(&self.ftl.mapping.as_str()) {
            return Err(err("ftl.mapping", &self.ftl.mapping, format!("unknown mapping; valid: {}", MAPPINGS.join(", "))));
        }
        if super::victim::by_name(&self.ftl.victim_policy).is_none() {
            return Err(err(
                "ftl.gc_policy",
                &self.ftl.victim_policy,
                format!("unknown policy; valid: {}", super::victim::POLICY_NAMES.join(", ")),
            ));
        }
        if self.ftl.gc_threshold_superblocks < 2 {
            return Err(err(
                "ftl.gc_threshold_superblocks",
                self.ftl.gc_threshold_superblocks,
                "must be at least 2 (GC needs a free superblock to copy into)",
            ));
        }
        if self.ftl.streams == 0 || self.ftl.streams > 16 {
            return Err(err("ftl.streams", self.ftl.streams, "must be 1..=16"));
        }
        if self.ftl.write_buffer_slots <= g.slots_per_unit() {
            return Err(err(
                "ftl.write_buffer_kib",
                self.ftl.write_buffer_slots as u64 * 4,
                format!(
                    "must exceed one program unit ({} KiB) so a full unit can drain",
                    g.slots_per_unit() as u64 * 4
                ),
            ));
        }
        if self.logical_pages == 0 {
            return Err(err("device.capacity", 0, "exported capacity must be positive"));
        }
        // Spare superblocks must cover the GC reserve and every open log head,
        // plus one, or GC may find no superblock with an invalid slot.
        let spu = g.slots_per_superblock() as u64;
        let needed_spare = gc_reserve_superblocks(self.ftl.gc_threshold_superblocks, self.ftl.streams) as u64;
        let spare = (g.total_slots().saturating_sub(self.logical_pages)) / spu;
        // An Interval Mapping's logical space is virtual (IPLFS: far larger
        // than the flash); the host keeps its live data below the capacity.
        if spare < needed_spare && !self.ftl.mapping.starts_with("interval") {
            return Err(err(
                "device.op",
                format!("{:.4}", self.op()),
                format!(
                    "only {spare} spare superblocks of {} MiB; need at least {needed_spare} \
                     (GC threshold + log heads + 2): raise op or capacity",
                    g.superblock_bytes() >> 20
                ),
            ));
        }
        Ok(())
    }
}
