//! RM-IPU (rm-ipu.txt §3): updates remapped back to their addresses, so a
//! file keeps its layout and its dnodes; data, consistency and crash checks.

use super::f2fs_tests::{content, ssd, stress_on};
use super::*;
use crate::ftl::{mapping_checker, Ssd};
use crate::sim::{SimRng, SimTime};

fn fs(rmipu: bool, track_recovery: bool) -> F2fs<Ssd> {
    let cfg = FsConfig { mode: FsMode::Lfs, rmipu, track_recovery, page_cache_pages: 4096, ..FsConfig::default() };
    F2fs::format(ssd(128), cfg).unwrap()
}

/// A file laid out sequentially, then random 4 KiB updates with an fsync
/// every 10 (rm-ipu.txt §2.2), then the file read sequentially.
fn update_then_read(rmipu: bool) -> F2fs<Ssd> {
    let mut f = fs(rmipu, false);
    let blocks = 8192u64;
    let (ino, mut t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    t = f.write(t, ino, 0, &content(1, blocks as usize)).unwrap();
    t = f.fsync(t, ino).unwrap();
    t = f.checkpoint(t);
    let mut rng = SimRng::new(7);
    for n in 0..4000u64 {
        let off = rng.below(blocks);
        t = f.write_buffered(t, ino, off, &content(100 + n, 1)).unwrap();
        if n % 10 == 9 {
            t = f.fsync(t, ino).unwrap();
        }
    }
    t = f.fsync(t, ino).unwrap();
    f.read(t, ino, 0, blocks).unwrap();
    f
}

#[test]
fn updates_keep_the_files_layout_and_its_dnodes() {
    let lfs = update_then_read(false);
    let rm = update_then_read(true);
    for f in [&lfs, &rm] {
        assert_eq!(f.oracle().mismatches_count, 0);
        assert!(f.oracle().blocks_checked_count >= 8192);
        f.check_consistency().unwrap();
        mapping_checker::check(&f.dev).unwrap();
    }
    let (l, r) = (lfs.stats(), rm.stats());
    assert!(r.remap_cmds > 0 && r.remap_blocks >= 3000, "{r:?}");
    // §2.2 "Fragmentation": the sequential read stays in large requests.
    let mean = |s: &FsStats| s.app_read_cmd_blocks as f64 / s.app_read_cmds as f64;
    assert!(mean(r) > 4.0 * mean(l), "read request: rmipu {} blocks, lfs {}", mean(r), mean(l));
    // §2.2 "Metadata": no dnode rewrite per update.
    assert!(r.node_write_blocks * 2 < l.node_write_blocks, "node writes: rmipu {}, lfs {}", r.node_write_blocks, l.node_write_blocks);
    // The remapped-away blocks die at once: nothing in the hot log to clean.
    assert_eq!(r.gc_moved_data_blocks, 0);
}

#[test]
fn rmipu_file_operations_stay_consistent() {
    let f = stress_on(3, fs(true, false), 5_000, |_, _, _| {});
    assert!(f.stats().remap_blocks > 0);
    mapping_checker::check(&f.dev).unwrap();
}

#[test]
fn a_crash_after_the_remap_recovers_the_new_data() {
    let mut f = fs(true, true);
    let (ino, mut t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    t = f.write(t, ino, 0, &content(1, 512)).unwrap();
    t = f.fsync(t, ino).unwrap();
    t = f.checkpoint(t);
    // Updates, fsync'd: remapped in place, no node written for them.
    for off in (0..512).step_by(5) {
        t = f.write_buffered(t, ino, off, &content(2 + off, 1)).unwrap();
    }
    let nodes = f.stats().node_write_blocks;
    t = f.fsync(t, ino).unwrap();
    assert!(f.stats().remap_blocks > 0);
    let r = f.crash_check(t, true).unwrap();
    assert!(r.blocks_checked >= 512);
    assert_eq!(r.blocks_lost, 0, "{:?}", r.first_loss);
    // Even the checkpoint-only recovery has the new data: it sits at the old addresses.
    assert_eq!(f.crash_check(t, false).unwrap().blocks_lost, 0);
    assert!(f.stats().node_write_blocks - nodes <= 2, "an fsync of updates writes at most the inode");
}

/// rm-ipu.txt §3's known window: updates written back (and remapped) but
/// never fsync'd are visible after a crash, which F2FS's out-of-place
/// updates roll back. The mount reports them as `unsynced_visible`; the
/// promised (fsync'd) blocks are intact either way.
#[test]
fn a_crash_before_fsync_shows_remapped_updates_that_lfs_rolls_back() {
    let visible = |rmipu: bool| {
        let mut f = fs(rmipu, true);
        let (ino, mut t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
        t = f.write(t, ino, 0, &content(1, 256)).unwrap();
        t = f.fsync(t, ino).unwrap();
        t = f.checkpoint(t);
        for off in (0..256).step_by(4) {
            t = f.write_buffered(t, ino, off, &content(500 + off, 1)).unwrap();
        }
        // Writeback (the flusher), then power is cut before any fsync.
        t = f.writeback(t, usize::MAX).unwrap();
        let (_, rep) = f.crash_remount(t).unwrap();
        assert!(rep.errors.is_empty(), "{rep:?}");
        assert_eq!(rep.promised_lost, 0);
        rep.unsynced_visible
    };
    assert_eq!(visible(true), 64, "every remapped update is visible after the crash");
    assert_eq!(visible(false), 0, "F2FS LFS rolls un-synced updates back");
}
