//! CSGC (csgc.txt §3): F2FS on an sFTL device whose foreground GC offloads
//! each data segment's migration to the device's executor. Data oracle and
//! FS/FTL consistency throughout.

use super::d2fs_tests::{fio_like_sized, geometry};
use super::f2fs_tests::stress_on;
use super::*;
use crate::ftl::{mapping_checker, CoupledConfig, CsdConfig, MainArea, Ssd};
use crate::sim::SimTime;

/// 256 MiB, sections of two segments (one 4-die superblock of 256 pages).
const CAPACITY_BLOCKS: u64 = 256 << 8;

fn csgc(cfg: CsgcConfig) -> F2fs<Ssd> {
    csgc_tracked(cfg, false)
}

fn csgc_tracked(cfg: CsgcConfig, track_recovery: bool) -> F2fs<Ssd> {
    let geometry = geometry(CAPACITY_BLOCKS);
    let segs = geometry.slots_per_superblock() / 512;
    let layout = Layout::mkfs(CAPACITY_BLOCKS, segs, None).unwrap();
    let cc = CoupledConfig {
        partition_blocks: CAPACITY_BLOCKS,
        main_start: layout.main_blkaddr,
        gc_region_start: CAPACITY_BLOCKS,
        records_per_upcall: 1,
        personality: MainArea::Sftl,
        max_active_zones: 0,
    };
    let ssd = Ssd::new_coupled(super::f2fs_tests::ssd_config(geometry, CAPACITY_BLOCKS), cc)
        .unwrap()
        .with_executor(CsdConfig::default())
        .unwrap();
    let fs_cfg = FsConfig {
        segs_per_sec: segs,
        mode: FsMode::Lfs,
        discard: DiscardPolicy::Immediate,
        page_cache_pages: 2048,
        bg_gc: false,
        zoned: true,
        csgc: Some(cfg),
        track_recovery,
        ..FsConfig::default()
    };
    F2fs::format(ssd, fs_cfg).unwrap()
}

fn overwrite(cfg: CsgcConfig) -> F2fs<Ssd> {
    fio_like_sized(3, csgc(cfg), CAPACITY_BLOCKS * 45 / 100, 60_000, |fs, _, n| {
        if n % 15_000 == 0 {
            mapping_checker::check(&fs.dev).unwrap_or_else(|e| panic!("op {n}: {e}"));
        }
    })
}

#[test]
fn offloaded_gc_migrates_in_the_device_and_frees_sections() {
    let fs = overwrite(CsgcConfig::default());
    mapping_checker::check(&fs.dev).unwrap();
    let s = fs.stats();
    assert!(s.gc_fg_count > 0 && s.offload_requests > 0, "FS GC ran and offloaded: {s:?}");
    let d = fs.dev.csd_stats().unwrap();
    assert_eq!(d.requests, s.offload_requests);
    assert_eq!(d.blocks_migrated, fs.dev.stats().offload_write_slots, "every migrated block written once by the executor");
    assert!(s.gc_moved_data_blocks >= d.blocks_migrated);
    // The main area is never collected by the device; freed sections are reset.
    assert!(s.zone_resets > 0 && s.discard_cmds == 0, "{s:?}");
    assert_eq!(fs.dev.stats().gc_write_slots, 0, "no device GC copies (the metadata area never filled a victim here)");
    assert_eq!(fs.oracle().mismatches_count, 0);
    assert!(fs.oracle().blocks_checked_count > 0, "reads were checked");
}

#[test]
fn without_offload_f2fs_gc_runs_on_the_sftl_device() {
    let fs = overwrite(CsgcConfig { offload: false, ..CsgcConfig::default() });
    let s = fs.stats();
    assert!(s.gc_fg_count > 0 && s.offload_requests == 0);
    assert_eq!(fs.dev.csd_stats().unwrap().requests, 0);
    assert!(s.gc_stage_read_ns > 0 || s.gc_moved_data_blocks > 0, "the host read and rewrote the blocks itself");
    assert_eq!(fs.oracle().mismatches_count, 0);
}

#[test]
fn the_pipeline_and_piggybacking_change_time_not_data() {
    // The pipeline hides host time behind the device's (§3.2): with a host
    // as slow per block as the flash, two requests in flight take less GC
    // time per block than one. (At the default host costs the device is
    // the bottleneck and depth changes little.)
    let slow_host = CsgcConfig { prep_ns_per_block: 20_000, sync_ns_per_block: 20_000, ..CsgcConfig::default() };
    let base = overwrite(slow_host.clone());
    let serial = overwrite(CsgcConfig { pipeline_depth: 1, ..slow_host });
    let fetch = overwrite(CsgcConfig { piggyback: false, ..CsgcConfig::default() });
    let per_block = |fs: &F2fs<Ssd>| fs.stats().gc_time_ns as f64 / fs.stats().gc_moved_data_blocks as f64;
    assert!(per_block(&serial) > per_block(&base), "depth 1: {} ns per block, depth 2: {}", per_block(&serial), per_block(&base));
    assert!(fetch.dev.csd_stats().unwrap().index_block_reads > 0);
    for fs in [&base, &serial, &fetch] {
        assert_eq!(fs.oracle().mismatches_count, 0);
    }
}

#[test]
fn csgc_file_operations_stay_consistent() {
    let fs = stress_on(5, csgc(CsgcConfig::default()), 6_000, |_, _, _| {});
    mapping_checker::check(&fs.dev).unwrap();
}

#[test]
fn a_power_cut_after_migration_before_the_checkpoint_loses_nothing() {
    let mut fs = csgc_tracked(CsgcConfig::default(), true);
    let size = CAPACITY_BLOCKS * 4 / 10;
    let (ino, mut t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let tag = |n: u64, off: u64| crate::oracle::DataTag(n).block(off);
    for off in (0..size).step_by(256) {
        let n = 256.min(size - off);
        t = fs.write(t, ino, off, &(0..n).map(|i| tag(1, off + i)).collect::<Vec<_>>()).unwrap();
    }
    t = fs.fsync(t, ino).unwrap();
    t = fs.checkpoint(t);
    // Overwrite every third block: sections left two-thirds valid.
    for off in (0..size).step_by(3) {
        t = fs.write(t, ino, off, &[tag(2, off)]).unwrap();
    }
    t = fs.fsync(t, ino).unwrap();
    let before = fs.stats().offload_requests;
    let cps = fs.stats().checkpoints;
    t = fs.collect_greedy_victim_for_test(t).expect("a victim with invalid blocks");
    assert!(fs.stats().offload_requests > before, "the victim's data segments were offloaded");
    assert_eq!(fs.stats().checkpoints, cps, "no checkpoint yet: the updates live only in host memory");
    let r = fs.crash_check(t, true).unwrap();
    assert!(r.blocks_checked > 1000, "{r:?}");
    assert_eq!(r.blocks_lost, 0, "cut after the migrate, before its checkpoint: {:?}", r.first_loss);
    // An fsync after the GC promises the moved blocks at their new addresses.
    t = fs.write(t, ino, 1, &[tag(3, 1)]).unwrap();
    t = fs.fsync(t, ino).unwrap();
    let r = fs.crash_check(t, true).unwrap();
    assert_eq!(r.blocks_lost, 0, "cut after a later fsync: {:?}", r.first_loss);
    t = fs.checkpoint(t);
    let r = fs.crash_check(t, true).unwrap();
    assert_eq!(r.blocks_lost, 0, "cut after the checkpoint freed the victim: {:?}", r.first_loss);
    mapping_checker::check(&fs.dev).unwrap();
}
