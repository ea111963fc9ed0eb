//! Flash geometry: channels, chips (ways) per channel, dies per chip, planes
//! per die, blocks per plane, pages per block, page size. A *superblock* is
//! one block (the same index) from every plane of every die; a *program unit*
//! is one page on every plane of one die (multi-plane program). The FTL
//! addresses 4 KiB *slots* inside pages.
//!
//! Address arithmetic (striping) lives in `layout.rs`.

use serde::Serialize;

/// Size of one logical block / mapping unit: 4 KiB.
pub const SLOT_BYTES: u64 = 4096;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    /// Blocks per plane = number of superblocks.
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeometryError {
    pub field: &'static str,
    pub value: String,
    pub reason: String,
}

impl std::fmt::Display for GeometryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}: {}", self.field, self.value, self.reason)
    }
}

impl Geometry {
    pub fn validate(&self) -> Result<(), GeometryError> {
        let positive = [
            ("device.channels", self.channels),
            ("device.chips_per_channel", self.chips_per_channel),
            ("device.dies_per_chip", self.dies_per_chip),
            ("device.planes_per_die", self.planes_per_die),
            ("device.blocks_per_plane", self.blocks_per_plane),
            ("device.pages_per_block", self.pages_per_block),
        ];
        for (field, v) in positive {
            if v == 0 {
                return Err(GeometryError { field, value: v.to_string(), reason: "must be at least 1".into() });
            }
        }
        if self.page_bytes == 0 || self.page_bytes as u64 % SLOT_BYTES != 0 {
            return Err(GeometryError {
                field: "device.page_kib",
                value: format!("{}", self.page_bytes as f64 / 1024.0),
                reason: "flash page must be a positive multiple of 4 KiB".into(),
            });
        }
        if self.blocks_per_plane < 4 {
            return Err(GeometryError {
                field: "device.blocks_per_plane",
                value: self.blocks_per_plane.to_string(),
                reason: "need at least 4 superblocks (host log, GC log and two spares)".into(),
            });
        }
        // Slots are addressed with u32 in the mapping tables (4 B per entry, as
        // the D2FS paper's Table 1 accounts): 16 TiB of physical flash at most.
        if self.total_slots() > u32::MAX as u64 - 1 {
            return Err(GeometryError {
                field: "device.capacity",
                value: format!("{} bytes", self.total_bytes()),
                reason: "physical flash above 16 TiB is not supported (u32 slot addresses)".into(),
            });
        }
        Ok(())
    }

    pub fn dies(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip
    }
    pub fn slots_per_page(&self) -> u32 {
        (self.page_bytes as u64 / SLOT_BYTES) as u32
    }
    /// Slots programmed together on one die: one page on each plane.
    pub fn slots_per_unit(&self) -> u32 {
        self.slots_per_page() * self.planes_per_die
    }
    pub fn units_per_superblock(&self) -> u32 {
        self.pages_per_block * self.dies()
    }
    pub fn slots_per_superblock(&self) -> u32 {
        self.units_per_superblock() * self.slots_per_unit()
    }
    pub fn superblocks(&self) -> u32 {
        self.blocks_per_plane
    }
    pub fn superblock_bytes(&self) -> u64 {
        self.slots_per_superblock() as u64 * SLOT_BYTES
    }
    pub fn block_bytes(&self) -> u64 {
        self.pages_per_block as u64 * self.page_bytes as u64
    }
    pub fn total_slots(&self) -> u64 {
        self.slots_per_superblock() as u64 * self.superblocks() as u64
    }
    pub fn total_bytes(&self) -> u64 {
        self.total_slots() * SLOT_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_bytes: 16384,
        }
    }

    #[test]
    fn derived_sizes() {
        let g = small();
        assert_eq!(g.dies(), 4);
        assert_eq!(g.slots_per_page(), 4);
        assert_eq!(g.slots_per_superblock(), 4 * 4 * 4);
        assert_eq!(g.total_slots(), 64 * 8);
        assert_eq!(g.superblock_bytes(), 64 * 4096);
    }

    #[test]
    fn validation_names_the_field() {
        let mut g = small();
        g.page_bytes = 6000;
        let e = g.validate().unwrap_err();
        assert_eq!(e.field, "device.page_kib");
        let mut g = small();
        g.channels = 0;
        assert_eq!(g.validate().unwrap_err().field, "device.channels");
        assert!(small().validate().is_ok());
    }
}
