//! What F2FS's dirty node and dentry pages ask of free space before
//! foreground GC must run (`has_not_enough_free_secs`, Linux 6.0).

/// Dirty node and dentry pages, as `has_not_enough_free_secs` weighs them.
#[derive(Clone, Copy, Debug)]
pub(super) struct DirtyBlocks {
    pub nodes: u64,
    pub dents: u64,
}

impl DirtyBlocks {
    /// Linux 6.0's rule (segment.h, "f2fs: fix deadloop in foreground
    /// GC", 5.19): `free` sections are short of what these pages need plus
    /// the `reserved` sections. Dentries consume node blocks too
    /// (F2FS_DIRTY_NODES + F2FS_DIRTY_DENTS + F2FS_DIRTY_IMETA) and data
    /// blocks; each total splits into whole sections and a remainder; a
    /// remainder needs a section of its own only when the open logs cannot
    /// take it (`room(node_blocks, dent_blocks)`, `has_curseg_enough_space`).
    pub fn short_of(self, free: u64, reserved: u64, blocks_per_sec: u64, room: impl FnOnce(u64, u64) -> bool) -> bool {
        let nodes = self.nodes + self.dents;
        let (node_secs, node_blocks) = (nodes / blocks_per_sec, nodes % blocks_per_sec);
        let (dent_secs, dent_blocks) = (self.dents / blocks_per_sec, self.dents % blocks_per_sec);
        let lower = node_secs + dent_secs + reserved;
        let upper = lower + (node_blocks > 0) as u64 + (dent_blocks > 0) as u64;
        if free > upper {
            false
        } else if free <= lower {
            true
        } else {
            !room(node_blocks, dent_blocks)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DirtyBlocks;

    const BPS: u64 = 512;

    fn short(nodes: u64, dents: u64, free: u64, room: bool) -> bool {
        DirtyBlocks { nodes, dents }.short_of(free, 2, BPS, |_, _| room)
    }

    /// The cases the kernel's lower and upper bounds separate, with the
    /// pre-5.19 rule's answer where it differs.
    #[test]
    fn whole_sections_and_remainders() {
        // Nothing dirty: short only at the reserve itself.
        assert!(short(0, 0, 2, true));
        assert!(!short(0, 0, 3, false));
        // A few dirty nodes: the open logs decide at reserve + 1. The old
        // rule (ceil of node sections) said short whatever the logs held:
        // the deadloop on small volumes the 5.19 fix removed.
        assert!(!short(10, 0, 3, true));
        assert!(short(10, 0, 3, false));
        assert!(!short(10, 0, 4, false));
        // A whole section of nodes moves the lower bound by one.
        assert!(short(BPS, 0, 3, true));
        assert!(!short(BPS, 0, 4, false));
        // Dentries count as nodes and as data: two remainders, two sections
        // of slack before the logs are asked.
        assert!(!short(0, 1, 5, false));
        assert!(short(0, 1, 4, false) && !short(0, 1, 4, true));
        assert!(short(0, BPS, 4, true) && !short(0, BPS, 5, false));
    }

    /// `has_curseg_enough_space` is asked for the remainders, not the totals.
    #[test]
    fn the_logs_are_asked_for_the_remainders() {
        let mut asked = None;
        let d = DirtyBlocks { nodes: BPS + 7, dents: BPS + 3 };
        // nodes: 2 * BPS + 10 = 2 sections + 10; dents: 1 section + 3.
        assert!(!d.short_of(2 + 3 + 1, 2, BPS, |n, t| {
            asked = Some((n, t));
            true
        }));
        assert_eq!(asked, Some((10, 3)));
    }
}
