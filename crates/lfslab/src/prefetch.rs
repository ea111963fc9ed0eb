//! Cache prefetch hints for the big per-page tables (mapping, reverse map,
//! oracle). The simulator is bound by cache misses on these; hinting the
//! next accesses lets their misses overlap. A hint never changes results.
//!
//! The hint fetches into L2 (`prefetcht1`), not L1 (`prefetcht0`): a hinted
//! line is used tens to hundreds of nanoseconds later, and L2 holds it as
//! well, while an L1 prefetch keeps one of the core's few L1 miss buffers
//! until its line arrives, so a burst of them stalls the core. On the
//! 2-core AMD EPYC machine of docs/performance.md (thirty-second session),
//! random lines over a 1 GiB table with hints 32 ahead cost 6.5 ns with
//! `prefetcht1` against 11.1 ns with `prefetcht0`, and `lfslab bench`'s
//! whole run took 0.88 of the time.

#[inline]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(e) = slice.get(index) {
        // SAFETY: prefetch is only a hint; it never faults and the pointer is in bounds.
        unsafe { std::arch::x86_64::_mm_prefetch(e as *const T as *const i8, std::arch::x86_64::_MM_HINT_T1) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}
