//! ext4 directories (fs/ext4/namei.c): a directory is a file of 4 KiB
//! blocks of variable-length entries (rec_len = 8 + name, rounded to 4:
//! EXT4_DIR_REC_LEN); each block ends in a 12-byte checksum tail
//! (metadata_csum). Block 0 starts with "." and "..". A name goes in the
//! first block with room; a new block is appended when none has.
//!
//! Simplified, and said so in reports: no htree (dir_index) leaf by hash,
//! so a large directory fills its blocks in order; removal frees the
//! entry's bytes in its block (the kernel merges them into the previous
//! entry's rec_len, the same room).

use super::Ino;
use std::collections::BTreeMap;

const BLOCK_ROOM: u16 = 4096 - 12;
const DOT_DOTDOT: u16 = 24;

fn rec_len(name: &str) -> u16 {
    ((8 + name.len() + 3) & !3) as u16
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Ext4Dir {
    entries: BTreeMap<String, (Ino, u32)>,
    /// Bytes used per block.
    used: Vec<u16>,
}

impl Ext4Dir {
    pub fn new() -> Self {
        Ext4Dir { entries: BTreeMap::new(), used: vec![DOT_DOTDOT] }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn blocks(&self) -> u64 {
        self.used.len() as u64
    }

    pub fn lookup(&self, name: &str) -> Option<Ino> {
        self.entries.get(name).map(|&(i, _)| i)
    }

    /// Add a name: (its block, whether the block is new).
    pub fn add(&mut self, name: &str, ino: Ino) -> (u64, bool) {
        let need = rec_len(name);
        let (b, new) = match self.used.iter().position(|&u| u + need <= BLOCK_ROOM) {
            Some(b) => (b, false),
            None => {
                self.used.push(0);
                (self.used.len() - 1, true)
            }
        };
        self.used[b] += need;
        self.entries.insert(name.to_string(), (ino, b as u32));
        (b as u64, new)
    }

    /// Remove a name: (its inode, its block).
    pub fn remove(&mut self, name: &str) -> Option<(Ino, u64)> {
        let (ino, b) = self.entries.remove(name)?;
        self.used[b as usize] -= rec_len(name);
        Some((ino, b as u64))
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, Ino)> + '_ {
        self.entries.iter().map(|(n, &(i, _))| (n.as_str(), i))
    }

    /// Point an existing name at another inode: (the old inode, the block).
    pub fn replace(&mut self, name: &str, ino: Ino) -> Option<(Ino, u64)> {
        let e = self.entries.get_mut(name)?;
        let old = std::mem::replace(&mut e.0, ino);
        Some((old, e.1 as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fill_blocks_in_order() {
        let mut d = Ext4Dir::new();
        // 16-byte records ("f0000000": 8 + 8): (4084 - 24) / 16 = 253 in block 0.
        for i in 0..253 {
            assert_eq!(d.add(&format!("f{i:07}"), 20 + i), (0, false));
        }
        assert_eq!(d.add("f9999999", 9), (1, true));
        assert_eq!(d.remove("f0000005"), Some((25, 0)));
        assert_eq!(d.add("g0000000", 10), (0, false));
        assert_eq!(d.replace("g0000000", 11), Some((10, 0)));
        assert_eq!(d.lookup("g0000000"), Some(11));
    }
}
