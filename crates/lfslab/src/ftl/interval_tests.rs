//! Interval Mapping under an IPLFS-like host (iplfs.txt, evaluation of
//! map-node compaction): a file is overwritten at random, every new version
//! is appended at the head of a log that never wraps, and the old block is
//! discarded. Without compaction the mapping tree keeps whole regions for
//! segments that hold a few live blocks and grows as the log ages; with
//! compaction it stays near what the live blocks need.

use super::*;
use crate::nand::{Lpn, Preset};
use crate::oracle::DataTag;
use crate::sim::{SimRng, SimTime};

const FILE_BLOCKS: u64 = 8 << 8; // 8 MiB of live data

fn device(mapping: &str) -> Ssd {
    let geometry = crate::fs::d2fs_tests::small_geometry(64, 16 << 8, 0.25);
    let mut cfg = super::ssd_tests::tiny("greedy", 1);
    cfg.geometry = geometry;
    cfg.timing = Preset::Femu.timing();
    // The logical partition: area 2 of a 32-bit block space, far beyond the flash.
    cfg.logical_pages = u32::MAX as u64 - 1;
    cfg.ftl.mapping = mapping.into();
    cfg.ftl.write_buffer_slots = 64;
    Ssd::new(cfg).unwrap()
}

/// Overwrites the file at random `chunk` blocks at a time, `passes` times;
/// returns the mapping memory after each pass.
fn age(mapping: &str, chunk: u64, passes: usize) -> (Vec<u64>, Ssd) {
    let mut ssd = device(mapping);
    let base = 2u64 << super::interval_mapping::AREA_SHIFT;
    let mut head = base;
    let mut at = vec![0u64; FILE_BLOCKS as usize];
    let mut t = SimTime::ZERO;
    let mut rng = SimRng::new(11);
    let mut tag = 1;
    let mut write = |ssd: &mut Ssd, b: usize, t: SimTime, head: &mut u64, tag: &mut u64| {
        let old = std::mem::replace(&mut at[b], *head);
        *tag += 1;
        let fp = DataTag(*tag).block(0);
        let t = ssd.write(t, Lpn(*head), 1, 0, |_| fp);
        *head += 1;
        if old != 0 {
            ssd.discard_blocks(t, Lpn(old), 1);
        }
        t
    };
    for b in 0..FILE_BLOCKS as usize {
        t = write(&mut ssd, b, t, &mut head, &mut tag);
    }
    let mut sizes = vec![ssd.mapping_memory_bytes()];
    for _ in 0..passes {
        for _ in 0..FILE_BLOCKS / chunk {
            let first = rng.below(FILE_BLOCKS / chunk) * chunk;
            for b in first..first + chunk {
                t = write(&mut ssd, b as usize, t, &mut head, &mut tag);
            }
        }
        // A second of idle time: the FTL's compaction pass comes due.
        t = t + crate::sim::SimDuration::from_secs_f64(1.0);
        t = ssd.write(t, Lpn(head), 1, 0, |_| DataTag(0).block(0));
        head += 1;
        sizes.push(ssd.mapping_memory_bytes());
    }
    mapping_checker::check(&ssd).unwrap();
    (sizes, ssd)
}

/// iplfs.txt: without compaction the tree grows as the filesystem ages;
/// with it, it stays near the page map of the file. That holds when the
/// overwrites leave holes of 64 blocks or more (the artifact's smallest
/// region); one-block holes are not worth a rebuild (d2fs.txt §8.6).
#[test]
fn compaction_bounds_the_tree_when_holes_are_large() {
    let page_map = FILE_BLOCKS * 4;
    let (without, _) = age("interval-no-compaction", 64, 6);
    let (with, ssd) = age("interval", 64, 6);
    // Without compaction the tree grows pass after pass.
    assert!(without.windows(2).all(|w| w[1] >= w[0]), "{without:?}");
    assert!(*without.last().unwrap() > 2 * without[0], "{without:?}");
    // With it, it levels off near the page map of the file.
    let n = with.len();
    assert!(with[n - 1] < with[n - 3] * 11 / 10, "still growing: {with:?}");
    assert!(with[n - 1] * 10 < without[n - 1] * 6, "{with:?} vs {without:?}");
    assert!(with[n - 1] < 3 * page_map, "{with:?}");
    assert!(ssd.stats().mapping_stall_ns > 0, "compaction occupied the FTL");
    assert!(!ssd.mapping_memory_series().is_empty());

    // One pass of 4 KiB overwrites leaves one-block holes: nothing worth a
    // rebuild. (Passes later, the few survivors of a segment are far apart
    // and compaction pays again.)
    let (small_without, _) = age("interval-no-compaction", 1, 1);
    let (small_with, _) = age("interval", 1, 1);
    assert_eq!(small_with, small_without);
}
