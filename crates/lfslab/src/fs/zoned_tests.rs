//! Zoned F2FS on the ZNS mode of the device: sections are zones, FS GC
//! migrates into zones, freed sections are reset; the device never collects
//! a zone. Data oracle and FS/FTL consistency throughout.

use super::d2fs_tests::{fio_like_sized, geometry};
use super::f2fs_tests::stress_on;
use super::*;
use crate::ftl::{mapping_checker, CoupledConfig, Ssd};

/// 256 MiB: F2FS needs 32 sections of 4 MiB and more.
const CAPACITY_BLOCKS: u64 = 256 << 8;

fn zf2fs() -> F2fs<Ssd> {
    let geometry = geometry(CAPACITY_BLOCKS);
    let segs = geometry.slots_per_superblock() / 512;
    let layout = Layout::mkfs(CAPACITY_BLOCKS, segs, None).unwrap();
    let cc = CoupledConfig {
        partition_blocks: CAPACITY_BLOCKS,
        main_start: layout.main_blkaddr,
        gc_region_start: CAPACITY_BLOCKS,
        records_per_upcall: 1,
        personality: crate::ftl::MainArea::Zns,
        max_active_zones: 14,
    };
    let ssd = Ssd::new_coupled(super::f2fs_tests::ssd_config(geometry, CAPACITY_BLOCKS), cc).unwrap();
    let cfg = FsConfig {
        segs_per_sec: segs,
        mode: FsMode::Lfs,
        discard: DiscardPolicy::Immediate,
        page_cache_pages: 2048,
        zoned: true,
        ..FsConfig::default()
    };
    F2fs::format(ssd, cfg).unwrap()
}

#[test]
fn zoned_f2fs_collects_into_zones_and_resets_them() {
    let fs = fio_like_sized(3, zf2fs(), CAPACITY_BLOCKS * 45 / 100, 60_000, |fs, _, n| {
        if n % 15_000 == 0 {
            mapping_checker::check(&fs.dev).unwrap_or_else(|e| panic!("op {n}: {e}"));
        }
    });
    mapping_checker::check(&fs.dev).unwrap();
    let s = fs.stats();
    assert!(s.gc_fg_count + s.gc_bg_count > 0, "zoned F2FS still runs FS GC");
    assert!(s.zone_resets > 0 && s.discard_cmds == 0, "freed sections are reset, not discarded: {s:?}");
    assert_eq!(fs.dev.stats().gc_write_slots, 0, "the device copies nothing");
    assert_eq!(fs.dev.coupled_stats().unwrap().zone_resets, s.zone_resets);
}

#[test]
fn zoned_f2fs_file_operations_stay_consistent() {
    let fs = stress_on(5, zf2fs(), 6_000, |_, _, _| {});
    mapping_checker::check(&fs.dev).unwrap();
}

#[test]
fn zoned_f2fs_refuses_adaptive_mode() {
    let mut f = zf2fs();
    let dev = std::mem::replace(&mut f.dev, zf2fs().dev);
    let cfg = FsConfig { mode: FsMode::Adaptive, zoned: true, ..f.config().clone() };
    assert!(F2fs::format(dev, cfg).is_err());
}
