//! Geometry of an InnoDB B+tree index: how many 16 KiB pages its rows and
//! node pointers take, and which pages a lookup walks (root to leaf).
//! Rows are addressed by their ordinal in key order; leaf `i` holds the
//! rows `[i * rows / leaves, (i + 1) * rows / leaves)`, so fractional rows
//! per page (8 KiB YCSB records) come out right on average.
//!
//! Sizes (storage/innobase/include/page0page.h, rem0rec.h): a page offers
//! 16,384 - 38 (FIL header) - 56 (index header) - 26 (infimum, supremum)
//! - 8 (FIL trailer) bytes; a record costs its columns plus a 5-byte header,
//! and a clustered-index record also the 6-byte transaction id and 7-byte
//! roll pointer; the page directory costs 2 bytes per 4 to 8 records
//! (counted as 0.5 byte per record). A node pointer is the key, a 4-byte
//! child page number and a record header.

/// Bytes of a page that records can use.
pub const PAGE_USABLE: f64 = (16384 - 38 - 56 - 26 - 8) as f64;
/// Record header plus directory share.
const REC_OVERHEAD: f64 = 5.5;
/// DB_TRX_ID + DB_ROLL_PTR of a clustered-index record.
pub const CLUSTERED_OVERHEAD: u64 = 13;
/// Random-order insertion leaves B-tree pages ln 2 full on average (Yao,
/// "On random 2-3 trees", 1978): YCSB loads hashed keys in random order.
pub const FILL_RANDOM: f64 = std::f64::consts::LN_2;
/// InnoDB fills pages to 15/16 when inserting in key order (it leaves
/// 1/16 free for updates): TPC-C's loader inserts in key order.
pub const FILL_SEQUENTIAL: f64 = 15.0 / 16.0;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Index {
    /// First page of the index in its file.
    pub first_page: u64,
    pub rows: u64,
    pub leaves: u64,
    /// Node pointers per non-leaf page.
    pub fanout: u64,
    /// Pages of each non-leaf level, root first, and the first page of each.
    levels: Vec<(u64, u64)>,
    leaf_first: u64,
}

impl Index {
    /// An index of `rows` records of `record_bytes` (columns, plus
    /// `CLUSTERED_OVERHEAD` for a clustered index) keyed by `key_bytes`,
    /// pages filled to `fill`, starting at `first_page`.
    pub fn new(first_page: u64, rows: u64, record_bytes: u64, key_bytes: u64, fill: f64) -> Index {
        let per_leaf = PAGE_USABLE * fill / (record_bytes as f64 + REC_OVERHEAD);
        let leaves = ((rows.max(1) as f64 / per_leaf).ceil() as u64).max(1);
        let fanout = ((PAGE_USABLE * fill / (key_bytes as f64 + 4.0 + REC_OVERHEAD)) as u64).max(2);
        let mut counts = Vec::new();
        let mut n = leaves;
        while n > 1 {
            n = n.div_ceil(fanout);
            counts.push(n);
        }
        counts.reverse();
        let mut levels = Vec::with_capacity(counts.len());
        let mut p = first_page;
        for c in counts {
            levels.push((c, p));
            p += c;
        }
        Index { first_page, rows, leaves, fanout, levels, leaf_first: p }
    }

    /// Pages of the whole index.
    pub fn pages(&self) -> u64 {
        self.leaf_first - self.first_page + self.leaves
    }
    /// The page after the index's last.
    pub fn end_page(&self) -> u64 {
        self.leaf_first + self.leaves
    }
    /// Levels a lookup walks, the leaf included.
    pub fn depth(&self) -> usize {
        self.levels.len() + 1
    }
    /// The leaf ordinal holding row ordinal `row` (rows past the loaded
    /// ones fall in the last leaf).
    pub fn leaf_of(&self, row: u64) -> u64 {
        ((row.min(self.rows.saturating_sub(1)) as u128 * self.leaves as u128) / self.rows.max(1) as u128) as u64
    }
    /// The page number of leaf ordinal `leaf`.
    pub fn leaf_page(&self, leaf: u64) -> u64 {
        self.leaf_first + leaf.min(self.leaves - 1)
    }
    /// The pages from the root to leaf `leaf` (the leaf last).
    pub fn path(&self, leaf: u64) -> impl Iterator<Item = u64> + '_ {
        let leaf = leaf.min(self.leaves - 1);
        let depth = self.levels.len() as u32;
        let inner = self.levels.iter().enumerate().map(move |(i, &(count, first))| {
            let below = depth - i as u32; // levels under this one, leaves included
            first + (leaf / self.fanout.saturating_pow(below)).min(count - 1)
        });
        inner.chain(std::iter::once(self.leaf_first + leaf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ycsb_paper_table_has_the_papers_size() {
        // D2FS §8.1: 16 M records of 8 KiB make a 175 GB MySQL database.
        let rec = 10 * 800 + 23 + 10 + CLUSTERED_OVERHEAD;
        let ix = Index::new(3, 16_000_000, rec, 23, FILL_RANDOM);
        let gb = ix.pages() as f64 * 16384.0 / 1e9;
        assert!((170.0..200.0).contains(&gb), "{gb} GB");
        assert_eq!(ix.depth(), 4);
    }

    #[test]
    fn paths_walk_root_to_leaf_in_range() {
        let ix = Index::new(3, 100_000, 100, 8, FILL_SEQUENTIAL);
        let p: Vec<u64> = ix.path(ix.leaves - 1).collect();
        assert_eq!(p.len(), ix.depth());
        assert_eq!(p[0], 3, "the root is the index's first page");
        assert_eq!(*p.last().unwrap(), ix.end_page() - 1);
        assert!(p.iter().all(|&x| x >= 3 && x < ix.end_page()));
        assert_eq!(ix.leaf_of(0), 0);
        assert_eq!(ix.leaf_of(99_999), ix.leaves - 1);
    }
}
