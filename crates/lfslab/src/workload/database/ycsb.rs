//! YCSB's core workloads (brianfrankcooper/YCSB, core/.../CoreWorkload.java
//! and workloads/workloada..f) against one InnoDB table `usertable`.
//!
//! The generators are YCSB's: `ScrambledZipfianGenerator` (Gray et al.'s
//! zipfian over 10^10 items with zetan 26.46902820178302, constant 0.99,
//! then 64-bit FNV and modulo the key count), `SkewedLatestGenerator`,
//! `UniformLongGenerator`, `HotspotIntegerGenerator`; the operation mix is
//! a `DiscreteGenerator` over read, update, insert, scan and
//! read-modify-write; each thread runs `operationcount / threads`
//! operations (the first ones one more). Keys are hashed
//! (`insertorder = hashed`): the B+tree orders them by their FNV hash, so
//! a key's leaf is its hash's rank among the loaded keys.
//!
//! What each operation does in the database (one autocommit statement):
//! read walks the index root to leaf; update walks it and changes one field
//! (`writeallfields = false`) or all; read-modify-write is a read then an
//! update; insert adds a record to its leaf (every leaf's worth of inserts
//! into one leaf splits it: a new page and its parent changed); scan reads
//! from a start key's leaf through `1..=maxscanlength` records.

use super::btree::{Index, CLUSTERED_OVERHEAD, FILL_RANDOM};
use super::innodb::page;
use super::{walk, Step, Txn, Workload};
use crate::sim::SimRng;
use std::collections::BTreeMap;

/// `ZipfianGenerator.ZIPFIAN_CONSTANT`.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// `ScrambledZipfianGenerator.ITEM_COUNT` and its precomputed zeta.
const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// YCSB's `Utils.fnvhash64`.
pub fn fnvhash64(mut val: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h ^= val & 0xff;
        h = h.wrapping_mul(1_099_511_628_211);
        val >>= 8;
    }
    (h as i64).unsigned_abs()
}

fn zeta(from: u64, to: u64, theta: f64, sum: f64) -> f64 {
    (from..to).fold(sum, |s, i| s + 1.0 / ((i + 1) as f64).powf(theta))
}

/// `ZipfianGenerator` (Gray et al., "Quickly generating billion-record
/// synthetic databases", SIGMOD 1994), whose item count may grow.
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
}

impl Zipfian {
    pub fn new(items: u64, theta: f64) -> Zipfian {
        Self::with_zetan(items, theta, zeta(0, items, theta, 0.0))
    }
    fn with_zetan(items: u64, theta: f64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(0, 2, theta, 0.0);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Zipfian { items, theta, zetan, alpha, eta }
    }
    /// `nextLong(itemcount)`: a value in `[0, items)`, 0 the most popular.
    pub fn next(&mut self, rng: &mut SimRng, items: u64) -> u64 {
        if items != self.items {
            // YCSB recomputes zeta incrementally when the count grows.
            let z = if items > self.items { zeta(self.items, items, self.theta, self.zetan) } else { zeta(0, items, self.theta, 0.0) };
            *self = Self::with_zetan(items, self.theta, z);
        }
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        ((items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64).min(items - 1)
    }
}

/// `requestdistribution`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RequestDistribution {
    Zipfian,
    Uniform,
    Latest,
    /// hotspotdatafraction, hotspotopnfraction.
    Hotspot(f64, f64),
}

impl RequestDistribution {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "zipfian" => Ok(Self::Zipfian),
            "uniform" => Ok(Self::Uniform),
            "latest" => Ok(Self::Latest),
            "hotspot" => Ok(Self::Hotspot(0.2, 0.8)),
            _ => Err(format!("{s:?}: choose zipfian, uniform, latest or hotspot")),
        }
    }
}

/// A resolved YCSB workload.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct YcsbSpec {
    pub workload: String,
    pub recordcount: u64,
    pub operationcount: u64,
    pub fieldcount: u64,
    pub fieldlength: u64,
    pub writeallfields: bool,
    /// read, update, insert, scan, read-modify-write.
    pub proportions: [f64; 5],
    pub distribution: RequestDistribution,
    pub maxscanlength: u64,
}

/// Core workload presets: (read, update, insert, scan, rmw, distribution).
pub fn preset(name: &str) -> Option<([f64; 5], &'static str)> {
    Some(match name {
        "a" => ([0.5, 0.5, 0.0, 0.0, 0.0], "zipfian"),
        "b" => ([0.95, 0.05, 0.0, 0.0, 0.0], "zipfian"),
        "c" => ([1.0, 0.0, 0.0, 0.0, 0.0], "zipfian"),
        "d" => ([0.95, 0.0, 0.05, 0.0, 0.0], "latest"),
        "e" => ([0.0, 0.0, 0.05, 0.95, 0.0], "zipfian"),
        "f" => ([0.5, 0.0, 0.0, 0.0, 0.5], "zipfian"),
        // ScaleLFS §5: update-only.
        "update-only" => ([0.0, 1.0, 0.0, 0.0, 0.0], "zipfian"),
        // D2FS §8.1: "YCSB-A consists of 20% read and 80% update. YCSB-F
        // consists of 20% read and 80% read-modify-write."
        "d2fs-a" => ([0.2, 0.8, 0.0, 0.0, 0.0], "zipfian"),
        "d2fs-f" => ([0.2, 0.0, 0.0, 0.0, 0.8], "zipfian"),
        _ => return None,
    })
}
pub const PRESETS: [&str; 9] = ["a", "b", "c", "d", "e", "f", "update-only", "d2fs-a", "d2fs-f"];

const OPS: [&str; 5] = ["read", "update", "insert", "scan", "read-modify-write"];
/// Bytes of a YCSB key ("user" and up to 19 digits).
const KEY_BYTES: u64 = 23;
/// Redo per change, an assumption: the new column values, the undo
/// record's copy of the old ones, and about 64 bytes of log headers.
fn redo_bytes(changed: u64) -> u32 {
    (2 * changed + 64) as u32
}

/// The table's contents as the workload needs them.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ycsb {
    pub spec: YcsbSpec,
    pub index: Index,
    /// File index of usertable.ibd in the engine's files.
    file: usize,
    /// Rank of each loaded key in the index's key order.
    rank: Vec<u32>,
    /// Keys inserted so far (`transactioninsertkeysequence`).
    inserted: u64,
    /// Inserts each leaf took since its last split, and split pages made.
    leaf_inserts: BTreeMap<u64, u32>,
    next_page: u64,
    #[serde(skip)]
    gen: Option<Generators>,
    /// Operations left per thread.
    left: Vec<u64>,
}

#[derive(Clone, Debug)]
struct Generators {
    zipf: Zipfian,
    /// Only for `latest` (its zeta is a sum over every record).
    latest: Option<Zipfian>,
}

impl Ycsb {
    pub fn record_bytes(spec: &YcsbSpec) -> u64 {
        // Columns, a length byte per field (two past 127 bytes), the key,
        // and the clustered record's transaction fields.
        let len_bytes = if spec.fieldlength > 127 { 2 } else { 1 };
        spec.fieldcount * (spec.fieldlength + len_bytes) + KEY_BYTES + CLUSTERED_OVERHEAD
    }

    /// usertable's primary key (pages 0-2 are the tablespace's own).
    pub fn new_index(spec: &YcsbSpec) -> Index {
        Index::new(3, spec.recordcount, Self::record_bytes(spec), KEY_BYTES, FILL_RANDOM)
    }

    /// The table after YCSB's load phase: its index geometry and key ranks.
    pub fn new(spec: YcsbSpec, file: usize, threads: u32) -> Ycsb {
        let index = Self::new_index(&spec);
        let mut order: Vec<(u64, u32)> = (0..spec.recordcount).map(|k| (fnvhash64(k), k as u32)).collect();
        order.sort_unstable();
        let mut rank = vec![0u32; spec.recordcount as usize];
        for (r, &(_, k)) in order.iter().enumerate() {
            rank[k as usize] = r as u32;
        }
        let t = threads as u64;
        let left = (0..t).map(|i| spec.operationcount / t + u64::from(i < spec.operationcount % t)).collect();
        let next_page = index.end_page();
        Ycsb { spec, index, file, rank, inserted: 0, leaf_inserts: BTreeMap::new(), next_page, gen: None, left }
    }

    /// Pages the loaded table holds.
    pub fn table_pages(&self) -> u64 {
        self.index.end_page()
    }

    fn records(&self) -> u64 {
        self.spec.recordcount + self.inserted
    }

    fn leaf_of_key(&self, key: u64) -> u64 {
        match self.rank.get(key as usize) {
            Some(&r) => self.index.leaf_of(r as u64),
            // An inserted key lands where its hash falls among the loaded ones.
            None => ((fnvhash64(key) as u128 * self.index.leaves as u128) >> 63) as u64,
        }
    }

    /// `CoreWorkload.nextKeynum`.
    fn next_key(&mut self, rng: &mut SimRng) -> u64 {
        let records = self.records();
        let expected_new = (self.spec.operationcount as f64 * self.spec.proportions[2] * 2.0) as u64;
        let latest = self.spec.distribution == RequestDistribution::Latest;
        let g = self.gen.get_or_insert_with(|| Generators {
            zipf: Zipfian::with_zetan(SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
            latest: latest.then(|| Zipfian::new(records.max(2), ZIPFIAN_CONSTANT)),
        });
        loop {
            let k = match self.spec.distribution {
                RequestDistribution::Uniform => rng.below(records),
                RequestDistribution::Zipfian => {
                    let v = g.zipf.next(rng, SCRAMBLED_ITEMS);
                    fnvhash64(v) % (self.spec.recordcount + expected_new).max(1)
                }
                RequestDistribution::Latest => {
                    let max = records - 1;
                    let z = g.latest.as_mut().expect("built for latest");
                    max - z.next(rng, records.max(2)).min(max)
                }
                RequestDistribution::Hotspot(data, opn) => {
                    let hot = ((records as f64 * data) as u64).max(1);
                    if rng.next_f64() < opn {
                        rng.below(hot)
                    } else {
                        hot + rng.below((records - hot).max(1))
                    }
                }
            };
            if k < records {
                return k;
            }
        }
    }

    fn lookup(&self, leaf: u64, steps: &mut Vec<Step>, change: Option<u32>) {
        walk(steps, self.file, &self.index, leaf, change);
    }

    fn changed_bytes(&self) -> u64 {
        if self.spec.writeallfields {
            self.spec.fieldcount * self.spec.fieldlength
        } else {
            self.spec.fieldlength
        }
    }

}

impl Workload for Ycsb {
    fn op_names(&self) -> Vec<String> {
        OPS.iter().map(|s| s.to_string()).collect()
    }

    fn next_txn(&mut self, thread: usize, rng: &mut SimRng, txn: &mut Txn) -> bool {
        if self.left[thread] == 0 {
            return false;
        }
        self.left[thread] -= 1;
        txn.steps.clear();
        let p = &self.spec.proportions;
        let mut x = rng.next_f64() * p.iter().sum::<f64>();
        let mut op = 0;
        while op < 4 && x >= p[op] {
            x -= p[op];
            op += 1;
        }
        while p[op] == 0.0 {
            op -= 1; // rounding at the top end
        }
        txn.op = op;
        txn.statements = 1;
        match op {
            0 | 1 | 4 => {
                let key = self.next_key(rng);
                let leaf = self.leaf_of_key(key);
                let redo = redo_bytes(self.changed_bytes());
                // read-modify-write: a read, then the update walks again.
                if op == 4 {
                    txn.statements = 2;
                    self.lookup(leaf, &mut txn.steps, None);
                }
                self.lookup(leaf, &mut txn.steps, (op != 0).then_some(redo));
            }
            2 => {
                let key = self.records();
                self.inserted += 1;
                let leaf = self.leaf_of_key(key);
                let rec = Self::record_bytes(&self.spec);
                self.lookup(leaf, &mut txn.steps, Some(redo_bytes(rec / 2)));
                // Every leaf's worth of inserts splits the leaf: a new page
                // at the end of the tablespace, and the parent changes.
                let per_leaf = (self.spec.recordcount / self.index.leaves).max(1) as u32;
                let n = self.leaf_inserts.entry(leaf).or_insert(0);
                *n += 1;
                if *n >= per_leaf {
                    *n = 0;
                    let new = self.next_page;
                    self.next_page += 1;
                    txn.steps.push(Step::Create(page(self.file, new), redo_bytes(PAGE_HALF)));
                    if txn.steps.len() >= 3 {
                        let parent = txn.steps.len() - 3;
                        if let Step::Read(pp) = txn.steps[parent] {
                            txn.steps[parent] = Step::Write(pp, redo_bytes(KEY_BYTES + 4));
                        }
                    }
                }
            }
            _ => {
                let key = self.next_key(rng);
                let len = 1 + rng.below(self.spec.maxscanlength.max(1));
                let start = self.rank.get(key as usize).map_or(0, |&r| r as u64);
                let (first, last) = (self.index.leaf_of(start), self.index.leaf_of(start + len - 1));
                self.lookup(first, &mut txn.steps, None);
                for leaf in first + 1..=last {
                    txn.steps.push(Step::Read(page(self.file, self.index.leaf_page(leaf))));
                }
            }
        }
        true
    }
}

/// Half a page moves to the new page on a split (redo of the moved records).
const PAGE_HALF: u64 = 8192;

#[cfg(test)]
mod tests {
    use super::*;

    const FNV0: u64 = 0x5738_07cd_d7e5_c63b;
    const FNV1: u64 = 0x7632_ced6_e2d5_105c;
    const FNV12345: u64 = 0x18e1_4e7a_1d12_33b4;

    #[test]
    fn fnvhash64_matches_ycsb() {
        // Java: Utils.fnvhash64(0) and (1), computed with YCSB's code.
        // Values of Java's Math.abs over the signed FNV-1 hash of the key's
        // eight little-endian bytes, as YCSB computes them.
        assert_eq!(fnvhash64(0), FNV0);
        assert_eq!(fnvhash64(1), FNV1);
        assert_eq!(fnvhash64(12345), FNV12345);
        assert!(fnvhash64(u64::MAX) < 1 << 63);
    }

    #[test]
    fn zipfian_is_skewed_like_ycsb() {
        let mut z = Zipfian::new(1000, ZIPFIAN_CONSTANT);
        let mut rng = SimRng::new(7);
        let mut hits = [0u64; 1000];
        for _ in 0..200_000 {
            hits[z.next(&mut rng, 1000) as usize] += 1;
        }
        // P(0) = 1 / zeta(1000, 0.99): about 13.4%.
        let p0 = hits[0] as f64 / 200_000.0;
        assert!((0.12..0.15).contains(&p0), "p0 = {p0}");
        assert!(hits[0] > hits[1] && hits[1] > hits[10] && hits[10] > hits[500]);
    }

    fn spec(workload: &str) -> YcsbSpec {
        let (p, d) = preset(workload).unwrap();
        YcsbSpec {
            workload: workload.into(),
            recordcount: 10_000,
            operationcount: 1000,
            fieldcount: 10,
            fieldlength: 100,
            writeallfields: false,
            proportions: p,
            distribution: RequestDistribution::parse(d).unwrap(),
            maxscanlength: 100,
        }
    }

    #[test]
    fn the_mix_follows_the_proportions_and_threads_share_the_count() {
        let mut y = Ycsb::new(spec("d2fs-a"), 3, 3);
        let mut rng = SimRng::new(1);
        let mut txn = Txn::default();
        let mut counts = [0u64; 5];
        let mut n = 0;
        for th in 0..3 {
            while y.next_txn(th, &mut rng, &mut txn) {
                counts[txn.op] += 1;
                n += 1;
                let leaf = txn.steps.last().unwrap();
                match (txn.op, leaf) {
                    (0, Step::Read(_)) | (1, Step::Write(..)) => {}
                    other => panic!("op and leaf step disagree: {other:?}"),
                }
                assert_eq!(txn.steps.len(), y.index.depth());
            }
        }
        assert_eq!(n, 1000);
        let upd = counts[1] as f64 / 1000.0;
        assert!((0.75..0.85).contains(&upd), "update share {upd}");
    }

    #[test]
    fn ranks_are_a_permutation() {
        let y = Ycsb::new(spec("a"), 3, 1);
        let mut r = y.rank.clone();
        r.sort_unstable();
        assert!(r.iter().enumerate().all(|(i, &x)| x as usize == i));
    }
}
