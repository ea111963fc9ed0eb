//! The summary (SSA) entry of a main-area block, F2FS `struct f2fs_summary`:
//! which node owns the block, and where in it: a data block's offset in its
//! dnode or inode, or "the node itself" for a node block. F2FS stores a
//! 32-bit nid and a 16-bit offset on disk; in memory lfslab packs both into
//! 32 bits (a 22-bit nid, a 10-bit offset; offsets stop at 1017,
//! DEF_ADDRS_PER_BLOCK - 1), which is half the table of a u64 per block,
//! the largest per-block structure of a D2FS or IPLFS partition (issue 12's
//! memory budget). Filesystems are limited to `MAX_NID` node ids
//! (4,194,304, about 16 TiB of file data in dnodes); the NAT of every
//! volume lfslab models fits below it or is capped there (`F2fs::format`).

use super::node::{DnodeSlot, Nid, ADDRS_PER_BLOCK};

const OFS_BITS: u32 = 10;
const OFS_MASK: u32 = (1 << OFS_BITS) - 1;
/// The offset value that marks a node block.
const NODE: u32 = OFS_MASK;
/// Node ids an SSA entry can name.
pub const MAX_NID: Nid = 1 << (32 - OFS_BITS);

const _: () = assert!(ADDRS_PER_BLOCK < NODE as u64, "a dnode offset must not collide with the node marker");

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SsaEntry(u32);

impl SsaEntry {
    /// A data block at `slot`.
    #[inline]
    pub fn data(slot: DnodeSlot) -> SsaEntry {
        assert!(slot.nid < MAX_NID && slot.ofs < NODE, "SSA entry cannot hold {slot:?}");
        SsaEntry(slot.nid << OFS_BITS | slot.ofs)
    }

    /// The block of node `nid` itself.
    #[inline]
    pub fn node(nid: Nid) -> SsaEntry {
        assert!(nid < MAX_NID, "SSA entry cannot hold nid {nid}");
        SsaEntry(nid << OFS_BITS | NODE)
    }

    #[inline]
    pub fn nid(self) -> Nid {
        self.0 >> OFS_BITS
    }

    #[inline]
    pub fn is_node(self) -> bool {
        self.0 & OFS_MASK == NODE
    }

    /// Where a data block's address lives; None for a node block.
    #[inline]
    pub fn slot(self) -> Option<DnodeSlot> {
        (!self.is_node()).then(|| DnodeSlot { nid: self.nid(), ofs: self.0 & OFS_MASK })
    }

    /// The 64-bit form of a reverse index on the wire (CSGC's migrate
    /// request): nid << 32 | offset, u32::MAX for a node block.
    pub fn wire(self) -> u64 {
        (self.nid() as u64) << 32 | self.slot().map_or(u32::MAX, |s| s.ofs) as u64
    }

    /// The inverse of `wire`.
    pub fn from_wire(w: u64) -> SsaEntry {
        match w as u32 {
            u32::MAX => SsaEntry::node((w >> 32) as Nid),
            ofs => SsaEntry::data(DnodeSlot { nid: (w >> 32) as Nid, ofs }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let d = SsaEntry::data(DnodeSlot { nid: MAX_NID - 1, ofs: 1017 });
        assert_eq!(d.slot(), Some(DnodeSlot { nid: MAX_NID - 1, ofs: 1017 }));
        assert!(!d.is_node());
        let n = SsaEntry::node(12345);
        assert!(n.is_node() && n.slot().is_none() && n.nid() == 12345);
        for e in [d, n, SsaEntry::default()] {
            assert_eq!(SsaEntry::from_wire(e.wire()), e);
        }
        assert_eq!(std::mem::size_of::<SsaEntry>(), 4);
    }

    #[test]
    #[should_panic(expected = "cannot hold nid")]
    fn a_nid_beyond_the_packing_is_a_bug() {
        SsaEntry::node(MAX_NID);
    }
}
