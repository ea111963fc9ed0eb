//! Cache prefetch hints for the big per-page tables (mapping, reverse map,
//! oracle). The simulator is bound by cache misses on these; hinting the
//! next accesses lets their misses overlap. A hint never changes results.

#[inline]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(e) = slice.get(index) {
        // SAFETY: prefetch is only a hint; it never faults and the pointer is in bounds.
        unsafe { std::arch::x86_64::_mm_prefetch(e as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}
