//! Where mke2fs puts ext4's metadata (4 KiB blocks, the defaults of
//! e2fsprogs' mke2fs.conf "ext4": flex_bg of 16, 256-byte inodes, an inode
//! per 16 KiB, 64-bit group descriptors, an internal journal).
//!
//! Block group g spans blocks [g x 32768, (g+1) x 32768) (blocks per group
//! = 8 x block size: one bitmap block). With flex_bg, the block bitmaps,
//! inode bitmaps and inode tables of 16 groups sit together at the start of
//! the flex group's first group (ext2fs_allocate_group_table with
//! flexbg_offset). Group 0 also holds the superblock and the descriptor
//! table plus its reserved growth blocks (mke2fs calc_reserved_gdt_blocks,
//! capped at 1024 blocks). The journal is one extent in the middle of the
//! volume (ext2fs_mkjournal's get_midpoint_journal_block), sized by
//! ext2fs_default_journal_size.
//!
//! Simplified: no backup superblocks or descriptor copies in the sparse
//! groups (they are written only by resize and e2fsck), and no lazy
//! inode-table zeroing.

use super::Ino;

pub const BLOCKS_PER_GROUP: u64 = 32768;
/// s_log_groups_per_flex = 4.
pub const GROUPS_PER_FLEX: u64 = 16;
/// inode_ratio 16384 x 32768 blocks of 4 KiB / 16384 = 8192 inodes per group.
pub const INODES_PER_GROUP: u64 = 8192;
/// 256-byte inodes: 16 per 4 KiB block, 512 inode-table blocks per group.
pub const INODES_PER_BLOCK: u64 = 16;
/// 64-byte (64bit feature) group descriptors per block.
const DESCS_PER_BLOCK: u64 = 64;
/// First inode a file may get (EXT4_GOOD_OLD_FIRST_INO); 2 is the root.
pub const FIRST_INO: Ino = 11;
pub const ROOT_INO: Ino = 2;

/// ext2fs_default_journal_size (e2fsprogs lib/ext2fs/mkjournal.c), in blocks.
pub fn default_journal_blocks(fs_blocks: u64) -> Option<u64> {
    Some(match fs_blocks {
        b if b < 2048 => return None,
        b if b < 32768 => 1024,
        b if b < 256 * 1024 => 4096,
        b if b < 512 * 1024 => 8192,
        b if b < 4096 * 1024 => 16384,
        b if b < 8192 * 1024 => 32768,
        b if b < 16384 * 1024 => 65536,
        b if b < 32768 * 1024 => 131072,
        _ => 262144,
    })
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ext4Layout {
    pub blocks: u64,
    pub groups: u64,
    pub gdt_blocks: u64,
    pub reserved_gdt_blocks: u64,
    pub journal_start: u64,
    pub journal_blocks: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooSmall(pub u64);

impl Ext4Layout {
    pub fn new(blocks: u64, journal_blocks: Option<u64>) -> Result<Self, TooSmall> {
        let jb = match journal_blocks {
            Some(j) => j,
            None => default_journal_blocks(blocks).ok_or(TooSmall(blocks))?,
        };
        let groups = blocks.div_ceil(BLOCKS_PER_GROUP);
        let gdt_blocks = groups.div_ceil(DESCS_PER_BLOCK);
        // calc_reserved_gdt_blocks: room to grow 1024-fold, at most 1024 blocks.
        let max_groups = (blocks.saturating_mul(1024)).min(1 << 32).div_ceil(BLOCKS_PER_GROUP);
        let reserved_gdt_blocks = (max_groups.div_ceil(DESCS_PER_BLOCK) - gdt_blocks).min(1024);
        let mut l = Ext4Layout { blocks, groups, gdt_blocks, reserved_gdt_blocks, journal_start: 0, journal_blocks: jb };
        // The middle group, moved to the start of its flex group, past its metadata.
        let mid = (groups / 2) / GROUPS_PER_FLEX * GROUPS_PER_FLEX;
        l.journal_start = l.data_start(mid);
        if l.journal_start + jb > blocks || l.data_start(groups - 1) >= blocks {
            return Err(TooSmall(blocks));
        }
        Ok(l)
    }

    pub fn group_of(&self, blk: u64) -> u64 {
        blk / BLOCKS_PER_GROUP
    }

    fn flex_meta_start(&self, g: u64) -> u64 {
        let first = g / GROUPS_PER_FLEX * GROUPS_PER_FLEX;
        first * BLOCKS_PER_GROUP + if first == 0 { 1 + self.gdt_blocks + self.reserved_gdt_blocks } else { 0 }
    }

    /// Groups in g's flex group (the last flex group may be short).
    fn flex_groups(&self, g: u64) -> u64 {
        let first = g / GROUPS_PER_FLEX * GROUPS_PER_FLEX;
        GROUPS_PER_FLEX.min(self.groups - first)
    }

    pub fn block_bitmap(&self, g: u64) -> u64 {
        self.flex_meta_start(g) + g % GROUPS_PER_FLEX
    }

    pub fn inode_bitmap(&self, g: u64) -> u64 {
        self.flex_meta_start(g) + self.flex_groups(g) + g % GROUPS_PER_FLEX
    }

    fn inode_table(&self, g: u64) -> u64 {
        let itb = INODES_PER_GROUP / INODES_PER_BLOCK;
        self.flex_meta_start(g) + 2 * self.flex_groups(g) + (g % GROUPS_PER_FLEX) * itb
    }

    /// The inode-table block holding `ino`.
    pub fn inode_block(&self, ino: Ino) -> u64 {
        let i = ino as u64 - 1;
        self.inode_table(i / INODES_PER_GROUP) + (i % INODES_PER_GROUP) / INODES_PER_BLOCK
    }

    pub fn group_of_ino(&self, ino: Ino) -> u64 {
        (ino as u64 - 1) / INODES_PER_GROUP
    }

    /// The descriptor-table block describing group `g` (in group 0).
    pub fn gdt_block(&self, g: u64) -> u64 {
        1 + g / DESCS_PER_BLOCK
    }

    /// First block of group `g` after its metadata (the flex group's
    /// tables in its first group).
    pub fn data_start(&self, g: u64) -> u64 {
        if g % GROUPS_PER_FLEX == 0 {
            self.inode_table(g) + self.flex_groups(g) * INODES_PER_GROUP / INODES_PER_BLOCK
        } else {
            g * BLOCKS_PER_GROUP
        }
    }

    /// Block ranges mkfs takes: superblock, descriptors, flex-group tables, journal.
    pub fn metadata_ranges(&self) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        let mut g = 0;
        while g < self.groups {
            let start = g * BLOCKS_PER_GROUP;
            v.push((start, self.data_start(g) - start));
            g += GROUPS_PER_FLEX;
        }
        v.push((self.journal_start, self.journal_blocks));
        v
    }

    pub fn max_inodes(&self) -> u64 {
        self.groups * INODES_PER_GROUP
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_sizes_follow_e2fsprogs() {
        assert_eq!(default_journal_blocks(1000), None);
        assert_eq!(default_journal_blocks(32768), Some(4096));
        // 16 GiB: 64 MiB; 256 GiB: 1 GiB.
        assert_eq!(default_journal_blocks(4 << 20), Some(32768));
        assert_eq!(default_journal_blocks(64 << 20), Some(262144));
    }

    #[test]
    fn metadata_does_not_overlap() {
        let l = Ext4Layout::new(4 << 20, None).unwrap();
        assert_eq!(l.groups, 128);
        let mut r = l.metadata_ranges();
        r.sort();
        for w in r.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "{w:?}");
        }
        // Flex group 0: sb + 2 gdt + reserved, then 16+16 bitmaps and 16 x 512 table blocks.
        assert_eq!(l.block_bitmap(0), 1 + l.gdt_blocks + l.reserved_gdt_blocks);
        assert_eq!(l.data_start(0), l.block_bitmap(0) + 32 + 16 * 512);
        assert!(l.inode_block(ROOT_INO) < l.data_start(0));
        assert_eq!(l.journal_start, l.data_start(64));
    }
}
