//! CSGC's offloaded migration command (csgc.txt §3.1-3.2): one request per
//! victim segment, carrying the segment, its validity bitmap (the source
//! descriptor), the pre-allocated destinations (the destination
//! descriptor, contiguous "chunks"), and the reverse index of each valid
//! block (piggybacked metadata). The completion carries the updated index
//! entries back, so a segment's migration is one round trip.
//!
//! No data crosses the host interface: only these descriptors, whose sizes
//! (`request_bytes`, `completion_bytes`) are what the device charges on PCIe.
//! The paper gives no wire format; the sizes here are stated assumptions:
//! 64 B of command (an NVMe SQE), the bitmap, 8 B per destination chunk and
//! per reverse-index entry, and 12 B per returned update (8 B owner + 4 B
//! address).

use crate::nand::Lpn;

/// Blocks in one F2FS segment, the unit of a request.
pub const SEGMENT_BLOCKS: u32 = 512;
const SQE_BYTES: u64 = 64;
const CHUNK_BYTES: u64 = 8;
const REV_INDEX_BYTES: u64 = 8;
const UPDATE_BYTES: u64 = 12;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrateRequest {
    /// First LBA of the victim segment.
    pub segment: Lpn,
    /// Validity bitmap of the segment's 512 blocks (bit k = block k valid).
    pub valid: [u64; 8],
    /// Destination chunks (start, blocks), filled in order by the valid
    /// blocks in bitmap order; their lengths add up to the valid count.
    pub dest: Vec<(Lpn, u32)>,
    /// Per valid block, in bitmap order: its owner in the filesystem's
    /// index (F2FS: nid << 32 | offset in the dnode), returned with the
    /// block's new address.
    pub rev_index: Vec<u64>,
    /// Index (node) blocks the executor must read from flash to update
    /// them itself when the reverse index is not piggybacked; empty when it is.
    pub index_blocks: Vec<Lpn>,
    /// Write stream of the destinations (the NVMe Streams directive id the
    /// host would have used for a normal write of these blocks).
    pub stream: u8,
}

impl MigrateRequest {
    pub fn valid_count(&self) -> u32 {
        self.valid.iter().map(|w| w.count_ones()).sum()
    }

    /// Offsets of the valid blocks in the segment, ascending.
    pub fn valid_offsets(&self) -> impl Iterator<Item = u32> + '_ {
        (0..SEGMENT_BLOCKS).filter(|&k| self.valid[(k / 64) as usize] >> (k % 64) & 1 == 1)
    }

    /// Destination LBA of each valid block, in bitmap order.
    pub fn destinations(&self) -> impl Iterator<Item = Lpn> + '_ {
        self.dest.iter().flat_map(|&(s, n)| (0..n as u64).map(move |i| Lpn(s.0 + i)))
    }

    /// Bytes the host sends: the command, bitmap, chunks and reverse index.
    pub fn request_bytes(&self) -> u64 {
        SQE_BYTES + 64 + CHUNK_BYTES * self.dest.len() as u64 + REV_INDEX_BYTES * self.rev_index.len() as u64
    }
}

/// What a migrate's completion carries back: each valid block's owner with
/// its new address (the executor's buffered index updates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MigrateResult {
    pub updates: Vec<(u64, Lpn)>,
}

impl MigrateResult {
    pub fn completion_bytes(&self) -> u64 {
        UPDATE_BYTES * self.updates.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_enumerate_in_bitmap_order() {
        let mut valid = [0u64; 8];
        valid[0] = 0b1010;
        valid[7] = 1 << 63;
        let r = MigrateRequest {
            segment: Lpn(1024),
            valid,
            dest: vec![(Lpn(5000), 2), (Lpn(7000), 1)],
            rev_index: vec![1, 2, 3],
            index_blocks: vec![],
            stream: 0,
        };
        assert_eq!(r.valid_count(), 3);
        assert_eq!(r.valid_offsets().collect::<Vec<_>>(), vec![1, 3, 511]);
        assert_eq!(r.destinations().collect::<Vec<_>>(), vec![Lpn(5000), Lpn(5001), Lpn(7000)]);
        // 64 B command + 64 B bitmap + 2 chunks + 3 reverse-index entries.
        assert_eq!(r.request_bytes(), 64 + 64 + 16 + 24);
    }
}
