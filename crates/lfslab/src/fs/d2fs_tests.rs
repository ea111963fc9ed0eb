//! D2FS on a small coupled device: random file operations with the data
//! oracle, FS and FTL consistency, no FS GC, and crash recovery with redo
//! of outstanding migration records (d2fs.txt §7).

use super::f2fs_tests::stress_on;
use super::*;
use crate::ftl::{mapping_checker, CoupledConfig, Ssd};
use crate::nand::Geometry;
use crate::sim::{SimDuration, SimRng, SimTime};

/// 128 MiB device, 4 MiB superblocks (2 segments), 15% spare.
pub(super) const CAPACITY_BLOCKS: u64 = 128 << 8;

/// 4 dies x 256 pages of 4 KiB: 4 MiB superblocks, 15% spare.
pub(super) fn geometry(capacity_blocks: u64) -> Geometry {
    small_geometry(256, capacity_blocks, 0.15)
}

/// 4 dies x `pages` pages of 4 KiB, sized for `capacity_blocks` plus `spare`.
pub(crate) fn small_geometry(pages: u32, capacity_blocks: u64, spare: f64) -> Geometry {
    let mut geometry = Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 0,
        pages_per_block: pages,
        page_bytes: 4096,
    };
    geometry.blocks_per_plane = crate::nand::blocks_for_capacity(&geometry, capacity_blocks * 4096, spare);
    geometry
}

fn d2fs(vop_regular: f64, track: bool, batch: usize) -> F2fs<Ssd> {
    let geometry = geometry(CAPACITY_BLOCKS);
    let sb = geometry.slots_per_superblock() as u64;
    let segs = (sb / 512) as u32;
    let (regular, gc) = D2fsConfig::partition(CAPACITY_BLOCKS, sb, vop_regular);
    let layout = Layout::mkfs(regular + gc, segs, None).unwrap();
    let cc = CoupledConfig { partition_blocks: regular + gc, main_start: layout.main_blkaddr, gc_region_start: regular, records_per_upcall: 16, personality: crate::ftl::MainArea::D2fs, max_active_zones: 0 };
    let ssd = Ssd::new_coupled(super::f2fs_tests::ssd_config(geometry, CAPACITY_BLOCKS), cc).unwrap();
    let cfg = FsConfig {
        segs_per_sec: segs,
        mode: FsMode::Lfs,
        bg_gc: false,
        page_cache_pages: 2048,
        track_recovery: track,
        d2fs: Some(D2fsConfig {
            gc_region_blocks: gc,
            user_blocks: CAPACITY_BLOCKS * 3 / 4,
            upcall_record_ns: 1000,
            cp_dead_sections: 0,
            upcall_batch: batch,
        }),
        ..FsConfig::default()
    };
    F2fs::format(ssd, cfg).unwrap()
}

/// The paper's FIO shape (§8.1) in miniature: one file of 70% of the
/// capacity, then 4 KiB random overwrites (direct and buffered), with reads,
/// fsyncs and idle ticks; every block is read back at the end.
pub(super) fn fio_like(seed: u64, fs: F2fs<Ssd>, ops: usize, hook: impl FnMut(&mut F2fs<Ssd>, SimTime, usize)) -> F2fs<Ssd> {
    fio_like_sized(seed, fs, CAPACITY_BLOCKS * 7 / 10, ops, hook)
}

/// `fio_like` with a file of `size` blocks.
pub(super) fn fio_like_sized(
    seed: u64,
    mut fs: F2fs<Ssd>,
    size: u64,
    ops: usize,
    mut hook: impl FnMut(&mut F2fs<Ssd>, SimTime, usize),
) -> F2fs<Ssd> {
    let mut rng = SimRng::new(seed);
    let (ino, mut t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let tag = |n: u64, off: u64| crate::oracle::DataTag(n).block(off);
    for off in (0..size).step_by(256) {
        let n = 256.min(size - off);
        let content: Vec<_> = (0..n).map(|i| tag(1, off + i)).collect();
        t = fs.write(t, ino, off, &content).unwrap();
    }
    t = fs.fsync(t, ino).unwrap();
    for n in 0..ops {
        let off = rng.below(size);
        t = match rng.below(100) {
            0..=59 => fs.write(t, ino, off, &[tag(n as u64 + 2, off)]).unwrap(),
            60..=79 => fs.write_buffered(t, ino, off, &[tag(n as u64 + 2, off)]).unwrap(),
            80..=93 => fs.read(t, ino, off, 1 + rng.below(8)).unwrap(),
            94..=96 => fs.fsync(t, ino).unwrap(),
            _ => fs.on_idle(t + SimDuration::from_secs_f64(0.1)).unwrap(),
        };
        hook(&mut fs, t, n);
    }
    fs.read(t, ino, 0, size).unwrap();
    fs.check_consistency().unwrap_or_else(|e| panic!("seed {seed} at end: {e}"));
    assert_eq!(fs.oracle().mismatches_count, 0, "seed {seed}: stale data read");
    fs
}

#[test]
fn file_operations_with_eager_discard_stay_consistent() {
    let fs = stress_on(4, d2fs(1.4, false, 0), 8_000, |_, _, _| {});
    mapping_checker::check(&fs.dev).unwrap();
    assert!(fs.stats().immediate_discard_blocks > 0);
    assert_eq!(fs.stats().gc_fg_count + fs.stats().gc_bg_count, 0);
}

#[test]
fn device_driven_gc_keeps_every_block_readable() {
    for seed in [1, 2] {
        let fs = fio_like(seed, d2fs(1.4, false, 0), 60_000, |fs, _, n| {
            if n % 15_000 == 0 {
                mapping_checker::check(&fs.dev).unwrap_or_else(|e| panic!("seed {seed} op {n}: {e}"));
            }
        });
        mapping_checker::check(&fs.dev).unwrap();
        let s = fs.stats();
        let c = fs.dev.coupled_stats().unwrap();
        assert_eq!(s.gc_fg_count + s.gc_bg_count, 0, "D2FS never runs FS GC");
        assert!(c.cgc_victims > 0 && c.records_created > 0, "seed {seed}: CGC never ran: {c:?}");
        assert!(s.records_applied > 0 && s.upcalls_handled > 0, "seed {seed}: no upcall handled: {s:?}");
        assert!(c.records_synced > 0, "seed {seed}: no record was synced: {c:?}");
        assert!(s.immediate_discard_blocks > 0);
    }
}

#[test]
fn crash_during_upcall_handling_loses_nothing_fsynced() {
    let (mut checked, mut redone, mut control_lost) = (0u64, 0u64, 0u64);
    for seed in 0..6u64 {
        let mut rng = SimRng::new(seed ^ 0xd2f5);
        let every = 37 + rng.below(40) as usize;
        // Handler batches that do not divide the 16-record upcalls: crashes
        // land between records of an upcall.
        fio_like(seed, d2fs(1.4, true, 5 + (seed as usize * 7) % 40), 30_000, |fs, t, n| {
            if n % every != 0 {
                return;
            }
            let at = t + SimDuration(1);
            let r = fs.crash_check(at, true).expect("tracking on");
            assert_eq!(r.blocks_lost, 0, "seed {seed} op {n}: {:?}", r.first_loss);
            checked += r.blocks_checked;
            redone += r.records_redone;
            control_lost += fs.crash_check_with(at, true, Redo::Skip).expect("tracking on").blocks_lost;
        });
    }
    assert!(checked > 10_000, "only {checked} promised blocks checked");
    assert!(redone > 0, "no crash found an outstanding record to redo");
    assert!(control_lost > 0, "without redo nothing was lost: the check cannot see remaps");
}

/// The remount path itself (not a check beside it) with upcalls in flight:
/// random 4 KiB overwrites keep Coupled GC moving pages, the handler works
/// in batches that split upcalls, and the power is cut every few thousand
/// operations; each mount redoes the outstanding records, must keep every
/// promise and be consistent, and the workload goes on against it.
#[test]
fn remount_mid_upcall_redoes_records_and_keeps_promises() {
    let (mut redone, mut mounts, mut promised) = (0u64, 0u64, 0u64);
    for seed in 0..3u64 {
        let mut fs = d2fs(1.4, true, 5 + seed as usize * 11);
        let mut rng = SimRng::new(seed ^ 0x5eed);
        let size = CAPACITY_BLOCKS * 7 / 10;
        let (ino, mut t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
        let tag = |n: u64, off: u64| crate::oracle::DataTag(n).block(off);
        for off in (0..size).step_by(256) {
            let n = 256.min(size - off);
            t = fs.write(t, ino, off, &(0..n).map(|i| tag(1, off + i)).collect::<Vec<_>>()).unwrap();
        }
        t = fs.fsync(t, ino).unwrap();
        for n in 0..24_000u64 {
            let off = rng.below(size);
            t = match rng.below(100) {
                0..=69 => fs.write(t, ino, off, &[tag(n + 2, off)]).unwrap(),
                70..=89 => fs.read(t, ino, off, 1).unwrap(),
                _ => fs.fsync(t, ino).unwrap(),
            };
            if n % 4_000 == 3_999 {
                let (next, rep) = fs.crash_remount(t + SimDuration(1)).unwrap();
                assert!(rep.errors.is_empty(), "seed {seed} op {n}: {:?}", rep.errors);
                redone += rep.records_redone;
                promised += rep.promised_checked;
                mounts += 1;
                fs = next;
                mapping_checker::check(&fs.dev).unwrap_or_else(|e| panic!("seed {seed} after mount at op {n}: {e}"));
            }
        }
        fs.read(t, ino, 0, size).unwrap();
        assert_eq!(fs.oracle().mismatches_count, 0, "seed {seed}: a read after remounts returned stale data");
    }
    assert_eq!(mounts, 18);
    assert!(promised > 100_000, "only {promised} promised blocks checked");
    assert!(redone > 0, "no mount found an outstanding record to redo");
}

#[test]
fn same_seed_same_result() {
    let a = fio_like(9, d2fs(1.4, false, 0), 30_000, |_, _, _| {});
    let b = fio_like(9, d2fs(1.4, false, 0), 30_000, |_, _, _| {});
    assert_eq!(a.stats(), b.stats());
    assert_eq!(a.dev.coupled_stats(), b.dev.coupled_stats());
    let _ = SimTime::ZERO;
}
