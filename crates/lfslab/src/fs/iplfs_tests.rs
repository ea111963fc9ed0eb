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

#[test]
fn compaction_bounds_the_mapping_of_an_aging_iplfs() {
    let run = |m: &str| {
        let fs = fio_like_sized(4, iplfs(m, false), DEVICE_BLOCKS / 2, 240_000, |_, _, _| {});
        (fs.dev.mapping_memory_bytes(), fs.dev.stats().mapping_stall_ns)
    };
    let (with, stall) = run("interval");
    let (without, none) = run("interval-no-compaction");
    assert!(with * 10 < without * 8, "with compaction {with} B, without {without} B");
    assert!(stall > 0 && none == 0);
}
