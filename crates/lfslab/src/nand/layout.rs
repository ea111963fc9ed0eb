//! Physical address arithmetic for a geometry, on the hot path of every
//! FTL operation; divisions by powers of two become shifts.
//!
//! Striping (D2FS §2.1, "superpage and superblock are a group of flash
//! pages and blocks across different ways and channels"): a slot's offset
//! inside its superblock is (page row, die, slot-in-unit) in row-major
//! order, so consecutive program units go to consecutive dies, and die `d`
//! sits on channel `d % channels`; a sequential stream keeps every channel
//! busy.

use super::address::{DieId, Ppn, SuperblockId};
use super::geometry::Geometry;

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Divisor {
    d: u64,
    shift: Option<u32>,
}

impl Divisor {
    pub(crate) fn new(d: u64) -> Self {
        assert!(d > 0, "division by zero in layout");
        Divisor { d, shift: d.is_power_of_two().then(|| d.trailing_zeros()) }
    }
    #[inline]
    pub(crate) fn div(self, x: u64) -> u64 {
        match self.shift {
            Some(s) => x >> s,
            None => x / self.d,
        }
    }
    #[inline]
    pub(crate) fn rem(self, x: u64) -> u64 {
        match self.shift {
            Some(_) => x & (self.d - 1),
            None => x % self.d,
        }
    }
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Layout {
    slots_per_superblock: Divisor,
    slots_per_unit: Divisor,
    dies: Divisor,
    channels: Divisor,
}

impl Layout {
    pub fn new(geo: &Geometry) -> Self {
        Layout {
            slots_per_superblock: Divisor::new(geo.slots_per_superblock() as u64),
            slots_per_unit: Divisor::new(geo.slots_per_unit() as u64),
            dies: Divisor::new(geo.dies() as u64),
            channels: Divisor::new(geo.channels as u64),
        }
    }

    #[inline]
    pub fn superblock_of(&self, ppn: Ppn) -> SuperblockId {
        SuperblockId(self.slots_per_superblock.div(ppn.0) as u32)
    }

    /// (superblock, offset in it) of `x` slots counted from superblock 0's
    /// start: block-mapped LBAs (D2FS sections, ZNS zones) are laid out so.
    #[inline]
    pub fn split_superblock(&self, x: u64) -> (u64, u64) {
        (self.slots_per_superblock.div(x), self.slots_per_superblock.rem(x))
    }

    #[inline]
    pub fn superblock_start(&self, sb: SuperblockId) -> Ppn {
        Ppn(sb.0 as u64 * self.slots_per_superblock.d)
    }

    /// Offset of slot `n` (counted from a unit boundary) inside its program
    /// unit: a shift for the usual power-of-two unit, where `%` by the
    /// runtime unit size is a division on every slot a log head fills.
    #[inline]
    pub fn slot_in_unit(&self, n: u64) -> u64 {
        self.slots_per_unit.rem(n)
    }

    /// Global program-unit number: one die's (multi-plane) page, what a
    /// program or a page read touches.
    #[inline]
    pub fn unit_of(&self, ppn: Ppn) -> u64 {
        self.slots_per_unit.div(ppn.0)
    }

    /// First slot of global unit `unit`.
    #[inline]
    pub fn unit_start(&self, unit: u64) -> Ppn {
        Ppn(unit * self.slots_per_unit.d)
    }

    /// Units per superblock is a multiple of the die count, so the global
    /// unit number modulo dies is the die.
    #[inline]
    pub fn die_of(&self, ppn: Ppn) -> DieId {
        DieId(self.dies.rem(self.unit_of(ppn)) as u32)
    }

    #[inline]
    pub fn channel_of(&self, die: DieId) -> u32 {
        self.channels.rem(die.0 as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo(channels: u32, chips: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_bytes: 16384,
        }
    }

    #[test]
    fn striping_rotates_dies_and_channels() {
        let l = Layout::new(&geo(2, 2));
        // Slots 0..4 on die 0, 4..8 on die 1, ... 16..20 back on die 0 (next page row).
        assert_eq!(l.die_of(Ppn(0)), DieId(0));
        assert_eq!(l.die_of(Ppn(5)), DieId(1));
        assert_eq!(l.die_of(Ppn(16)), DieId(0));
        assert_eq!(l.channel_of(DieId(1)), 1);
        assert_eq!(l.channel_of(DieId(2)), 0);
        assert_eq!(l.superblock_of(Ppn(64)), SuperblockId(1));
        assert_eq!(l.superblock_start(SuperblockId(2)), Ppn(128));
        assert_eq!(l.unit_start(l.unit_of(Ppn(70))), Ppn(68));
    }

    #[test]
    fn non_power_of_two_geometry() {
        // 3 channels x 1 chip: 3 dies, superblock of 3*4*4 = 48 slots.
        let l = Layout::new(&geo(3, 1));
        assert_eq!(l.superblock_of(Ppn(47)), SuperblockId(0));
        assert_eq!(l.superblock_of(Ppn(48)), SuperblockId(1));
        assert_eq!(l.die_of(Ppn(48)), DieId(0));
        assert_eq!(l.die_of(Ppn(8)), DieId(2));
        assert_eq!(l.die_of(Ppn(12)), DieId(0));
    }
}
