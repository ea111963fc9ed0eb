//! An allocator for the programs that run lfslab (the CLI, the Python
//! module): the system's, asking the kernel to back large allocations with
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`). A program opts in with
//! `#[global_allocator] static A: lfslab::huge_pages::HugePageAlloc = lfslab::huge_pages::HugePageAlloc;`.
//!
//! The simulator's hot tables (the FTL's page map and reverse map, the page
//! cache's page tables and LRU ring, the oracle's per-file vectors) are hundreds of
//! MiB at paper size and are read at random, one entry per write: with
//! 4 KiB pages nearly every lookup misses the TLB as well as the cache.
//! Where THP is `always` this changes nothing; where it is `madvise`
//! (Debian's default) it gives those tables 2 MiB pages. Only speed
//! changes, never a result (docs/performance.md has the figures; a 32 MiB
//! threshold was slower at paper size).

use std::alloc::{GlobalAlloc, Layout, System};

/// Smallest allocation advised: two huge pages, so that at least one
/// aligned 2 MiB extent lies inside it.
const MIN_BYTES: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePageAlloc;

/// `madvise(advice)` on the 2 MiB-aligned interior of `[p, p + size)`, an
/// allocation of at least `MIN_BYTES` (smaller ones are left alone).
#[cfg(target_os = "linux")]
fn advise_interior(p: usize, size: usize, advice: libc::c_int) {
    if p == 0 || size < MIN_BYTES {
        return;
    }
    let start = p.next_multiple_of(HUGE_PAGE);
    let end = (p + size) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: [start, end) lies inside a live allocation, which is
        // mapped; the advice changes how it is backed, not its contents. A
        // failure (THP disabled) leaves it as it was.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, advice);
        }
    }
}

/// Ask for huge pages on an allocation just made.
fn advise(p: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    advise_interior(p as usize, size, libc::MADV_HUGEPAGE);
    #[cfg(not(target_os = "linux"))]
    let _ = (p, size);
}

/// Keep `table` on small pages: it is large but touched sparsely (a
/// directory over IPLFS's partition), so a touched huge page would make
/// 2 MiB resident for a few entries. Call it before the table is written.
pub fn keep_small_pages<T>(table: &[T]) {
    #[cfg(target_os = "linux")]
    advise_interior(table.as_ptr() as usize, std::mem::size_of_val(table), libc::MADV_NOHUGEPAGE);
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

// SAFETY: every call is passed to `System` unchanged; `advise` only adds a
// hint on memory `System` returned.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}
