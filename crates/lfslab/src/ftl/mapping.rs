//! The logical-to-physical mapping interface. Each mapping scheme (page
//! mapping now; block-associative, interval and zoned later) implements it,
//! and reports the memory its table would occupy in device DRAM.

use crate::nand::{Lpn, Ppn};

pub trait Mapping: std::any::Any {
    fn name(&self) -> &'static str;
    /// The concrete scheme, to save it (`boxed`).
    fn as_any(&self) -> &dyn std::any::Any;
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

/// Saving and restoring a boxed mapping (the aged state): each scheme is
/// one variant, so the trait object round-trips with its own table.
pub(crate) mod boxed {
    use super::Mapping;
    use crate::ftl::interval_mapping::IntervalMapping;
    use crate::ftl::page_mapping::PageMapping;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    enum Ref<'a> {
        Page(&'a PageMapping),
        Interval(&'a IntervalMapping),
    }

    #[derive(Deserialize)]
    enum Owned {
        Page(PageMapping),
        Interval(IntervalMapping),
    }

    #[allow(clippy::borrowed_box)] // serde `with` hands the field as is
    pub fn serialize<S: Serializer>(m: &Box<dyn Mapping>, s: S) -> Result<S::Ok, S::Error> {
        let any = m.as_any();
        if let Some(p) = any.downcast_ref::<PageMapping>() {
            Ref::Page(p).serialize(s)
        } else if let Some(i) = any.downcast_ref::<IntervalMapping>() {
            Ref::Interval(i).serialize(s)
        } else {
            Err(serde::ser::Error::custom(format!("mapping {} cannot be saved", m.name())))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn Mapping>, D::Error> {
        Ok(match Owned::deserialize(d)? {
            Owned::Page(p) => Box::new(p),
            Owned::Interval(i) => Box::new(i),
        })
    }
}
