//! IPLFS on an Interval Mapping FTL: data oracle and consistency with no GC
//! at all in the filesystem, logs confined to their areas, discards at
//! checkpoint, crash recovery of fsync'd data, determinism.

use super::d2fs_tests::{fio_like_sized, geometry};
use super::f2fs_tests::stress_on;
use super::*;
use crate::ftl::{mapping_checker, Ssd};

const DEVICE_BLOCKS: u64 = 256 << 8;
const PARTITION: u64 = u32::MAX as u64 - 1;

fn iplfs(mapping: &str, track: bool) -> F2fs<Ssd> {
    let mut cfg = super::f2fs_tests::ssd_config(geometry(DEVICE_BLOCKS), PARTITION);
    cfg.ftl.mapping = mapping.into();
    let fs = FsConfig {
        mode: FsMode::Lfs,
        bg_gc: false,
        discard: DiscardPolicy::Immediate,
        page_cache_pages: 2048,
        track_recovery: track,
        iplfs_device_blocks: Some(DEVICE_BLOCKS),
        ..FsConfig::default()
    };
    F2fs::format(Ssd::new(cfg).unwrap(), fs).unwrap()
}

#[test]
fn iplfs_never_cleans_and_keeps_every_block_readable() {
    let fs = fio_like_sized(2, iplfs("interval", false), DEVICE_BLOCKS / 2, 80_000, |fs, _, n| {
        if n % 20_000 == 0 {
            mapping_checker::check(&fs.dev).unwrap_or_else(|e| panic!("op {n}: {e}"));
        }
    });
    mapping_checker::check(&fs.dev).unwrap();
    let s = fs.stats();
    assert_eq!(s.gc_fg_count + s.gc_bg_count, 0);
    assert!(s.discard_log_entries > 0 && s.checkpoints > 0, "{s:?}");
    assert!(fs.dev.stats().gc_count > 0, "the device, not the FS, reclaims flash");
    // Every log stays in its own 2^29-block area.
    let area = |b: u64| b >> 29;
    assert!(fs.layout().main_blkaddr == 1 << 29 && area(fs.layout().blocks - 1) == 7);
}

#[test]
fn iplfs_file_operations_and_crashes() {
    let mut checked = 0;
    let fs = stress_on(3, iplfs("interval", true), 6_000, |fs, t, n| {
        if n % 97 == 0 {
            let r = fs.crash_check(t + crate::sim::SimDuration(1), true).unwrap();
            assert_eq!(r.blocks_lost, 0, "op {n}: {:?}", r.first_loss);
            checked += r.blocks_checked;
        }
    });
    assert!(checked > 1000);
    mapping_checker::check(&fs.dev).unwrap();
}

/// A file of half the device overwritten `passes` times at random, `chunk`
/// blocks at a time, with a second of idle time now and then; returns the mapping's end
/// size, the FTL's compaction time and the page map of the file.
fn aged_mapping(mapping: &str, chunk: u64, passes: u64) -> (u64, u64, u64) {
    let mut fs = iplfs(mapping, false);
    let size = DEVICE_BLOCKS / 2;
    let tag = |n: u64, off: u64| crate::oracle::DataTag(n).block(off);
    let (ino, mut t) = fs.create(crate::sim::SimTime::ZERO, fs.root(), "f").unwrap();
    for off in (0..size).step_by(256) {
        t = fs.write(t, ino, off, &(off..off + 256).map(|o| tag(1, o)).collect::<Vec<_>>()).unwrap();
    }
    let mut rng = crate::sim::SimRng::new(4);
    for n in 0..passes * size / chunk {
        let off = rng.below(size / chunk) * chunk;
        t = fs.write(t, ino, off, &(off..off + chunk).map(|o| tag(n + 2, o)).collect::<Vec<_>>()).unwrap();
        if n % 64 == 0 {
            t = fs.on_idle(t + crate::sim::SimDuration::from_secs_f64(1.0)).unwrap();
        }
    }
    t = fs.fsync(t, ino).unwrap();
    fs.on_idle(t + crate::sim::SimDuration::from_secs_f64(1.0)).unwrap();
    mapping_checker::check(&fs.dev).unwrap();
    (fs.dev.mapping_memory_bytes(), fs.dev.stats().mapping_stall_ns, 4 * size)
}

/// iplfs.txt: compaction keeps the tree near the page map of the file where
/// it grows without. As in the authors' code, that takes holes of 64 blocks
/// or more; a pass of 4 KiB overwrites leaves one-block holes and saves nothing
/// worth a rebuild (d2fs.txt §8.6).
#[test]
fn compaction_bounds_the_mapping_of_an_aging_iplfs() {
    let (with, stall, file_map) = aged_mapping("interval", 64, 3);
    let (without, none, _) = aged_mapping("interval-no-compaction", 64, 3);
    assert!(with * 10 < without * 6, "with compaction {with} B, without {without} B");
    assert!(with < 2 * file_map && without > 2 * file_map, "with {with} B, without {without} B, file page map {file_map} B");
    assert!(stall > 0 && none == 0);
    let (small_with, _, _) = aged_mapping("interval", 1, 1);
    let (small_without, _, _) = aged_mapping("interval-no-compaction", 1, 1);
    assert!(small_with * 10 > small_without * 9, "4 KiB overwrites: with {small_with} B, without {small_without} B");
}
