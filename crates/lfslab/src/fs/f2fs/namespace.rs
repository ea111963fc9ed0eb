//! The namespace of F2FS: create, mkdir, unlink, rename, open/close with
//! orphan inodes, stat, fallocate (fs/f2fs/namei.c, dir.c, file.c).
//!
//! What each call dirties follows the kernel: a new inode's node page and
//! the parent's inode (`f2fs_update_parent_metadata`); the dentry's block,
//! or the parent's inode while its dentries are inline. Dirty dentry blocks
//! wait for the checkpoint (or an fsync of the directory); dirty inodes for
//! the checkpoint or fsync. Lookups and stat hit the dcache and inode cache
//! (CPU only): the papers' workloads run with metadata cached.

use super::dir::{DentryChange, Dir};
use super::*;
use crate::fs::vfs::FileStat;

impl<D: BlockDevice> F2fs<D> {
    pub(super) fn is_dir(&self, ino: Ino) -> bool {
        self.files.get(&ino).is_some_and(|f| f.dir.is_some())
    }

    /// The root directory.
    pub fn root(&self) -> Ino {
        self.root
    }

    fn dir(&self, ino: Ino) -> Result<&Dir, FsError> {
        match self.files.get(&ino) {
            None => Err(FsError::NoSuchFile(ino)),
            Some(f) => f.dir.as_deref().ok_or(FsError::NotDir(ino)),
        }
    }

    pub(super) fn dir_mut(&mut self, ino: Ino) -> &mut Dir {
        self.files.get_mut(&ino).and_then(|f| f.dir.as_deref_mut()).expect("checked directory")
    }

    /// Record the content of dentry blocks about to be written (the oracle
    /// and the valid-block count know directory blocks as file blocks).
    pub(super) fn note_dentry_blocks(&mut self, dir: Ino, pages: &[(u64, Fingerprint)]) {
        let f = self.files.get_mut(&dir).expect("dirty dentries of a live directory");
        for &(idx, fp) in pages {
            if f.expected.len() <= idx as usize {
                f.expected.resize(idx as usize + 1, 0);
            }
            let e = &mut f.expected[idx as usize];
            if *e == 0 {
                self.used_blocks += 1;
            }
            *e = fp.0;
            f.size_blocks = f.size_blocks.max(idx + 1);
        }
    }

    /// Dirty what a dentry change touched: the directory's inode always
    /// (mtime, size), and the dentry block unless inline.
    pub(super) fn dentry_changed(&mut self, dir: Ino, change: DentryChange) {
        self.nm.mark_dirty(dir);
        match change {
            DentryChange::Inline => {}
            DentryChange::Block(b) => {
                self.dirty_dentries.insert((dir, b));
            }
            DentryChange::Converted { index } => {
                self.dirty_dentries.insert((dir, 0));
                self.dirty_dentries.insert((dir, index));
            }
            DentryChange::Punched(b) => {
                // f2fs_truncate_hole: the block goes; an unwritten dirty page is dropped.
                self.dirty_dentries.remove(&(dir, b));
                self.punch_block(dir, b);
                let f = self.files.get_mut(&dir).expect("live directory");
                if let Some(e) = f.expected.get_mut(b as usize) {
                    if *e != 0 {
                        self.used_blocks -= 1;
                        *e = 0;
                    }
                }
            }
        }
    }

    /// Resolve `name` in `dir`.
    pub fn lookup(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Option<Ino>, SimTime), FsError> {
        let found = self.dir(dir)?.lookup(name);
        Ok((found, now + self.cpu(0)))
    }

    /// f2fs_create / f2fs_mkdir: a new inode linked into `dir` as `name`.
    fn new_inode_in(&mut self, now: SimTime, dir: Ino, name: &str, is_dir: bool) -> Result<(Ino, SimTime), FsError> {
        crate::fs::vfs::check_name(name)?;
        if self.dir(dir)?.lookup(name).is_some() {
            return Err(FsError::Exists(name.into()));
        }
        let t = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t) + self.cpu(1);
        self.last_req = now;
        let ino = match self.nm.new_inode() {
            Some(i) => i,
            None => {
                self.cp_rwsem.read_until(t);
                return Err(FsError::OutOfNodeIds);
            }
        };
        let Some(change) = self.dir_mut(dir).add(name, ino) else {
            self.nm.remove(ino);
            self.cp_rwsem.read_until(t);
            return Err(FsError::DirFull(dir));
        };
        // A new directory starts with "." and ".." inline (f2fs_make_empty_inline_dir).
        self.files.insert(ino, FileState::new(dir, is_dir.then(|| Box::new(Dir::new()))));
        self.flagged.inos.push(ino);
        self.dentry_changed(dir, change);
        self.cp_rwsem.read_until(t);
        self.d2fs_after_op(t);
        Ok((ino, t))
    }

    /// create(2) of an empty regular file `name` in `dir`.
    pub fn create(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.new_inode_in(now, dir, name, false)
    }

    pub fn mkdir(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<(Ino, SimTime), FsError> {
        self.new_inode_in(now, dir, name, true)
    }

    /// unlink(2), or rmdir(2) of an empty directory. The inode loses its
    /// last link: it is evicted now, or becomes an orphan until its last
    /// close (`f2fs_add_orphan_inode`).
    pub fn unlink(&mut self, now: SimTime, dir: Ino, name: &str) -> Result<SimTime, FsError> {
        let ino = self.dir(dir)?.lookup(name).ok_or_else(|| FsError::NotFound(name.into()))?;
        if self.dir(ino).is_ok_and(|d| !d.is_empty()) {
            return Err(FsError::NotEmpty(ino));
        }
        let t = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t) + self.cpu(1);
        self.last_req = now;
        let (_, change) = self.dir_mut(dir).remove(name).expect("looked up");
        self.dentry_changed(dir, change);
        self.cp_rwsem.read_until(t);
        self.drop_link(t, ino)
    }

    /// The inode's last link is gone: evict it or keep it as an orphan.
    /// The inode is an orphan from here to the end of its eviction
    /// (`f2fs_drop_nlink` -> `f2fs_add_orphan_inode`), so a checkpoint taken
    /// while eviction truncates it records it and a mount finishes the job.
    fn drop_link(&mut self, t: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let f = self.files.get_mut(&ino).expect("linked inode exists");
        f.orphan = true;
        self.orphans += 1;
        if f.opens > 0 {
            self.nm.mark_dirty(ino);
            return Ok(t);
        }
        self.evict(t, ino)
    }

    /// f2fs_evict_inode: free the blocks, then the node blocks and the inode.
    pub(super) fn evict(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let t = if self.is_dir(ino) { now } else { self.truncate(now, ino, 0)? };
        let t = self.cp_rwsem.read_from(t) + self.cpu(1);
        for nid in self.nm.nodes_of(ino) {
            let a = self.nm.nat_addr(nid);
            if a != NULL_ADDR {
                self.invalidate_host(a as u64);
            }
            self.nm.remove(nid);
        }
        let f = self.files.remove(&ino).expect("evicting a live inode");
        self.orphans -= f.orphan as u64;
        // Dentry blocks of an empty directory were punched with their last entry.
        debug_assert!(f.expected.iter().all(|&e| e == 0) || f.dir.is_none(), "evicted directory {ino} still has blocks");
        self.used_blocks -= f.expected.iter().filter(|&&e| e != 0).count() as u64;
        self.take_dirty_dentries(ino);
        // truncate(0) dropped a file's cached pages; directories have none.
        self.cp_rwsem.read_until(t);
        self.d2fs_after_op(t);
        Ok(t)
    }

    /// rename(2) (f2fs_rename): link `ino` under the new name, replacing an
    /// existing file or empty directory there, then drop the old entry.
    pub fn rename(&mut self, now: SimTime, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<SimTime, FsError> {
        crate::fs::vfs::check_name(to)?;
        let ino = self.dir(from_dir)?.lookup(from).ok_or_else(|| FsError::NotFound(from.into()))?;
        let target = self.dir(to_dir)?.lookup(to);
        if target == Some(ino) {
            return Ok(now + self.cpu(0));
        }
        if let Some(old) = target {
            crate::fs::vfs::check_rename_over(self.is_dir(ino), old, self.dir(old).ok().map(|d| d.is_empty()))?;
        }
        let t = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t) + self.cpu(2);
        self.last_req = now;
        let added = match target {
            Some(_) => self.dir_mut(to_dir).replace(to, ino).map(|(_, c)| c),
            None => self.dir_mut(to_dir).add(to, ino),
        };
        let Some(change) = added else {
            self.cp_rwsem.read_until(t);
            return Err(FsError::DirFull(to_dir));
        };
        self.dentry_changed(to_dir, change);
        let (_, change) = self.dir_mut(from_dir).remove(from).expect("looked up");
        self.dentry_changed(from_dir, change);
        // The moved inode's i_pino (and a directory's "..") changes; its
        // next fsync checkpoints (file_lost_pino).
        self.nm.mark_dirty(ino);
        let f = self.files.get_mut(&ino).expect("renamed inode exists");
        f.parent = to_dir;
        f.pino_lost = true;
        self.flagged.inos.push(ino);
        self.cp_rwsem.read_until(t);
        match target {
            Some(old) => self.drop_link(t, old),
            None => Ok(t),
        }
    }

    /// open(2) of an existing inode.
    pub fn open(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let f = self.files.get_mut(&ino).ok_or(FsError::NoSuchFile(ino))?;
        f.opens += 1;
        Ok(now + self.cpu(0))
    }

    /// close(2); the last close of an orphan evicts it (f2fs_remove_orphan_inode).
    pub fn close(&mut self, now: SimTime, ino: Ino) -> Result<SimTime, FsError> {
        let t = now + self.cpu(0);
        let f = self.files.get_mut(&ino).ok_or(FsError::NoSuchFile(ino))?;
        assert!(f.opens > 0, "close of inode {ino} that is not open");
        f.opens -= 1;
        if f.opens == 0 && f.orphan {
            return self.evict(t, ino);
        }
        Ok(t)
    }

    pub fn stat(&mut self, now: SimTime, ino: Ino) -> Result<(FileStat, SimTime), FsError> {
        let f = self.files.get(&ino).ok_or(FsError::NoSuchFile(ino))?;
        let st = FileStat {
            ino,
            size_blocks: f.size_blocks,
            is_dir: f.dir.is_some(),
            entries: f.dir.as_ref().map_or(0, |d| d.len() as u64),
        };
        Ok((st, now + self.cpu(0)))
    }

    /// fallocate(2) (f2fs_expand_inode_data): reserve the holes of the range
    /// as NEW_ADDR, which allocates and dirties their dnodes but writes no
    /// data; the size grows unless `keep_size`.
    pub fn fallocate(&mut self, now: SimTime, ino: Ino, off: u64, n: u64, keep_size: bool) -> Result<SimTime, FsError> {
        self.check_write(ino, off, n)?;
        let t = self.balance_fs(now)?;
        let t = self.cp_rwsem.read_from(t) + self.cpu(n);
        self.last_req = now;
        for o in off..off + n {
            if self.nm.dnode_slot(ino, o, true).is_none() {
                self.cp_rwsem.read_until(t);
                return Err(FsError::OutOfNodeIds);
            }
        }
        let f = self.files.get_mut(&ino).expect("checked");
        if f.expected.len() < (off + n) as usize {
            f.expected.resize((off + n) as usize, 0);
        }
        for e in &mut f.expected[off as usize..(off + n) as usize] {
            if *e == 0 {
                *e = UNWRITTEN;
                self.used_blocks += 1;
            }
        }
        if !keep_size && off + n > f.size_blocks {
            f.size_blocks = off + n;
        }
        self.nm.mark_dirty(ino);
        self.cp_rwsem.read_until(t);
        self.d2fs_after_op(t);
        Ok(t)
    }
}
