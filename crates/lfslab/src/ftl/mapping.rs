//! The logical-to-physical mapping interface. Each mapping scheme (page
//! mapping now; block-associative, interval and zoned later) implements it,
//! and reports the memory its table would occupy in device DRAM.

use crate::nand::{Lpn, Ppn};

pub trait Mapping {
    fn name(&self) -> &'static str;
    fn logical_pages(&self) -> u64;
    fn get(&self, lpn: Lpn) -> Option<Ppn>;
    /// Map `lpn` to `ppn`, returning the previous physical page.
    fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn>;
    /// Remove the mapping (TRIM), returning the previous physical page.
    fn unset(&mut self, lpn: Lpn) -> Option<Ppn>;
    /// Hint that `lpn` will be looked up soon (lets GC overlap table misses).
    fn prefetch(&self, _lpn: Lpn) {}
    /// Bytes the scheme needs in device DRAM, as its entry size dictates.
    fn memory_bytes(&self) -> u64;
}
