//! The F2FS namespace: directories (inline, then hashed dentry blocks),
//! orphans, rename, fallocate, and the errors a bad call gets.

use super::f2fs_tests::{content, ssd};
use super::*;
use crate::sim::SimTime;

fn fs() -> F2fs<crate::ftl::Ssd> {
    F2fs::format(ssd(128), FsConfig { mode: FsMode::Lfs, ..FsConfig::default() }).unwrap()
}

#[test]
fn a_large_directory_writes_hot_dentry_blocks_and_frees_them_when_emptied() {
    let mut fs = fs();
    let root = fs.root();
    let mut t = fs.checkpoint(SimTime::ZERO);
    let base_valid = fs.utilization_pct();
    let (dir, t2) = fs.mkdir(t, root, "big").unwrap();
    t = t2;
    // 150 names stay inline in the directory's inode: no dentry block.
    for i in 0..150 {
        t = fs.create(t, dir, &format!("n{i:05}")).unwrap().1;
    }
    let data_before = fs.stats().data_write_blocks;
    t = fs.checkpoint(t);
    assert_eq!(fs.stats().data_write_blocks, data_before, "inline dentries live in the inode");
    // 2,000 more need hashed dentry blocks, written by the checkpoint.
    for i in 150..2_150 {
        t = fs.create(t, dir, &format!("n{i:05}")).unwrap().1;
    }
    t = fs.checkpoint(t);
    let dentry_blocks = fs.stats().data_write_blocks - data_before;
    // 2,150 one-slot names need at least 11 blocks of 214 slots.
    assert!(dentry_blocks >= 11, "{dentry_blocks} dentry blocks");
    assert_eq!(fs.stat(t, dir).unwrap().0.entries, 2_150);
    assert_eq!(fs.lookup(t, dir, "n01234").unwrap().0.is_some(), true);
    fs.check_consistency().unwrap();
    for i in 0..2_150 {
        t = fs.unlink(t, dir, &format!("n{i:05}")).unwrap();
    }
    t = fs.unlink(t, root, "big").unwrap();
    fs.checkpoint(t);
    fs.check_consistency().unwrap();
    assert_eq!(fs.utilization_pct(), base_valid, "every inode, dnode and dentry block was freed");
}

#[test]
fn an_open_unlinked_file_is_an_orphan_until_closed() {
    let mut fs = fs();
    let root = fs.root();
    let (ino, mut t) = fs.create(SimTime::ZERO, root, "tmp").unwrap();
    t = fs.write(t, ino, 0, &content(7, 64)).unwrap();
    t = fs.open(t, ino).unwrap();
    t = fs.unlink(t, root, "tmp").unwrap();
    assert_eq!(fs.lookup(t, root, "tmp").unwrap().0, None);
    let meta = fs.stats().meta_write_blocks;
    t = fs.checkpoint(t);
    let with_orphan = fs.stats().meta_write_blocks - meta;
    // Still readable, and its data still valid.
    t = fs.read(t, ino, 0, 64).unwrap();
    assert_eq!(fs.oracle().mismatches_count, 0);
    t = fs.close(t, ino).unwrap();
    assert!(fs.stat(t, ino).is_err(), "the last close evicts the orphan");
    let meta = fs.stats().meta_write_blocks;
    fs.checkpoint(t);
    let without = fs.stats().meta_write_blocks - meta;
    assert_eq!(with_orphan, without + 1, "one orphan block in the checkpoint pack while the orphan lives");
    fs.check_consistency().unwrap();
}

#[test]
fn rename_moves_names_and_replaces_a_target() {
    let mut fs = fs();
    let root = fs.root();
    let (a, t) = fs.create(SimTime::ZERO, root, "a").unwrap();
    let (b, t) = fs.create(t, root, "b").unwrap();
    let (d, t) = fs.mkdir(t, root, "d").unwrap();
    let t = fs.write(t, b, 0, &content(1, 8)).unwrap();
    let valid = fs.utilization_pct();
    let t = fs.rename(t, root, "a", d, "b").unwrap();
    assert_eq!(fs.lookup(t, d, "b").unwrap().0, Some(a));
    let t = fs.rename(t, d, "b", root, "b").unwrap();
    assert_eq!(fs.lookup(t, root, "b").unwrap().0, Some(a));
    assert_eq!(fs.lookup(t, root, "a").unwrap().0, None);
    assert!(fs.stat(t, b).is_err(), "the replaced file is gone");
    assert!(fs.utilization_pct() < valid, "its blocks were freed");
    assert_eq!(fs.rename(t, root, "d", root, "b"), Err(FsError::NotDir(a)));
    fs.checkpoint(t);
    fs.check_consistency().unwrap();
}

#[test]
fn fallocate_reserves_blocks_that_read_as_zeros() {
    let mut fs = fs();
    let root = fs.root();
    let (ino, t) = fs.create(SimTime::ZERO, root, "pre").unwrap();
    let data = fs.stats().data_write_blocks;
    let t = fs.fallocate(t, ino, 0, 1_000, false).unwrap();
    assert_eq!(fs.stats().data_write_blocks, data, "fallocate writes no data");
    assert_eq!(fs.stat(t, ino).unwrap().0.size_blocks, 1_000);
    let t = fs.fallocate(t, ino, 1_000, 100, true).unwrap();
    assert_eq!(fs.stat(t, ino).unwrap().0.size_blocks, 1_000, "KEEP_SIZE");
    let t = fs.read(t, ino, 0, 1_000).unwrap();
    let t = fs.write(t, ino, 10, &content(3, 10)).unwrap();
    let t = fs.read(t, ino, 0, 30).unwrap();
    assert_eq!(fs.oracle().mismatches_count, 0);
    // The whole user area cannot be reserved twice over.
    let huge = fs.layout().user_blocks;
    assert_eq!(fs.fallocate(t, ino, 2_000, huge, false), Err(FsError::NoSpace));
    let t = fs.checkpoint(t);
    fs.check_consistency().unwrap();
    let _ = t;
}

#[test]
fn bad_namespace_calls_are_errors_not_panics() {
    let mut fs = fs();
    let root = fs.root();
    let (f, t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    let (d, t) = fs.mkdir(t, root, "d").unwrap();
    let t = fs.create(t, d, "x").unwrap().1;
    assert_eq!(fs.create(t, root, "f").map(|r| r.0), Err(FsError::Exists("f".into())));
    assert_eq!(fs.unlink(t, root, "nope"), Err(FsError::NotFound("nope".into())));
    assert_eq!(fs.unlink(t, root, "d"), Err(FsError::NotEmpty(d)));
    assert_eq!(fs.create(t, f, "y").map(|r| r.0), Err(FsError::NotDir(f)));
    assert!(matches!(fs.create(t, root, ""), Err(FsError::BadName(_))));
    assert!(matches!(fs.create(t, root, "a/b"), Err(FsError::BadName(_))));
    assert!(matches!(fs.create(t, root, &"n".repeat(256)), Err(FsError::BadName(_))));
    assert!(fs.create(t, root, &"n".repeat(255)).is_ok());
    assert_eq!(fs.write(t, d, 0, &content(1, 1)), Err(FsError::IsDir(d)));
    assert_eq!(fs.rename(t, root, "f", root, "d"), Err(FsError::NotEmpty(d)));
    fs.check_consistency().unwrap();
}

/// need_do_checkpoint's flags last until the next checkpoint, which clears
/// them for exactly the files created or renamed since the last one: a
/// file in a new directory and a renamed file checkpoint on their first
/// fsync only.
#[test]
fn fsync_checkpoints_once_for_a_new_parent_and_once_after_a_rename() {
    let mut fs = fs();
    let root = fs.root();
    let mut t = fs.checkpoint(SimTime::ZERO);
    let cps = |fs: &F2fs<crate::ftl::Ssd>| fs.stats().checkpoints;
    for round in 0..3 {
        let (d, t2) = fs.mkdir(t, root, &format!("d{round}")).unwrap();
        let (f, t2) = fs.create(t2, d, "f").unwrap();
        let before = cps(&fs);
        t = fs.fsync(t2, f).unwrap();
        assert_eq!(cps(&fs), before + 1, "round {round}: the parent is new");
        t = fs.fsync(t, f).unwrap();
        assert_eq!(cps(&fs), before + 1, "round {round}: the checkpoint cleared the parent's flag");
        t = fs.rename(t, d, "f", root, &format!("f{round}")).unwrap();
        t = fs.fsync(t, f).unwrap();
        assert_eq!(cps(&fs), before + 2, "round {round}: the rename lost the pino");
        t = fs.fsync(t, f).unwrap();
        assert_eq!(cps(&fs), before + 2, "round {round}: the checkpoint cleared it");
    }
}
