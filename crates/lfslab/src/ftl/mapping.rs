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
    /// Every mapped entry, in logical order (for the consistency checker).
    fn for_each_mapped(&self, f: &mut dyn FnMut(Lpn, Ppn)) {
        for l in 0..self.logical_pages() {
            if let Some(p) = self.get(Lpn(l)) {
                f(Lpn(l), p);
            }
        }
    }
    /// Firmware time spent reorganising the table since the last call
    /// (Interval Mapping's compaction); the device serves nothing meanwhile.
    fn take_pending_work_ns(&mut self) -> u64 {
        0
    }
}
