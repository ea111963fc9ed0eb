//! Page-level mapping: one 4-byte entry per 4 KiB logical page, the scheme
//! of the D2FS paper's baseline (Table 1: "4 Byte for 4 KByte logical
//! block", 256 MiB for 256 GiB).

use super::mapping::Mapping;
use crate::nand::{Lpn, Ppn};

const UNMAPPED: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PageMapping {
    table: Vec<u32>,
}

impl PageMapping {
    pub fn new(logical_pages: u64) -> Self {
        assert!(logical_pages < UNMAPPED as u64, "page mapping supports < 2^32 logical pages");
        PageMapping { table: vec![UNMAPPED; logical_pages as usize] }
    }
}

impl Mapping for PageMapping {
    fn name(&self) -> &'static str {
        "page"
    }
    fn logical_pages(&self) -> u64 {
        self.table.len() as u64
    }
    #[inline]
    fn get(&self, lpn: Lpn) -> Option<Ppn> {
        match self.table[lpn.0 as usize] {
            UNMAPPED => None,
            p => Some(Ppn(p as u64)),
        }
    }
    #[inline]
    fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        assert!(ppn.0 < UNMAPPED as u64, "{ppn} does not fit a 4-byte entry");
        let old = std::mem::replace(&mut self.table[lpn.0 as usize], ppn.0 as u32);
        (old != UNMAPPED).then_some(Ppn(old as u64))
    }
    #[inline]
    fn unset(&mut self, lpn: Lpn) -> Option<Ppn> {
        let old = std::mem::replace(&mut self.table[lpn.0 as usize], UNMAPPED);
        (old != UNMAPPED).then_some(Ppn(old as u64))
    }
    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        crate::prefetch::prefetch(&self.table, lpn.0 as usize);
    }
    fn memory_bytes(&self) -> u64 {
        self.table.len() as u64 * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_unset() {
        let mut m = PageMapping::new(8);
        assert_eq!(m.get(Lpn(3)), None);
        assert_eq!(m.set(Lpn(3), Ppn(10)), None);
        assert_eq!(m.set(Lpn(3), Ppn(11)), Some(Ppn(10)));
        assert_eq!(m.get(Lpn(3)), Some(Ppn(11)));
        assert_eq!(m.unset(Lpn(3)), Some(Ppn(11)));
        assert_eq!(m.get(Lpn(3)), None);
        // 256 GiB of 4 KiB pages at 4 B each = 256 MiB (D2FS Table 1).
        assert_eq!(PageMapping::new(1 << 16).memory_bytes(), 1 << 18);
    }
}
