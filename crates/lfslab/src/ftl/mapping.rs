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
    /// Periodic table upkeep (Interval Mapping's compaction pass), offered
    /// after every command finishing at `now`; the scheme keeps its own
    /// cadence. Its time is taken with the next call below.
    fn maintain(&mut self, _now: crate::sim::SimTime) {}
    /// Firmware time spent reorganising the table since the last call
    /// (Interval Mapping's compaction); the device serves nothing meanwhile.
    fn take_pending_work_ns(&mut self) -> u64 {
        0
    }
}

/// The schemes an `Ssd` holds, as one enum rather than a trait object: the
/// write path and GC call the page map directly, without a vtable call per
/// page, and the aged state saves the variant with its table (the same
/// shape the boxed form had).
#[derive(serde::Serialize, serde::Deserialize)]
pub enum AnyMapping {
    Page(super::page_mapping::PageMapping),
    Interval(Box<super::interval_mapping::IntervalMapping>),
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            AnyMapping::Page($m) => $e,
            AnyMapping::Interval($m) => $e,
        }
    };
}

impl Mapping for AnyMapping {
    fn name(&self) -> &'static str {
        each!(self, m => m.name())
    }
    fn logical_pages(&self) -> u64 {
        each!(self, m => m.logical_pages())
    }
    #[inline]
    fn get(&self, lpn: Lpn) -> Option<Ppn> {
        each!(self, m => m.get(lpn))
    }
    #[inline]
    fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        each!(self, m => m.set(lpn, ppn))
    }
    #[inline]
    fn unset(&mut self, lpn: Lpn) -> Option<Ppn> {
        each!(self, m => m.unset(lpn))
    }
    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        each!(self, m => m.prefetch(lpn))
    }
    fn memory_bytes(&self) -> u64 {
        each!(self, m => m.memory_bytes())
    }
    fn for_each_mapped(&self, f: &mut dyn FnMut(Lpn, Ppn)) {
        each!(self, m => m.for_each_mapped(f))
    }
    #[inline]
    fn maintain(&mut self, now: crate::sim::SimTime) {
        each!(self, m => m.maintain(now))
    }
    #[inline]
    fn take_pending_work_ns(&mut self) -> u64 {
        each!(self, m => m.take_pending_work_ns())
    }
}
