//! What a random cache line costs on this machine (not a test): the
//! simulator's per-write cost is mostly random lines of its big tables
//! (docs/performance.md, "Where the time goes"), so this is the machine
//! property behind wall(16)/wall(1) and behind `prefetch.rs`'s choice of
//! hint. Four measurements, nanoseconds per random 8-byte read:
//! - by table size (prefetch alone, no use of the line): how the price of
//!   a line grows with the working set once it is past the L3;
//! - by hint (a demand read per step, its line hinted `ahead` steps
//!   earlier with each x86 prefetch hint, some arithmetic between);
//! - latency by table size (each read's address comes from the one
//!   before, so nothing overlaps): what one miss costs;
//! - latency by spread: the same 16 K lines (1 MiB, which the L2 holds)
//!   spread over more and more 2 MiB pages, so that only address
//!   translation gets dearer: the TLB's reach, and what a page walk costs
//!   past it. A software prefetch retires only once its address is
//!   translated (Intel's optimization manual, "Software Prefetch"), so
//!   past the reach a hint itself stalls the core for the walk. Beside
//!   each, the same lines packed into one 4 KiB page of each 2 MiB page:
//!   if that is cheaper, the translation is paid per 4 KiB page.
//!
//! Run: `cargo bench -p lfslab --bench memory_lines` (set
//! LFSLAB_MEMORY_MIB to the largest table, default 2048; it is allocated,
//! on 2 MiB pages where the kernel allows).

use std::time::Instant;

#[global_allocator]
static ALLOC: lfslab::huge_pages::HugePageAlloc = lfslab::huge_pages::HugePageAlloc;

/// One multiply, lighter than `lfslab::sim::mix64` on purpose: with that
/// one's two, the arithmetic between reads costs about 40 ns a step and
/// hides the difference between the hints.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^ (x >> 33)
}

const STEPS: u64 = 20_000_000;

#[cfg(target_arch = "x86_64")]
fn prefetch(p: *const u64, hint: usize) {
    use std::arch::x86_64::*;
    // SAFETY: a prefetch never faults; `p` is inside the table anyway.
    unsafe {
        match hint {
            0 => _mm_prefetch(p as *const i8, _MM_HINT_T0),
            1 => _mm_prefetch(p as *const i8, _MM_HINT_T1),
            2 => _mm_prefetch(p as *const i8, _MM_HINT_T2),
            _ => _mm_prefetch(p as *const i8, _MM_HINT_NTA),
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch(_: *const u64, _: usize) {}

fn main() {
    let max_mib: usize = std::env::var("LFSLAB_MEMORY_MIB").ok().and_then(|v| v.parse().ok()).unwrap_or(2048).max(64);
    let words = (max_mib << 20) / 8;
    // Filled, not zeroed: every page is resident before timing starts.
    let table: Vec<u64> = (0..words as u64).collect();
    println!("memory_lines: ns per random 8-byte read; table up to {max_mib} MiB");

    let mut mib = 32;
    while mib <= max_mib {
        let n = (mib << 20) / 8;
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..STEPS {
            let h = mix(i);
            prefetch(table[(h as usize) & (n - 1)..].as_ptr(), 0);
            acc = acc.wrapping_add(h);
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / STEPS as f64;
        println!("  {:>6} MiB  prefetcht0 alone  {ns:6.2} ns  ({})", n * 8 >> 20, acc & 1);
        mib *= 4;
    }

    // The largest power of two that fits, so a mask picks an index.
    let n = 1usize << (usize::BITS - 1 - words.leading_zeros());
    by_hint(&table, n);
    let mut table = table;
    latency_by_size(&mut table, max_mib);
    latency_by_spread(&mut table);
}

/// Nanoseconds per step of a dependent chase through `table` over the word
/// indices `at`, in a fixed random cycle (each entry holds the next's
/// index, so no read can start before the one before it ends).
fn chase(table: &mut [u64], mut at: Vec<usize>) -> f64 {
    const CHASE: u64 = 4_000_000;
    for i in (1..at.len()).rev() {
        let j = (mix(i as u64) % (i as u64 + 1)) as usize;
        at.swap(i, j);
    }
    for (k, &i) in at.iter().enumerate() {
        table[i] = at[(k + 1) % at.len()] as u64;
    }
    let mut i = at[0];
    let t = Instant::now();
    for _ in 0..CHASE {
        i = table[i] as usize;
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / CHASE as f64;
    std::hint::black_box(i);
    ns
}

fn latency_by_size(table: &mut [u64], max_mib: usize) {
    let mut mib = 8;
    while mib <= max_mib {
        // One word in every line of the first `mib` MiB.
        let at: Vec<usize> = (0..(mib << 20) / 64).map(|l| l * 8).collect();
        println!("  {mib:>6} MiB  dependent reads  {:6.1} ns", chase(table, at));
        mib *= 4;
    }
}

fn latency_by_spread(table: &mut [u64]) {
    const LINES: usize = 1 << 14;
    const PAGE_WORDS: usize = (2 << 20) / 8;
    let max_pages = table.len() / PAGE_WORDS;
    let mut pages = 16;
    while pages <= max_pages.min(LINES) {
        // As many lines in each of `pages` 2 MiB pages, spread over the
        // page by an odd stride (distinct lines, spread over the cache's
        // sets).
        let per = LINES / pages;
        let page_lines = PAGE_WORDS / 8;
        let at: Vec<usize> = (0..pages * per)
            .map(|k| (k / per) * PAGE_WORDS + (k % per * 9973 + k / per * 31) % page_lines * 8)
            .collect();
        let spread = chase(table, at);
        // The same lines of each 2 MiB page packed into as few 4 KiB
        // pages as hold them (64 lines each), at a scattered place in it:
        // with 2 MiB translations this costs what the spread does; where it
        // costs less, translation is paid per 4 KiB page (a host that backs
        // this VM's huge pages with smaller ones).
        let packed: Vec<usize> = (0..pages * per)
            .map(|k| {
                let (p, j) = (k / per, k % per);
                let small = (p * 7 + j / 64) % (PAGE_WORDS / 512);
                p * PAGE_WORDS + small * 512 + j % 64 * 8
            })
            .collect();
        let packed = chase(table, packed);
        println!("  {pages:>6} pages of 2 MiB, 16 K lines  {spread:6.1} ns  ({:>5} of 4 KiB: {packed:6.1} ns)", pages * per.div_ceil(64));
        pages *= 2;
    }
}

fn by_hint(table: &[u64], n: usize) {
    for ahead in [8u64, 32] {
        for (hint, name) in ["prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta"].iter().enumerate() {
            let t = Instant::now();
            let mut acc = 0u64;
            for i in 0..STEPS {
                prefetch(table[(mix(i + ahead) as usize) & (n - 1)..].as_ptr(), hint);
                acc = acc.wrapping_add(table[(mix(i) as usize) & (n - 1)]);
                for _ in 0..8 {
                    acc = mix(acc);
                }
            }
            let ns = t.elapsed().as_secs_f64() * 1e9 / STEPS as f64;
            println!("  {:>6} MiB  {name:<11} {ahead:>2} ahead  {ns:6.2} ns  ({})", n * 8 >> 20, acc & 1);
        }
    }
}
