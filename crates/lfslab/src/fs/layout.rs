//! F2FS on-disk layout, computed the way mkfs.f2fs of f2fs-tools 1.15.0
//! (mkfs/f2fs_format.c `f2fs_prepare_super_block`) does for a partition
//! size and section size: superblock zone, checkpoint area (two packs), SIT
//! (two copies), NAT (two copies, capped by the checkpoint's bitmap space),
//! SSA (one summary block per segment, padded to a zone), main area aligned
//! to a zone. Overprovisioning and reserved segments follow
//! `get_best_overprovision` and `(2 * (100 / ovp + 1) + NR_CURSEG_TYPE) *
//! segs_per_sec`.

use serde::Serialize;

pub const BLOCKS_PER_SEG: u32 = 512;
/// SIT entries per 4 KiB block (f2fs_fs.h: SIT_ENTRY_PER_BLOCK).
pub const SIT_ENTRY_PER_BLOCK: u64 = 55;
/// NAT entries per 4 KiB block (f2fs_fs.h: NAT_ENTRY_PER_BLOCK).
pub const NAT_ENTRY_PER_BLOCK: u64 = 455;
/// Number of active logs (NR_CURSEG_TYPE): hot/warm/cold x data/node.
pub const NR_CURSEG_TYPE: u32 = 6;

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Layout {
    /// Partition size in 4 KiB blocks (LBAs 0..blocks).
    pub blocks: u64,
    pub segs_per_sec: u32,
    /// First block of the checkpoint area (after the superblock zone).
    pub cp_blkaddr: u64,
    pub sit_blkaddr: u64,
    /// Segments of one SIT copy.
    pub sit_segments: u32,
    pub nat_blkaddr: u64,
    /// Segments of one NAT copy.
    pub nat_segments: u32,
    pub ssa_blkaddr: u64,
    pub ssa_segments: u32,
    pub main_blkaddr: u64,
    pub main_segments: u32,
    pub main_sections: u32,
    /// Overprovision ratio in percent chosen by mkfs.
    pub overprovision_pct: f64,
    pub ovp_segments: u32,
    pub reserved_segments: u32,
    /// Blocks users may fill: (main - ovp) segments.
    pub user_blocks: u64,
    /// Largest node id (NAT entries in one copy).
    pub max_nid: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `get_best_overprovision` (f2fs-tools 1.15.0, include/f2fs_fs.h): the
/// ratio leaving the most user space. The candidate is an accumulated f64,
/// as in C (after 199 steps it is 2.0000000000000013, which changes the
/// reserved count of some sizes by one), and the reserve is not truncated.
fn best_overprovision(main_segments: u32, usable: u32, spsec_usable: u32) -> f64 {
    let (mut candidate, end, diff) = if main_segments < 256 { (10.0, 95.0, 5.0) } else { (0.01, 10.0, 0.01) };
    let usable = usable as f64;
    let (mut best, mut best_space) = (0.0, 0.0);
    while candidate <= end {
        let reserved = (2.0 * (100.0 / candidate + 1.0) + NR_CURSEG_TYPE as f64) * spsec_usable as f64;
        let ovp = (usable - reserved) * candidate / 100.0;
        let space = usable - reserved - ovp;
        if best_space < space {
            best_space = space;
            best = candidate;
        }
        candidate += diff;
    }
    best
}

/// `c.reserved_segments` (f2fs_prepare_super_block): truncated to u32.
fn reserved_for(ovp_pct: f64, spsec_usable: u32) -> u32 {
    ((2.0 * (100.0 / ovp_pct + 1.0) + NR_CURSEG_TYPE as f64) * spsec_usable as f64) as u32
}

/// MAX_BITMAP_SIZE_IN_CKPT and MAX_SIT_BITMAP_SIZE_IN_CKPT (f2fs_fs.h): the
/// SIT and NAT version bitmaps share the checkpoint block.
const MAX_BITMAP_SIZE_IN_CKPT: u64 = 3900;
const MAX_SIT_BITMAP_SIZE_IN_CKPT: u64 = 3836;
/// MAX_SIT_BITMAP_SIZE for F2FS_MAX_SEGMENT (8 Mi segments).
const MAX_SIT_BITMAP_SIZE: u64 = 19072;

impl Layout {
    /// Lay out a partition of `blocks` 4 KiB blocks with sections of
    /// `segs_per_sec` segments as mkfs.f2fs 1.15.0 (Debian bookworm's
    /// f2fs-tools) does on a regular file (`f2fs_prepare_super_block`);
    /// `overprovision_pct` overrides its choice (`-o`). The test below checks
    /// the numbers mkfs.f2fs printed for 1 to 256 GiB.
    pub fn mkfs(blocks: u64, segs_per_sec: u32, overprovision_pct: Option<f64>) -> Result<Layout, LayoutError> {
        Self::mkfs_with(blocks, segs_per_sec, overprovision_pct, None)
    }

    /// mkfs for a scaled run standing for a volume of `represented_blocks`:
    /// mkfs.f2fs's size-dependent choices, the overprovision ratio and the
    /// reserved segments (a near-constant count, so a larger share of a
    /// small volume), are those of the represented volume, the reserve
    /// scaled to this one. A 16 GiB run of a 256 GiB experiment then keeps
    /// the free-space share the 256 GiB volume keeps.
    pub fn mkfs_for(blocks: u64, segs_per_sec: u32, represented_blocks: u64) -> Result<Layout, LayoutError> {
        if represented_blocks == blocks {
            return Self::mkfs(blocks, segs_per_sec, None);
        }
        let small = |why: String| {
            LayoutError(format!(
                "volume_scale: the volume this run stands for (partition / volume_scale = {} MiB) is too small for \
                 mkfs.f2fs ({why}); raise volume_scale's denominator or the partition",
                represented_blocks * 4 / 1024
            ))
        };
        let rep = Self::mkfs(represented_blocks, segs_per_sec, None).map_err(|e| small(e.0))?;
        if !(rep.overprovision_pct > 0.0 && rep.overprovision_pct < 100.0) {
            return Err(small(format!("overprovision {}%", rep.overprovision_pct)));
        }
        let reserved = (rep.reserved_segments as f64 * blocks as f64 / rep.blocks as f64).round() as u32;
        Self::mkfs_with(blocks, segs_per_sec, Some(rep.overprovision_pct), Some(reserved.max(segs_per_sec)))
    }

    fn mkfs_with(blocks: u64, segs_per_sec: u32, overprovision_pct: Option<f64>, reserved: Option<u32>) -> Result<Layout, LayoutError> {
        if segs_per_sec == 0 || !segs_per_sec.is_power_of_two() || segs_per_sec > 1024 {
            return Err(LayoutError(format!("fs.segs_per_sec = {segs_per_sec}: must be a power of two in 1..=1024")));
        }
        let spb = BLOCKS_PER_SEG as u64;
        let spz = segs_per_sec as u64; // one section per zone (secs_per_zone = 1)
        let zone_blocks = spb * spz;
        // The superblock's 8 KiB start the first zone, which is skipped whole.
        let segment0 = 2u64.div_ceil(zone_blocks) * zone_blocks;
        // 1.15.0 counts device segments unaligned (usable segments below), then aligns.
        let dev_segments = blocks.saturating_sub(segment0) / spb;
        let segment_count = dev_segments / spz * spz;
        let cp_segments = 2u64;
        let sit_segments = segment_count.div_ceil(SIT_ENTRY_PER_BLOCK).div_ceil(spb);
        let avail = segment_count.saturating_sub(cp_segments + 2 * sit_segments) * spb;
        let mut nat_segments = avail.div_ceil(NAT_ENTRY_PER_BLOCK).div_ceil(spb);
        // The NAT version bitmap gets what the SIT bitmap leaves of the checkpoint block.
        let sit_bitmap = (sit_segments * spb / 8).min(MAX_SIT_BITMAP_SIZE);
        let nat_bitmap = if sit_bitmap > MAX_SIT_BITMAP_SIZE_IN_CKPT { MAX_BITMAP_SIZE_IN_CKPT } else { MAX_BITMAP_SIZE_IN_CKPT - sit_bitmap };
        nat_segments = nat_segments.min(nat_bitmap * 8 / spb);
        let avail = segment_count.saturating_sub(cp_segments + 2 * sit_segments + 2 * nat_segments) * spb;
        let mut ssa_segments = (avail / spb + 1).div_ceil(spb);
        let meta_segments = cp_segments + 2 * sit_segments + 2 * nat_segments + ssa_segments;
        // SSA absorbs the padding to a zone boundary; main starts on one.
        if !meta_segments.is_multiple_of(spz) {
            ssa_segments += spz - meta_segments % spz;
        }
        let meta_zones = meta_segments.div_ceil(spz);
        let main_blkaddr = segment0 + meta_zones * zone_blocks;
        let main_sections = (segment_count / spz).saturating_sub(meta_zones) as u32;
        let main_segments = main_sections * segs_per_sec;
        let min_sections = 2 * NR_CURSEG_TYPE + 4;
        if main_sections < min_sections {
            return Err(LayoutError(format!(
                "fs partition of {} MiB has {main_sections} main sections of {} MiB; F2FS needs at least {min_sections}: \
                 enlarge the partition or shrink fs.segs_per_sec",
                blocks * 4 / 1024,
                zone_blocks * 4 / 1024
            )));
        }
        // f2fs_get_usable_segments (HAVE_BLK_ZONE_REP_V2 build): from the unaligned count.
        let usable = (dev_segments - (main_blkaddr - segment0) / spb) as u32;
        let spsec_usable = usable.div_ceil(main_sections);
        let ovp_pct = match overprovision_pct {
            Some(p) if p > 0.0 && p < 100.0 => p,
            Some(p) => return Err(LayoutError(format!("fs.overprovision_pct = {p}: must be in (0, 100)"))),
            None => best_overprovision(main_segments, usable, spsec_usable),
        };
        if ovp_pct <= 0.0 {
            // f2fs-tools get_best_overprovision finds no ratio that leaves
            // user space: mkfs.f2fs stops ("Device size is not sufficient").
            return Err(LayoutError(format!(
                "fs partition of {} MiB with sections of {} MiB leaves no user space at any overprovision ratio \
                 (mkfs.f2fs: device size is not sufficient): enlarge the partition or shrink fs.segs_per_sec",
                blocks * 4 / 1024,
                zone_blocks * 4 / 1024
            )));
        }
        let reserved_segments = reserved.unwrap_or_else(|| reserved_for(ovp_pct, spsec_usable));
        if reserved_segments.saturating_add(NR_CURSEG_TYPE) > main_segments {
            return Err(LayoutError(format!(
                "fs: {reserved_segments} reserved segments for overprovision {ovp_pct}% exceed the {main_segments} main segments"
            )));
        }
        // Foreground GC must be able to keep more free sections than the
        // reserve while all six logs hold an open section.
        let reserved_sections = reserved_segments / segs_per_sec;
        let needed = reserved_sections + 3 * NR_CURSEG_TYPE;
        if main_sections < needed {
            return Err(LayoutError(format!(
                "fs partition of {} MiB has {main_sections} main sections but needs {needed} ({reserved_sections} reserved \
                 for overprovision {ovp_pct:.2}% plus room for six open logs): enlarge the partition or shrink fs.segs_per_sec",
                blocks * 4 / 1024
            )));
        }
        // overprov_segment_count includes the reserved segments.
        let ovp_segments = ((usable - reserved_segments) as f64 * ovp_pct / 100.0) as u32 + reserved_segments;
        if ovp_segments >= usable {
            return Err(LayoutError(format!("fs: overprovision {ovp_pct}% leaves no user space in {usable} segments")));
        }
        let user_blocks = (usable - ovp_segments) as u64 * spb;
        let cp_blkaddr = segment0;
        let sit_blkaddr = cp_blkaddr + cp_segments * spb;
        let nat_blkaddr = sit_blkaddr + 2 * sit_segments * spb;
        let ssa_blkaddr = nat_blkaddr + 2 * nat_segments * spb;
        Ok(Layout {
            blocks,
            segs_per_sec,
            cp_blkaddr,
            sit_blkaddr,
            sit_segments: sit_segments as u32,
            nat_blkaddr,
            nat_segments: nat_segments as u32,
            ssa_blkaddr,
            ssa_segments: ssa_segments as u32,
            main_blkaddr,
            main_segments,
            main_sections,
            overprovision_pct: (ovp_pct * 1000.0).round() / 1000.0,
            ovp_segments,
            reserved_segments,
            user_blocks,
            max_nid: (nat_segments * spb * NAT_ENTRY_PER_BLOCK).min(u32::MAX as u64 - 1) as u32,
        })
    }

    /// IPLFS (iplfs.txt): a logical partition of `blocks` (far beyond the
    /// flash) split into areas by the top 3 address bits: area 0 holds the
    /// superblock, checkpoint packs and the NAT (sized, as mkfs.f2fs would,
    /// for the device's `device_blocks`: inodes are bounded by the flash);
    /// there is no SIT or SSA on disk; areas 1..=6 hold the six logs. One
    /// segment per section, no overprovisioning: nothing is ever cleaned.
    pub fn iplfs(blocks: u64, device_blocks: u64) -> Result<Layout, LayoutError> {
        const AREA: u64 = 1 << 29;
        if blocks < 7 * AREA || blocks >= u32::MAX as u64 {
            return Err(LayoutError(format!("iplfs partition of {blocks} blocks: must span seven 2^29-block areas below 2^32")));
        }
        let plain = Layout::mkfs(device_blocks, 1, None)?;
        let spb = BLOCKS_PER_SEG as u64;
        let cp_blkaddr = spb;
        let nat_blkaddr = cp_blkaddr + 2 * spb;
        let main_segments = ((blocks - AREA) / spb) as u32;
        Ok(Layout {
            blocks,
            segs_per_sec: 1,
            cp_blkaddr,
            sit_blkaddr: nat_blkaddr,
            sit_segments: 0,
            nat_blkaddr,
            nat_segments: plain.nat_segments,
            ssa_blkaddr: nat_blkaddr + 2 * plain.nat_segments as u64 * spb,
            ssa_segments: 0,
            main_blkaddr: AREA,
            main_segments,
            main_sections: main_segments,
            overprovision_pct: 0.0,
            ovp_segments: 0,
            reserved_segments: 0,
            user_blocks: plain.user_blocks,
            max_nid: plain.max_nid,
        })
    }

    pub fn blocks_per_sec(&self) -> u64 {
        BLOCKS_PER_SEG as u64 * self.segs_per_sec as u64
    }

    /// Reserved sections (free sections FG GC must keep).
    pub fn reserved_sections(&self) -> u32 {
        self.reserved_segments / self.segs_per_sec
    }

    pub fn seg_start(&self, segno: u32) -> u64 {
        self.main_blkaddr + segno as u64 * BLOCKS_PER_SEG as u64
    }

    /// Main-area segment of block address `blk`.
    pub fn segno_of(&self, blk: u64) -> u32 {
        debug_assert!(blk >= self.main_blkaddr, "block {blk} is not in the main area");
        ((blk - self.main_blkaddr) / BLOCKS_PER_SEG as u64) as u32
    }

    pub fn sec_of_seg(&self, segno: u32) -> u32 {
        segno / self.segs_per_sec
    }

    /// SIT / NAT block holding the entry of segment / node id (first copy).
    pub fn sit_block_of(&self, segno: u32) -> u64 {
        self.sit_blkaddr + segno as u64 / SIT_ENTRY_PER_BLOCK
    }
    pub fn nat_block_of(&self, nid: u32) -> u64 {
        self.nat_blkaddr + nid as u64 / NAT_ENTRY_PER_BLOCK
    }
    pub fn ssa_block_of(&self, segno: u32) -> u64 {
        self.ssa_blkaddr + segno as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_gib_two_mib_sections() {
        let l = Layout::mkfs(16 << 18, 1, None).unwrap();
        assert_eq!(l.cp_blkaddr, 512);
        assert!(l.main_blkaddr > l.ssa_blkaddr);
        assert_eq!(l.main_blkaddr % 512, 0);
        // Meta areas are small: main holds over 99% of the partition.
        assert!(l.main_segments as u64 * 512 > (16u64 << 18) * 99 / 100);
        assert!(l.overprovision_pct > 0.0 && l.overprovision_pct < 10.0);
        assert!(l.reserved_segments >= 2 * 6);
        assert!(l.user_blocks < l.main_segments as u64 * 512);
    }

    #[test]
    fn big_sections_reserve_much_more() {
        let small = Layout::mkfs(16 << 18, 1, None).unwrap();
        let big = Layout::mkfs(16 << 18, 16, None).unwrap();
        assert_eq!(big.main_blkaddr % (512 * 16), 0, "main area aligns to 32 MiB sections");
        assert!(big.ovp_segments > 3 * small.ovp_segments, "{} vs {}", big.ovp_segments, small.ovp_segments);
    }

    /// What mkfs.f2fs 1.15.0 (Debian f2fs-tools 1.15.0-1) printed and wrote
    /// for sparse image files (`fsck.f2fs -d 1`): size GiB, segs_per_sec,
    /// SIT / NAT segments (both copies), SSA segments, main segments, main
    /// sections, main_blkaddr, overprovision %, ovp segments, reserved
    /// segments, user blocks.
    #[test]
    fn mkfs_f2fs_1_15_geometry() {
        let table: [(u64, u32, u32, u32, u32, u32, u32, u64, f64, u32, u32, u64); 7] = [
            (1, 1, 2, 4, 1, 502, 502, 5120, 6.360, 68, 39, 222208),
            (4, 1, 2, 10, 4, 2029, 2029, 9728, 3.150, 132, 71, 971264),
            (16, 1, 2, 36, 16, 8135, 8135, 29184, 1.570, 260, 135, 4032000),
            (64, 1, 4, 116, 64, 32581, 32581, 95744, 0.780, 516, 264, 16417280),
            (256, 1, 10, 110, 256, 130693, 130693, 194048, 0.390, 1027, 520, 66388992),
            (16, 16, 2, 36, 24, 8112, 507, 40960, 6.330, 1106, 633, 3587072),
            (256, 16, 10, 110, 262, 130672, 8167, 204800, 1.570, 4183, 2166, 64762368),
        ];
        for (gib, spsec, sit, nat, ssa, main, secs, main_blk, ovp, ovp_segs, rsvd, user) in table {
            let l = Layout::mkfs(gib << 18, spsec, None).unwrap();
            let got = (2 * l.sit_segments, 2 * l.nat_segments, l.ssa_segments, l.main_segments, l.main_sections, l.main_blkaddr);
            assert_eq!(got, (sit, nat, ssa, main, secs, main_blk), "{gib} GiB -s {spsec}");
            assert_eq!((l.overprovision_pct, l.ovp_segments, l.reserved_segments, l.user_blocks), (ovp, ovp_segs, rsvd, user), "{gib} GiB -s {spsec}");
        }
    }

    /// A 16 GiB run standing for 256 GiB keeps the 256 GiB volume's
    /// overprovision ratio and reserve share.
    #[test]
    fn scaled_mkfs_keeps_the_represented_shares() {
        let small = Layout::mkfs_for(16 << 18, 16, 256 << 18).unwrap();
        let big = Layout::mkfs(256 << 18, 16, None).unwrap();
        assert_eq!(small.overprovision_pct, big.overprovision_pct);
        let share = |l: &Layout| l.reserved_segments as f64 / l.main_segments as f64;
        assert!((share(&small) / share(&big) - 1.0).abs() < 0.05, "{} vs {}", share(&small), share(&big));
        assert_eq!(Layout::mkfs_for(16 << 18, 16, 16 << 18).unwrap(), Layout::mkfs(16 << 18, 16, None).unwrap());
    }

    #[test]
    fn too_small_is_an_error() {
        let e = Layout::mkfs(64 << 8, 16, None).unwrap_err();
        assert!(e.0.contains("main sections"), "{e}");
        assert!(Layout::mkfs(16 << 18, 3, None).unwrap_err().0.contains("segs_per_sec = 3"));
    }
}
