//! ext4: in-place updates, contiguous allocation, jbd2 commit rules, and
//! data and block-ownership consistency under random operations.

use super::*;
use crate::fs::f2fs_tests::{content, ssd};
use crate::ftl::Ssd;
use crate::sim::SimRng;

fn fs(mib: u64, opts: Ext4Options) -> Ext4<Ssd> {
    let cfg = FsConfig { page_cache_pages: 2048, ext4: Some(opts), ..FsConfig::default() };
    Ext4::format(ssd(mib), cfg).unwrap()
}

#[test]
fn overwrites_stay_in_place_and_a_sequential_read_is_few_large_requests() {
    let mut f = fs(256, Ext4Options::default());
    let (ino, t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    let blocks = 8192u64;
    let mut t = f.write(t, ino, 0, &content(1, blocks as usize)).unwrap();
    t = f.fsync(t, ino, false).unwrap();
    assert_eq!(f.extent_count(ino), Some(1), "8192 blocks from an empty volume are one extent");
    let addrs: Vec<u64> = (0..blocks).map(|o| f.block_address(ino, o).unwrap()).collect();
    let mut rng = SimRng::new(3);
    let before = f.stats().clone();
    for n in 0..2000u64 {
        t = f.write_buffered(t, ino, rng.below(blocks), &content(100 + n, 1)).unwrap();
        if n % 10 == 9 {
            t = f.fsync(t, ino, false).unwrap();
        }
    }
    let c = f.stats().since(&before);
    assert!((0..blocks).all(|o| f.block_address(ino, o) == Some(addrs[o as usize])), "an overwrite moved a block");
    // Every data write is an application page, in place (a page rewritten
    // while still dirty is written once).
    assert!(c.data_write_blocks <= c.app_write_blocks && c.data_write_blocks + 20 >= c.app_write_blocks, "{c:?}");
    // An fsync commits only when the mtime moved since the last commit
    // (jiffy-granular timestamps): some of the 200 fsyncs find nothing to commit.
    assert!(c.journal_commits > 20 && c.journal_commits < 200, "{c:?}");
    // Each commit: a descriptor, the inode-table block, the commit block.
    assert_eq!(c.journal_write_blocks, 3 * c.journal_commits);
    let r0 = f.stats().clone();
    f.read_file(t, ino, 0, blocks, false).unwrap();
    let r = f.stats().since(&r0);
    assert_eq!(r.app_read_cmds, blocks / super::super::io::MAX_READ_BLOCKS as u64);
    assert_eq!(f.oracle().mismatches_count, 0);
    f.check_consistency().unwrap();
}

#[test]
fn fdatasync_of_an_overwrite_flushes_without_a_commit() {
    let mut f = fs(128, Ext4Options::default());
    let (ino, t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    let t = f.write(t, ino, 0, &content(1, 64)).unwrap();
    let t = f.fsync(t, ino, true).unwrap();
    let commits = f.stats().journal_commits;
    assert_eq!(commits, 1, "the new file's allocation and size needed a commit");
    let t = f.write_buffered(t + SimDuration::from_ms(10), ino, 5, &content(2, 1)).unwrap();
    let _ = f.fsync(t, ino, true).unwrap();
    assert_eq!(f.stats().journal_commits, commits, "only mtime changed: fdatasync needs no commit");
    let t = f.write_buffered(t + SimDuration::from_ms(10), ino, 6, &content(3, 1)).unwrap();
    let _ = f.fsync(t, ino, false).unwrap();
    assert_eq!(f.stats().journal_commits, commits + 1, "fsync commits the mtime change");
}

#[test]
fn kjournald_commits_after_the_interval_and_freed_blocks_wait_for_it() {
    let mut f = fs(128, Ext4Options::default());
    let (ino, t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    let t = f.write(t, ino, 0, &content(1, 1000)).unwrap();
    let free = f.free_blocks();
    f.background(t + SimDuration::from_secs(1)).unwrap();
    assert_eq!(f.stats().journal_commits, 0, "not yet 5 s old");
    let t = f.truncate(t, ino, 0).unwrap();
    assert_eq!(f.free_blocks(), free, "freed blocks are not reusable before the commit");
    f.check_consistency().unwrap();
    f.background(t + SimDuration::from_secs(5)).unwrap();
    assert_eq!(f.stats().journal_commits, 1);
    assert_eq!(f.free_blocks(), free + 1000);
    assert_eq!(f.stats().discard_blocks, 1000, "mount option discard");
    f.check_consistency().unwrap();
}

#[test]
fn a_small_journal_wraps_and_checkpoints_metadata_in_place() {
    let mut f = fs(128, Ext4Options { journal_blocks: Some(64), ..Ext4Options::default() });
    let root = f.root();
    let mut t = SimTime::ZERO;
    for i in 0..400 {
        let (ino, t2) = f.create(t, root, &format!("file-{i:04}")).unwrap();
        t = f.write(t2, ino, 0, &content(i, 2)).unwrap();
        t = f.fsync(t, ino, false).unwrap();
    }
    let s = f.stats();
    assert!(s.journal_write_blocks > 64 * 3, "the log wrapped: {s:?}");
    assert!(s.meta_inplace_blocks > 0, "checkpoints wrote metadata in place: {s:?}");
    assert_eq!(f.dir(root).unwrap().len(), 400);
    f.check_consistency().unwrap();
}

/// Random operations through the VFS trait; data checked on every read,
/// block ownership checked throughout.
#[test]
fn random_operations_keep_data_and_block_ownership() {
    for seed in 1..=4 {
        let mut f = fs(128, Ext4Options { journal_blocks: Some(1024), ..Ext4Options::default() });
        let mut rng = SimRng::new(seed);
        let mut t = SimTime::ZERO;
        let root = Vfs::root(&f);
        let (sub, t0) = Vfs::mkdir(&mut f, t, root, "sub").unwrap();
        t = t0;
        let mut files: Vec<(Ino, String, Ino)> = Vec::new();
        for n in 0..4000u64 {
            let r = rng.below(100);
            if files.is_empty() || (r < 4 && files.len() < 8) {
                let dir = if rng.below(2) == 0 { root } else { sub };
                let name = format!("f{n}");
                let (ino, t2) = Vfs::create(&mut f, t, dir, &name).unwrap();
                files.push((dir, name, ino));
                t = t2;
                continue;
            }
            let k = rng.below(files.len() as u64) as usize;
            let ino = files[k].2;
            let mode = if rng.below(2) == 0 { IoMode::Direct } else { IoMode::Buffered };
            t = match r {
                0..=49 => {
                    let (off, len) = (rng.below(3000), 1 + rng.below(48) as usize);
                    Vfs::write(&mut f, t, ino, off, &content(n + 1, len), mode).unwrap()
                }
                50..=74 => Vfs::read(&mut f, t, ino, rng.below(3000), 1 + rng.below(64), mode).unwrap(),
                75..=82 => Vfs::fsync(&mut f, t, ino, rng.below(2) == 0).unwrap(),
                83..=86 => {
                    let size = f.file_size_blocks(ino).unwrap();
                    Vfs::truncate(&mut f, t, ino, size / 2).unwrap()
                }
                87..=88 => Vfs::fallocate(&mut f, t, ino, rng.below(3000), 1 + rng.below(64), rng.below(2) == 0).unwrap(),
                89 if files.len() > 1 => {
                    let (dir, name, _) = files.remove(k);
                    let t = Vfs::open(&mut f, t, ino).unwrap();
                    let t = Vfs::unlink(&mut f, t, dir, &name).unwrap();
                    let t = Vfs::read(&mut f, t, ino, 0, 8, IoMode::Direct).unwrap();
                    Vfs::close(&mut f, t, ino).unwrap()
                }
                90 => {
                    let (dir, name, _) = files[k].clone();
                    let to_dir = if dir == root { sub } else { root };
                    let to = format!("r{n}");
                    let t = Vfs::rename(&mut f, t, dir, &name, to_dir, &to).unwrap();
                    files[k] = (to_dir, to, ino);
                    t
                }
                _ => {
                    let t2 = t + SimDuration::from_secs(rng.below(6));
                    Vfs::background(&mut f, t2).unwrap();
                    t2
                }
            };
            if n % 250 == 0 {
                f.check_consistency().unwrap_or_else(|e| panic!("seed {seed} op {n}: {e}"));
            }
        }
        let t = f.sync_fs(t).unwrap();
        for (_, _, ino) in &files {
            let size = f.file_size_blocks(*ino).unwrap();
            f.read_file(t, *ino, 0, size, false).unwrap();
        }
        assert!(f.oracle().blocks_checked_count > 10_000);
        assert_eq!(f.oracle().mismatches_count, 0, "seed {seed}");
        f.check_consistency().unwrap();
        assert!(f.stats().journal_commits > 0 && f.stats().discard_cmds > 0);
    }
}

#[test]
fn same_seed_same_state() {
    let run = || {
        let mut f = fs(128, Ext4Options::default());
        let (ino, mut t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
        let mut rng = SimRng::new(5);
        for n in 0..500 {
            t = f.write_buffered(t, ino, rng.below(4000), &content(n, 3)).unwrap();
            if n % 50 == 0 {
                t = f.fsync(t, ino, false).unwrap();
            }
        }
        let t = f.sync_fs(t).unwrap();
        (f.stats().clone(), f.dev.stats(), t)
    };
    assert_eq!(run(), run());
}

#[test]
fn too_small_a_volume_is_an_error() {
    let cfg = FsConfig { ext4: Some(Ext4Options::default()), ..FsConfig::default() };
    let small = crate::nvme::Partition::new(ssd(128), 1000);
    assert!(Ext4::format(small, cfg).err().unwrap().contains("too small"));
}

/// Power cuts at random points of random operations: every block an fsync
/// promised is there after the mount, the namespace and block ownership
/// are sound, orphans are evicted; the run goes on on the mounted volume.
#[test]
fn crashes_keep_every_fsynced_block() {
    let (mut crashes, mut checked, mut unsynced, mut orphans) = (0, 0, 0, 0);
    for seed in 1..=3 {
        let cfg = FsConfig {
            page_cache_pages: 1024,
            track_recovery: true,
            ext4: Some(Ext4Options { journal_blocks: Some(1024), ..Ext4Options::default() }),
            ..FsConfig::default()
        };
        let mut f = Ext4::format(ssd(128), cfg).unwrap();
        let mut rng = SimRng::new(100 + seed);
        let root = f.root();
        let (sub, t0) = f.mkdir(SimTime::ZERO, root, "sub").unwrap();
        let mut t = f.sync_fs(t0).unwrap();
        let mut files: Vec<(Ino, String, Ino)> = Vec::new();
        for n in 0..3000u64 {
            let r = rng.below(100);
            if files.is_empty() || (r < 4 && files.len() < 8) {
                let dir = if rng.below(2) == 0 { root } else { sub };
                let (ino, t2) = f.create(t, dir, &format!("f{n}")).unwrap();
                files.push((dir, format!("f{n}"), ino));
                t = t2;
                continue;
            }
            let k = rng.below(files.len() as u64) as usize;
            let ino = files[k].2;
            let mut crash = rng.below(150) == 0;
            t = match r {
                0..=49 => {
                    let mode = if rng.below(3) == 0 { IoMode::Direct } else { IoMode::Buffered };
                    Vfs::write(&mut f, t, ino, rng.below(2000), &content(n + 1, 1 + rng.below(24) as usize), mode).unwrap()
                }
                50..=64 => f.read_file(t, ino, rng.below(2000), 1 + rng.below(64), rng.below(2) == 0).unwrap(),
                65..=79 => f.fsync(t, ino, rng.below(2) == 0).unwrap(),
                80..=83 => {
                    let size = f.file_size_blocks(ino).unwrap();
                    f.truncate(t, ino, size / 2).unwrap()
                }
                84..=85 => f.fallocate(t, ino, rng.below(2000), 1 + rng.below(32), rng.below(2) == 0).unwrap(),
                86 if files.len() > 1 => {
                    let (dir, name, _) = files.remove(k);
                    let t = f.open(t, ino).unwrap();
                    let t = f.unlink(t, dir, &name).unwrap();
                    if rng.below(2) == 0 {
                        // Cut while the unlinked file is still open: an orphan.
                        let t = f.commit(t);
                        crash = true;
                        t
                    } else {
                        f.close(t, ino).unwrap()
                    }
                }
                87 => {
                    let (dir, name, _) = files[k].clone();
                    let to_dir = if dir == root { sub } else { root };
                    let t = f.rename(t, dir, &name, to_dir, &format!("r{n}")).unwrap();
                    files[k] = (to_dir, format!("r{n}"), ino);
                    t
                }
                _ => {
                    let t2 = t + SimDuration::from_ms(rng.below(3000));
                    f.background(t2).unwrap();
                    t2
                }
            };
            if crash {
                let (g, rep) = f.crash_remount(t).unwrap();
                assert!(rep.errors.is_empty() && rep.promised_lost == 0, "seed {seed} op {n}: {rep:?}");
                crashes += 1;
                checked += rep.promised_checked;
                unsynced += rep.unsynced_visible;
                orphans += rep.orphans_evicted;
                f = g;
                files.clear();
                for d in [root, sub] {
                    for (name, ino) in f.dir(d).unwrap().entries() {
                        if !f.is_dir(ino) {
                            files.push((d, name.to_string(), ino));
                        }
                    }
                }
            }
        }
        assert_eq!(f.oracle().mismatches_count, 0, "seed {seed}");
    }
    eprintln!("ext4 crashes: {crashes}, promised blocks checked {checked}, un-synced visible {unsynced}, orphans evicted {orphans}");
    assert!(crashes >= 20 && checked > 10_000 && orphans > 0, "{crashes} crashes, {checked} checked, {orphans} orphans");
    assert!(unsynced > 0, "in-place overwrites make un-synced data visible");
}

#[test]
fn a_crash_before_the_commit_loses_the_new_file_and_keeps_the_fsynced_one() {
    let cfg = FsConfig { track_recovery: true, ext4: Some(Ext4Options::default()), ..FsConfig::default() };
    let mut f = Ext4::format(ssd(128), cfg).unwrap();
    let root = f.root();
    let (a, t) = f.create(SimTime::ZERO, root, "a").unwrap();
    let t = f.write(t, a, 0, &content(1, 100)).unwrap();
    let t = f.fsync(t, a, false).unwrap();
    let (b, t) = f.create(t, root, "b").unwrap();
    let t = f.write(t, b, 0, &content(2, 100)).unwrap();
    let (g, rep) = f.crash_remount(t).unwrap();
    assert!(rep.errors.is_empty(), "{rep:?}");
    assert_eq!(rep.promised_checked, 100);
    assert_eq!(g.dir(root).unwrap().lookup("a"), Some(a));
    assert_eq!(g.dir(root).unwrap().lookup("b"), None, "b's creation never committed");
    assert_eq!(g.block_address(b, 0), None);
    g.check_consistency().unwrap();
}

/// Control for the mount's check: a promised block the device lost
/// (discarded behind the filesystem's back) is reported.
#[test]
fn remount_reports_a_promised_block_the_device_lost() {
    let cfg = FsConfig { track_recovery: true, ext4: Some(Ext4Options::default()), ..FsConfig::default() };
    let mut f = Ext4::format(ssd(128), cfg).unwrap();
    let (ino, t) = f.create(SimTime::ZERO, f.root(), "f").unwrap();
    let t = f.write(t, ino, 0, &content(1, 64)).unwrap();
    let t = f.fsync(t, ino, false).unwrap();
    let addr = f.block_address(ino, 3).unwrap();
    crate::nvme::BlockDevice::discard(&mut f.dev, t, crate::nand::Lpn(addr), 1);
    let (_, rep) = f.crash_remount(t).unwrap();
    assert_eq!((rep.promised_checked, rep.promised_lost), (64, 1), "{rep:?}");
    assert!(rep.errors.iter().any(|e| e.contains("block 3")), "{:?}", rep.errors);
}

/// A journal far smaller than one operation's metadata (a user's
/// fs.journal_mib on a large volume, here 8 blocks): the operation's
/// handle restarts (ext4_journal_restart), committing as the transaction
/// fills, instead of asking the log for more than it has.
#[test]
fn a_tiny_journal_restarts_handles_instead_of_overflowing() {
    let mut f = fs(128, Ext4Options { journal_blocks: Some(8), ..Ext4Options::default() });
    let root = f.root();
    let (a, t) = f.mkdir(SimTime::ZERO, root, "a").unwrap();
    let (b, mut t) = f.mkdir(t, root, "b").unwrap();
    for i in 0..300 {
        let (ino, t2) = f.create(t, a, &format!("a-long-file-name-{i:04}")).unwrap();
        t = f.write(t2, ino, 0, &content(i, 3)).unwrap();
    }
    for i in 0..300 {
        t = f.rename(t, a, &format!("a-long-file-name-{i:04}"), b, &format!("b-{i}")).unwrap();
    }
    let t = f.truncate(t, f.dir(b).unwrap().lookup("b-7").unwrap(), 0).unwrap();
    f.sync_fs(t).unwrap();
    assert!(f.stats().journal_commits > 100);
    f.check_consistency().unwrap();
}
