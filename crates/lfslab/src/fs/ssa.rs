//! The summary (SSA) entry of a main-area block, F2FS `struct f2fs_summary`:
//! which node owns the block, and where in it: a data block's offset in its
//! dnode or inode, or "the node itself" for a node block. F2FS stores a
//! 32-bit nid and a 16-bit offset on disk; in memory lfslab packs both into
//! 32 bits (a 22-bit nid, a 10-bit offset; offsets stop at 1017,
//! DEF_ADDRS_PER_BLOCK - 1), which is half the table of a u64 per block,
//! the largest per-block structure of a D2FS partition (issue 12's memory
//! budget). Filesystems are limited to `MAX_NID` node ids
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

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// Above this many valid blocks a chunk stays dense: a sparse chunk takes
/// 6 bytes per entry, so this keeps it under 3/8 of the dense 16 KiB.
const SPARSE_MAX: usize = CHUNK / 4;
/// `shed` looks at one in this many dense chunks per call.
const SHED_TURNS: usize = 4;
/// Blocks written per chunk a `shed` turn looks at: a turn waits for
/// them, so its scan (a valid count per segment of each chunk) follows
/// the writes, not the checkpoints times the volume.
const SHED_WRITES_PER_CHUNK: u64 = CHUNK as u64 / 8;

/// The SSA in memory: per main-area block, its owner. The kernel keeps the
/// SSA on disk and reads a segment's summary block when it needs it
/// (`f2fs_get_sum_page`); lfslab keeps it in memory, so its size is what a
/// run costs. Chunks of 4096 blocks (8 segments) are allocated on first
/// write. A checkpoint `shed`s sealed chunks whose blocks are mostly
/// invalid to a sparse form holding only the valid blocks' entries:
/// nothing reads the owner of an invalid block (GC, migration records,
/// fsck and remount all ask about valid ones), and a log that wraps rarely
/// would otherwise keep an entry for every block it has written.
///
/// A filesystem without an SSA area (IPLFS: no FS GC, so mkfs lays out
/// none; `Layout::iplfs`) keeps no table (`SsaTable::none`): setting an
/// entry does nothing, and reading one is a bug.
///
/// A dense chunk holds `CHUNK` words; a sparse one of `k` entries holds
/// `ceil(k / 2)` words of 16-bit offsets (ascending) and then the `k`
/// entries, so its length, never `CHUNK`, says which it is and how many.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SsaTable {
    len: usize,
    chunks: Vec<Option<Box<[u32]>>>,
    /// Chunks that are dense, unordered: what `shed` looks at.
    dense: Vec<u32>,
    /// Entries set and not yet spent on `shed` turns.
    #[serde(default)]
    writes: u64,
}

impl SsaTable {
    pub fn new(len: usize) -> Self {
        let chunks = vec![None; len.div_ceil(CHUNK)];
        crate::huge_pages::keep_small_pages(&chunks);
        SsaTable { len, chunks, dense: Vec::new(), writes: 0 }
    }

    /// No table: for a filesystem without an SSA area.
    pub fn none() -> Self {
        SsaTable::new(0)
    }

    /// Whether entries are kept (false for `none`).
    pub fn kept(&self) -> bool {
        self.len > 0
    }

    /// Hint that entry `i` is read soon (a full chunk's only: a sparse
    /// one is searched). Never changes results.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if let Some(Some(c)) = self.chunks.get(i >> CHUNK_BITS) {
            if c.len() == CHUNK {
                crate::prefetch::prefetch(c, i & (CHUNK - 1));
            }
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> SsaEntry {
        assert!(self.kept(), "SSA entry {i} read, but this filesystem keeps no SSA (its layout has no SSA area)");
        debug_assert!(i < self.len, "SSA index {i} beyond {}", self.len);
        match &self.chunks[i >> CHUNK_BITS] {
            None => SsaEntry::default(),
            Some(c) if c.len() == CHUNK => SsaEntry(c[i & (CHUNK - 1)]),
            Some(c) => {
                let k = sparse_len(c.len());
                let offs = |j: usize| sparse_off(c, j);
                let want = i & (CHUNK - 1);
                let (mut lo, mut hi) = (0, k);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if offs(mid) < want {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if lo < k && offs(lo) == want {
                    SsaEntry(c[k.div_ceil(2) + lo])
                } else {
                    SsaEntry::default()
                }
            }
        }
    }

    #[inline]
    pub fn set(&mut self, i: usize, e: SsaEntry) {
        if !self.kept() {
            return;
        }
        debug_assert!(i < self.len, "SSA index {i} beyond {}", self.len);
        let ci = i >> CHUNK_BITS;
        let c = &mut self.chunks[ci];
        if c.as_ref().is_none_or(|c| c.len() != CHUNK) {
            let mut d = vec![0u32; CHUNK].into_boxed_slice();
            if let Some(s) = c.as_deref() {
                let k = sparse_len(s.len());
                for j in 0..k {
                    d[sparse_off(s, j)] = s[k.div_ceil(2) + j];
                }
            }
            *c = Some(d);
            self.dense.push(ci as u32);
        }
        self.chunks[ci].as_mut().expect("dense now")[i & (CHUNK - 1)] = e.0;
        self.writes += 1;
    }

    /// Make dense chunks sparse (or free them) where at most `SPARSE_MAX`
    /// blocks are valid and `sealed` says no log will write the chunk again
    /// soon; `valid` says whether a main-area index holds a valid block.
    /// Looks at a quarter of the dense chunks, in turn (`SHED_TURNS`), each
    /// turn paid for by `SHED_WRITES_PER_CHUNK` entries set per chunk it
    /// looks at. Returns how many chunks it shed.
    pub fn shed(&mut self, sealed: impl Fn(usize) -> bool, valid_count: impl Fn(usize) -> usize, valid: impl Fn(usize) -> bool) -> usize {
        // A quarter of the dense chunks per call, in turn: each is looked at
        // every fourth checkpoint, and a volume whose chunks stay mostly
        // valid (plain F2FS) pays a quarter of the scan.
        let n = self.dense.len().div_ceil(SHED_TURNS);
        // The writes since pay for the turns, so a checkpoint every few
        // blocks does not rescan a quarter of the volume every time.
        let cost = n as u64 * SHED_WRITES_PER_CHUNK;
        if self.writes < cost {
            return 0;
        }
        self.writes -= cost;
        let turn: Vec<u32> = self.dense.drain(..n).collect();
        let mut shed = 0;
        for ci in turn {
            let ci = ci as usize;
            let base = ci * CHUNK;
            let end = (base + CHUNK).min(self.len);
            if valid_count(ci) > SPARSE_MAX || !sealed(ci) {
                self.dense.push(ci as u32);
                continue;
            }
            let dense = self.chunks[ci].take().expect("listed dense");
            let live: Vec<usize> = (base..end).filter(|&i| valid(i)).collect();
            assert!(live.len() <= SPARSE_MAX, "chunk {ci}: {} valid blocks, counted at most {SPARSE_MAX}", live.len());
            if !live.is_empty() {
                let k = live.len();
                let mut s = vec![0u32; k.div_ceil(2) + k];
                for (j, &i) in live.iter().enumerate() {
                    s[j / 2] |= ((i - base) as u32) << (16 * (j % 2));
                    s[k.div_ceil(2) + j] = dense[i - base];
                }
                self.chunks[ci] = Some(s.into_boxed_slice());
            }
            shed += 1;
        }
        shed
    }

    /// Bytes of entry storage held (chunks, not the directory).
    #[cfg(test)]
    fn heap_bytes(&self) -> usize {
        self.chunks.iter().flatten().map(|c| c.len() * 4).sum()
    }
}

/// The offset in its chunk of sparse entry `j` (two 16-bit offsets a word,
/// low half first).
#[inline]
fn sparse_off(words: &[u32], j: usize) -> usize {
    (words[j / 2] >> (16 * (j % 2)) & 0xffff) as usize
}

/// Entries in a sparse chunk of `words` words (`ceil(k/2) + k`).
#[inline]
fn sparse_len(words: usize) -> usize {
    2 * words / 3
}

/// Chunks of the SSA table, for `shed`'s callers.
pub const SSA_CHUNK_BLOCKS: usize = CHUNK;

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

    /// `SsaTable::none` keeps nothing it is given, and reading it is a bug.
    #[test]
    #[should_panic(expected = "keeps no SSA")]
    fn a_filesystem_without_an_ssa_area_keeps_no_entries() {
        let mut t = SsaTable::none();
        assert!(!t.kept() && SsaTable::new(1).kept());
        t.set(7, SsaEntry::node(3));
        assert!(t.chunks.is_empty(), "an entry was kept");
        t.get(7);
    }

    /// A checkpoint with few writes behind it looks at no chunk: the scan
    /// is paid for by writes, not by checkpoints.
    #[test]
    fn shed_turns_are_paid_for_by_writes() {
        let mut t = SsaTable::new(8 * CHUNK);
        for i in 0..8 * CHUNK {
            t.set(i, SsaEntry::node(1));
        }
        let looked = std::cell::Cell::new(0);
        let shed = |t: &mut SsaTable| {
            t.shed(|_| false, |_| {
                looked.set(looked.get() + 1);
                0
            }, |_| false)
        };
        // 8 chunks' writes pay for 8 * CHUNK / SHED_WRITES_PER_CHUNK chunk looks.
        for _ in 0..100 {
            shed(&mut t);
        }
        assert_eq!(looked.get(), 8 * CHUNK / SHED_WRITES_PER_CHUNK as usize);
        let before = looked.get();
        t.set(0, SsaEntry::node(2));
        shed(&mut t);
        assert_eq!(looked.get(), before, "one write pays for no turn");
    }

    /// A shed chunk answers as the dense one did for every valid block, a
    /// write to it makes it dense again with those entries kept, and a chunk
    /// with no valid block is freed.
    #[test]
    fn shed_keeps_the_valid_entries() {
        let mut t = SsaTable::new(3 * CHUNK + 100);
        let mut rng = crate::sim::SimRng::new(7);
        let mut valid = vec![false; 3 * CHUNK + 100];
        for i in 0..valid.len() {
            t.set(i, SsaEntry::node(i as Nid + 1));
            valid[i] = match i / CHUNK {
                0 => rng.below(8) == 0,
                1 => false,
                2 => true,
                _ => rng.below(2) == 0,
            };
        }
        let count = |ci: usize| valid[ci * CHUNK..((ci + 1) * CHUNK).min(valid.len())].iter().filter(|&&v| v).count();
        let shed: usize = (0..SHED_TURNS).map(|_| t.shed(|ci| ci != 3, count, |i| valid[i])).sum();
        assert_eq!(shed, 2, "in turns, every dense chunk is looked at once");
        let k = count(0);
        assert_eq!(t.heap_bytes(), 2 * CHUNK * 4 + (k.div_ceil(2) + k) * 4, "chunks 2 and 3 dense, 0 sparse, 1 freed");
        for (i, &v) in valid.iter().enumerate() {
            let want = if v || i >= CHUNK { SsaEntry::node(i as Nid + 1) } else { SsaEntry::default() };
            if i / CHUNK == 1 {
                assert_eq!(t.get(i), SsaEntry::default(), "{i}");
            } else {
                assert_eq!(t.get(i), want, "{i}");
            }
        }
        let some = (6..CHUNK).find(|&i| valid[i]).expect("a valid block in chunk 0");
        t.set(5, SsaEntry::node(99));
        assert_eq!(t.get(5), SsaEntry::node(99));
        assert_eq!(t.get(some), SsaEntry::node(some as Nid + 1));
        let shed: usize = (0..SHED_TURNS).map(|_| t.shed(|_| true, |_| 0, |_| false)).sum();
        assert_eq!(shed, 3, "every dense chunk goes when nothing is valid");
        assert_eq!(t.heap_bytes(), 0);
    }
}
