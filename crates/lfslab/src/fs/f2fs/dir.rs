//! F2FS directories (fs/f2fs/dir.c, inline.c): where a name's dentry lives,
//! so the filesystem knows which block a create, unlink or rename dirties.
//!
//! A new directory keeps its dentries inline in its inode (mount option
//! `inline_dentry`, on by default) until they outgrow `NR_INLINE_DENTRY`
//! slots; `f2fs_move_inline_dirents` then copies them to dentry block 0 and
//! the directory becomes a multi-level hash table: level L has
//! `dir_buckets(L)` buckets of `bucket_blocks(L)` blocks, and
//! `f2fs_add_regular_entry` puts a name in the first level whose bucket (by
//! the name's hash) has a block with room. A block whose last dentry goes
//! is punched (`f2fs_delete_entry` -> `f2fs_truncate_hole`).
//!
//! Simplified, and said so in reports: the hash is FNV-1a of the name, not
//! F2FS's TEA hash (both spread names uniformly over buckets); room in a
//! block is counted in free slots, not contiguous runs of them.

use super::Ino;
use std::collections::BTreeMap;

/// Dentry slots in a 4 KiB dentry block (`NR_DENTRY_IN_BLOCK`).
pub const NR_DENTRY_IN_BLOCK: u16 = 214;
/// Inline dentry slots: `MAX_INLINE_DATA` (4 x (923 addresses - 50 inline
/// xattr - 1 reserved) = 3488 bytes) x 8 / ((11 + 8) x 8 + 1) = 182.
pub const NR_INLINE_DENTRY: u16 = 182;
/// Name bytes per dentry slot (`F2FS_SLOT_LEN`).
const F2FS_SLOT_LEN: usize = 8;
/// `MAX_DIR_HASH_DEPTH`.
const MAX_DIR_HASH_DEPTH: u32 = 63;

/// Where a directory change landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DentryChange {
    /// In the directory's inode (inline dentries): the inode is dirty.
    Inline,
    /// In dentry block `index` of the directory.
    Block(u64),
    /// The inline dentries moved to block 0, then the name went to `index`.
    Converted { index: u64 },
    /// The name's block became empty and was punched.
    Punched(u64),
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Dir {
    /// Name -> (inode, dentry block or `INLINE`, slots).
    entries: BTreeMap<Box<str>, (Ino, u64, u16)>,
    /// Slots used inline, while the directory is inline.
    inline_used: Option<u16>,
    /// Used slots per dentry block.
    blocks: BTreeMap<u64, u16>,
    /// `i_current_depth`.
    depth: u32,
}

const INLINE: u64 = u64::MAX;

/// `GET_DENTRY_SLOTS`.
pub fn dentry_slots(name: &str) -> u16 {
    name.len().div_ceil(F2FS_SLOT_LEN).max(1) as u16
}

fn dir_buckets(level: u32) -> u64 {
    if level < MAX_DIR_HASH_DEPTH / 2 {
        1 << level
    } else {
        1 << (MAX_DIR_HASH_DEPTH / 2 - 1)
    }
}

fn bucket_blocks(level: u32) -> u64 {
    if level < MAX_DIR_HASH_DEPTH / 2 {
        2
    } else {
        4
    }
}

/// `dir_block_index` with `i_dir_level` 0.
fn dir_block_index(level: u32, bucket: u64) -> u64 {
    (0..level).map(|l| dir_buckets(l) * bucket_blocks(l)).sum::<u64>() + bucket * bucket_blocks(level)
}

fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

impl Dir {
    pub fn new() -> Self {
        Dir { inline_used: Some(0), ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The name under which `ino` is linked (a scan: crash tracking only).
    pub fn name_of(&self, ino: Ino) -> Option<&str> {
        self.entries.iter().find(|(_, e)| e.0 == ino).map(|(n, _)| &**n)
    }
    /// Every (name, inode), in name order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, Ino)> + '_ {
        self.entries.iter().map(|(n, e)| (&**n, e.0))
    }
    pub fn lookup(&self, name: &str) -> Option<Ino> {
        self.entries.get(name).map(|e| e.0)
    }
    #[cfg(test)]
    fn is_inline(&self) -> bool {
        self.inline_used.is_some()
    }

    /// Add `name` (absent: the caller checked). None when the hash table
    /// is at `MAX_DIR_HASH_DEPTH` (ENOSPC in the kernel).
    pub fn add(&mut self, name: &str, ino: Ino) -> Option<DentryChange> {
        let slots = dentry_slots(name);
        if let Some(used) = self.inline_used {
            if used + slots <= NR_INLINE_DENTRY {
                self.inline_used = Some(used + slots);
                self.entries.insert(name.into(), (ino, INLINE, slots));
                return Some(DentryChange::Inline);
            }
            // f2fs_move_inline_dirents: everything inline goes to block 0.
            self.inline_used = None;
            self.depth = 1;
            self.blocks.insert(0, used);
            for e in self.entries.values_mut() {
                e.1 = 0;
            }
            let index = self.add_regular(name, ino, slots)?;
            return Some(DentryChange::Converted { index });
        }
        self.add_regular(name, ino, slots).map(DentryChange::Block)
    }

    /// `f2fs_add_regular_entry`.
    fn add_regular(&mut self, name: &str, ino: Ino, slots: u16) -> Option<u64> {
        let hash = name_hash(name) as u64;
        let mut level = 0;
        loop {
            if self.depth == MAX_DIR_HASH_DEPTH {
                return None;
            }
            if level == self.depth {
                self.depth += 1;
            }
            let bidx = dir_block_index(level, hash % dir_buckets(level));
            for b in bidx..bidx + bucket_blocks(level) {
                let used = self.blocks.entry(b).or_insert(0);
                if *used + slots <= NR_DENTRY_IN_BLOCK {
                    *used += slots;
                    self.entries.insert(name.into(), (ino, b, slots));
                    return Some(b);
                }
            }
            level += 1;
        }
    }

    /// Remove `name`; None if absent.
    pub fn remove(&mut self, name: &str) -> Option<(Ino, DentryChange)> {
        let (ino, block, slots) = self.entries.remove(name)?;
        if block == INLINE {
            let used = self.inline_used.as_mut().expect("inline entry in an inline directory");
            *used -= slots;
            return Some((ino, DentryChange::Inline));
        }
        let used = self.blocks.get_mut(&block).expect("entry's block is in use");
        *used -= slots;
        if *used == 0 {
            self.blocks.remove(&block);
            return Some((ino, DentryChange::Punched(block)));
        }
        Some((ino, DentryChange::Block(block)))
    }

    /// Point `name` at another inode in place (rename over an existing name).
    pub fn replace(&mut self, name: &str, ino: Ino) -> Option<(Ino, DentryChange)> {
        let e = self.entries.get_mut(name)?;
        let old = std::mem::replace(&mut e.0, ino);
        Some((old, if e.1 == INLINE { DentryChange::Inline } else { DentryChange::Block(e.1) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_inline_up_to_182_slots_then_moves_to_block_0() {
        let mut d = Dir::new();
        for i in 0..182 {
            assert_eq!(d.add(&format!("f{i:06}"), i), Some(DentryChange::Inline));
        }
        assert!(d.is_inline());
        // The 183rd short name no longer fits inline.
        match d.add("f000182", 182) {
            Some(DentryChange::Converted { .. }) => {}
            other => panic!("expected conversion, got {other:?}"),
        }
        assert!(!d.is_inline());
        assert_eq!(d.blocks.get(&0).copied().unwrap_or(0) + d.blocks.get(&1).copied().unwrap_or(0), 183);
    }

    #[test]
    fn long_names_take_more_slots() {
        assert_eq!(dentry_slots("a"), 1);
        assert_eq!(dentry_slots("12345678"), 1);
        assert_eq!(dentry_slots("123456789"), 2);
        let mut d = Dir::new();
        let long = "x".repeat(255);
        // 32 slots each: five fit inline (160), the sixth converts.
        for i in 0..5 {
            assert_eq!(d.add(&format!("{long}{i}")[1..], i), Some(DentryChange::Inline));
        }
        assert!(matches!(d.add(&format!("{long}5")[1..], 5), Some(DentryChange::Converted { .. })));
    }

    #[test]
    fn big_directory_grows_levels_and_punches_empty_blocks() {
        let mut d = Dir::new();
        let n = 20_000u32;
        for i in 0..n {
            d.add(&format!("file{i:08}"), i).expect("room");
        }
        assert_eq!(d.len(), n as usize);
        // 20,000 two-slot names need at least 187 full blocks; hashing leaves slack.
        let blocks = d.blocks.len();
        assert!(blocks >= 187 && d.depth >= 7, "{blocks} blocks, depth {}", d.depth);
        let used: u32 = d.blocks.values().map(|&u| u as u32).sum();
        assert_eq!(used, 2 * n);
        let mut punched = 0;
        for i in 0..n {
            if let Some((_, DentryChange::Punched(_))) = d.remove(&format!("file{i:08}")) {
                punched += 1;
            }
        }
        assert_eq!(punched, blocks);
        assert!(d.is_empty() && d.blocks.is_empty());
    }

    #[test]
    fn block_index_follows_the_kernel_formula() {
        // Level 0: one bucket of blocks 0-1; level 1: buckets at 2 and 4.
        assert_eq!(dir_block_index(0, 0), 0);
        assert_eq!(dir_block_index(1, 0), 2);
        assert_eq!(dir_block_index(1, 1), 4);
        assert_eq!(dir_block_index(2, 0), 6);
    }
}
