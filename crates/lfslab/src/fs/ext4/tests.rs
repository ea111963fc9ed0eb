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
