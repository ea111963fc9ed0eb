//! What the flash holds: one content fingerprint per 4 KiB slot, and an
//! erase count per block. Enforces the NAND rule that a programmed page
//! cannot be programmed again before its block is erased (ONFI 4.0 §3.3:
//! program after erase only).

use super::address::{Ppn, SuperblockId};
use super::geometry::Geometry;
use crate::oracle::Fingerprint;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FlashStore {
    /// 0 = erased.
    slots: Vec<u32>,
    slots_per_superblock: u64,
    /// Erase count per block, indexed by (superblock, die*planes + plane);
    /// superblock GC erases all blocks of a superblock together.
    erase_counts: Vec<u32>,
    blocks_per_superblock: usize,
}

impl FlashStore {
    pub fn new(geo: &Geometry) -> Self {
        let blocks_per_superblock = (geo.dies() * geo.planes_per_die) as usize;
        FlashStore {
            slots: vec![0; geo.total_slots() as usize],
            slots_per_superblock: geo.slots_per_superblock() as u64,
            erase_counts: vec![0; blocks_per_superblock * geo.superblocks() as usize],
            blocks_per_superblock,
        }
    }

    #[inline]
    pub fn program(&mut self, ppn: Ppn, fp: Fingerprint) {
        let slot = &mut self.slots[ppn.0 as usize];
        assert!(*slot == 0, "program of non-erased {ppn} (holds {:#x}): NAND needs erase before program", *slot);
        *slot = fp.0;
    }

    /// Fill a slot that will hold no data (padding of a partial page).
    #[inline]
    pub fn program_padding(&mut self, ppn: Ppn) {
        self.program(ppn, Fingerprint::PADDING);
    }

    #[inline]
    pub fn read(&self, ppn: Ppn) -> Option<Fingerprint> {
        match self.slots[ppn.0 as usize] {
            0 => None,
            v => Some(Fingerprint(v)),
        }
    }

    pub fn erase_superblock(&mut self, sb: SuperblockId) {
        let start = (sb.0 as u64 * self.slots_per_superblock) as usize;
        self.slots[start..start + self.slots_per_superblock as usize].fill(0);
        let b = sb.0 as usize * self.blocks_per_superblock;
        for c in &mut self.erase_counts[b..b + self.blocks_per_superblock] {
            *c += 1;
        }
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_counts
    }

    pub fn memory_bytes(&self) -> u64 {
        (self.slots.len() * 8 + self.erase_counts.len() * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 1,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 4,
            pages_per_block: 2,
            page_bytes: 4096,
        }
    }

    #[test]
    fn program_read_erase() {
        let g = geo();
        let mut s = FlashStore::new(&g);
        assert_eq!(s.read(Ppn(1)), None);
        s.program(Ppn(1), Fingerprint(42));
        assert_eq!(s.read(Ppn(1)), Some(Fingerprint(42)));
        s.erase_superblock(SuperblockId(0));
        assert_eq!(s.read(Ppn(1)), None);
        assert_eq!(&s.erase_counts()[0..2], &[1, 1]);
        assert_eq!(s.erase_counts()[2], 0);
        s.program(Ppn(1), Fingerprint(43));
    }

    #[test]
    #[should_panic(expected = "erase before program")]
    fn double_program_panics() {
        let mut s = FlashStore::new(&geo());
        s.program(Ppn(0), Fingerprint(1));
        s.program(Ppn(0), Fingerprint(2));
    }
}
