//! TPC-C (TPC Benchmark C, revision 5.11) as tpcc-mysql runs it, on the
//! InnoDB model: nine tables, one .ibd file each, loaded in key order; the
//! five transactions in the standard mix (New-Order 45%, Payment 43%,
//! Order-Status, Delivery and Stock-Level 4% each, drawn at random) or in
//! tpcc-mysql's (`tpcc_mix = "tpcc-mysql"`: a shared deck of 10:10:1:1:1
//! cards, shuffled when used up, sequence.c); each terminal picks a home
//! warehouse at random per transaction (tpcc-mysql's driver) with no keying
//! or think time.
//!
//! Tables (clause 1.3 row sizes, clause 4.3 cardinalities per warehouse):
//! warehouse 1 x 89 B, district 10 x 95 B, customer 30,000 x 655 B,
//! history 30,000 x 46 B, new_orders 9,000 x 8 B, orders 30,000 x 24 B,
//! order_line 300,000 x 54 B, stock 100,000 x 306 B; item 100,000 x 82 B
//! in all. Secondary indexes are tpcc-mysql's two query indexes:
//! idx_customer (w, d, c_last, c_first) and idx_orders (w, d, c, o).
//! Random input follows clause 2: NURand(1023) customers, NURand(8191)
//! items, NURand(255) last names, 5 to 15 order lines, 1% remote supply
//! warehouses, 15% remote paying customers, 60% of Payment and
//! Order-Status customers chosen by last name.
//!
//! The growing tables (orders, new_orders, order_line, history) insert at
//! the end of each district's key range (history: of the whole table), so
//! each new page is allocated at the file's end.
//!
//! Simplified, and said so: the 1% of New-Orders that roll back commit;
//! the customer of a delivered order and the order an Order-Status reads
//! are drawn uniformly (the model keeps no row values); Stock-Level's
//! ~200 items are drawn from the items' distribution.

use super::btree::{Index, CLUSTERED_OVERHEAD, FILL_SEQUENTIAL};
use super::innodb::page;
use super::{walk, Step, Txn, Workload};
use crate::sim::{SimDuration, SimRng};

#[derive(Clone, Debug, PartialEq)]
pub struct TpccSpec {
    pub warehouses: u64,
    pub runtime: SimDuration,
    /// tpcc-mysql's 10:10:1:1:1 deck instead of the standard random mix.
    pub deck: bool,
}

/// tpcc-mysql's weights (main.c: seq_init(10, 10, 1, 1, 1)).
const DECK: [u8; 5] = [10, 10, 1, 1, 1];

const OPS: [&str; 5] = ["new-order", "payment", "order-status", "delivery", "stock-level"];
/// Clause 5.2.3's minimum mix, New-Order taking the rest.
const MIX: [u64; 5] = [45, 43, 4, 4, 4];

// Tables in file order.
const WAREHOUSE: usize = 0;
const DISTRICT: usize = 1;
const CUSTOMER: usize = 2;
const HISTORY: usize = 3;
const NEW_ORDERS: usize = 4;
const ORDERS: usize = 5;
const ORDER_LINE: usize = 6;
const ITEM: usize = 7;
const STOCK: usize = 8;
const NAMES: [&str; 9] = ["warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock"];

/// Variable-length column lengths and the like, per record.
const VAR: u64 = 4;

/// Redo of changing `bytes` of a row (the same assumption as YCSB's).
fn redo(bytes: u64) -> u32 {
    (2 * bytes + 64) as u32
}
/// Redo of inserting a row (the undo record of an insert is its key only).
fn insert_redo(row: u64) -> u32 {
    (row + 64) as u32
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Table {
    file: usize,
    index: Index,
    secondary: Option<Index>,
    /// Next page a growing table allocates.
    next_page: u64,
    /// Rows per leaf (for the growing tables' new pages).
    rows_per_page: u64,
}

/// Rows a district added to a growing table: the pages holding them, in order.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Growth {
    pages: Vec<u64>,
    rows: u64,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct District {
    next_o_id: u32,
    next_delivery: u32,
    orders: Growth,
    new_orders: Growth,
    lines: Growth,
    /// First line ordinal (in `lines`) and line count of each new order.
    new_order_lines: Vec<(u32, u8)>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Tpcc {
    warehouses: u64,
    tables: Vec<Table>,
    districts: Vec<District>,
    history: Growth,
    /// NURand's run-time constants C for A = 255, 1023, 8191 (clause 2.1.6).
    c: [u64; 3],
    /// tpcc-mysql's shared deck of transaction types, the next card, and
    /// the shuffle's random state; empty for the standard mix.
    deck: Vec<u8>,
    next_card: usize,
    deck_rng: u64,
}

fn tables(w: u64, first_file: usize) -> Vec<Table> {
    // (rows, row bytes, key bytes, secondary index (record bytes) if any)
    let spec: [(u64, u64, u64, Option<u64>); 9] = [
        (w, 89, 2, None),
        (10 * w, 95, 3, None),
        (30_000 * w, 655, 7, Some(2 + 1 + 16 + 16 + 4)),
        // No primary key: InnoDB adds a 6-byte row id.
        (30_000 * w, 46 + 6, 6, None),
        (9_000 * w, 8, 7, None),
        (30_000 * w, 24, 7, Some(2 + 1 + 4 + 4)),
        (300_000 * w, 54, 8, None),
        (100_000, 82, 4, None),
        (100_000 * w, 306, 6, None),
    ];
    spec.iter()
        .enumerate()
        .map(|(i, &(rows, row, key, sec))| {
            let bytes = row + CLUSTERED_OVERHEAD + VAR;
            let index = Index::new(3, rows, bytes, key, FILL_SEQUENTIAL);
            let secondary = sec.map(|s| Index::new(index.end_page(), rows, s, s, FILL_SEQUENTIAL));
            let next_page = secondary.as_ref().map_or(index.end_page(), Index::end_page);
            let rows_per_page = (rows / index.leaves).max(1);
            Table { file: first_file + i, index, secondary, next_page, rows_per_page }
        })
        .collect()
}

impl Tpcc {
    pub fn new(spec: TpccSpec, first_file: usize, rng: &SimRng) -> Tpcc {
        let mut r = rng.fork("tpcc-constants");
        let c = [r.below(256), r.below(1024), r.below(8192)];
        let districts = (0..10 * spec.warehouses)
            .map(|_| District { next_o_id: 3001, next_delivery: 2101, ..District::default() })
            .collect();
        let deck = if spec.deck { DECK.iter().enumerate().flat_map(|(t, &n)| std::iter::repeat_n(t as u8, n as usize)).collect() } else { Vec::new() };
        let mut t = Tpcc {
            warehouses: spec.warehouses,
            tables: tables(spec.warehouses, first_file),
            districts,
            history: Growth::default(),
            c,
            next_card: 0,
            deck,
            deck_rng: r.next_u64(),
        };
        t.shuffle();
        t
    }

    /// sequence.c's shuffle of the deck.
    fn shuffle(&mut self) {
        let n = self.deck.len();
        for i in 0..n.saturating_sub(1) {
            let j = i + (crate::sim::splitmix64(&mut self.deck_rng) % (n - i) as u64) as usize;
            self.deck.swap(i, j);
        }
        self.next_card = 0;
    }

    /// The next transaction type: a card of the deck, or the standard mix.
    fn next_type(&mut self, rng: &mut SimRng) -> usize {
        if self.deck.is_empty() {
            let mut x = rng.below(100);
            let mut op = 0;
            while x >= MIX[op] {
                x -= MIX[op];
                op += 1;
            }
            return op;
        }
        if self.next_card >= self.deck.len() {
            self.shuffle();
        }
        self.next_card += 1;
        self.deck[self.next_card - 1] as usize
    }

    /// Pages of all tables after the load.
    pub fn table_pages(spec: &TpccSpec) -> u64 {
        tables(spec.warehouses, 0).iter().map(|t| t.next_page).sum()
    }

    /// (file name, pages) of each table.
    pub fn files(&self) -> Vec<(String, u64)> {
        self.tables.iter().zip(NAMES).map(|(t, n)| (format!("{n}.ibd"), t.next_page)).collect()
    }

    /// NURand(A, x, y) (clause 2.1.6); `ci` picks C.
    fn nurand(&self, rng: &mut SimRng, a: u64, ci: usize, x: u64, y: u64) -> u64 {
        let r1 = rng.below(a + 1);
        let r2 = x + rng.below(y - x + 1);
        (((r1 | r2) + self.c[ci]) % (y - x + 1)) + x
    }
    fn customer_id(&self, rng: &mut SimRng) -> u64 {
        self.nurand(rng, 1023, 1, 1, 3000)
    }
    fn item_id(&self, rng: &mut SimRng) -> u64 {
        self.nurand(rng, 8191, 2, 1, 100_000)
    }
    fn other_warehouse(&self, rng: &mut SimRng, w: u64) -> u64 {
        if self.warehouses == 1 {
            return w;
        }
        let o = rng.below(self.warehouses - 1);
        if o >= w {
            o + 1
        } else {
            o
        }
    }

    /// Root-to-leaf pages of row `row` of `table` (leaf changed if `change`).
    fn row(&self, steps: &mut Vec<Step>, table: usize, row: u64, change: Option<u32>) {
        let t = &self.tables[table];
        walk(steps, t.file, &t.index, t.index.leaf_of(row), change);
    }
    fn secondary(&self, steps: &mut Vec<Step>, table: usize, row: u64, change: Option<u32>) {
        let t = &self.tables[table];
        let ix = t.secondary.as_ref().expect("table has a secondary index");
        walk(steps, t.file, ix, ix.leaf_of(row), change);
    }

    /// Row `n` of a district's (or the history's) added rows, changed.
    /// A row starting a page allocates it at the table's end.
    fn grown(&mut self, steps: &mut Vec<Step>, table: usize, district: Option<usize>, n: u64, r: u32) {
        let t = &self.tables[table];
        // The inner pages above a district's rows: those of its last loaded row.
        let anchor = match district {
            Some(d) => t.index.leaf_of((d as u64 + 1) * (t.index.rows / self.districts.len() as u64) - 1),
            None => t.index.leaves - 1,
        };
        let p: Vec<u64> = t.index.path(anchor).take(t.index.depth() - 1).collect();
        let file = t.file;
        steps.extend(p.iter().map(|&p| Step::Read(page(file, p))));
        let per = t.rows_per_page;
        let g = match district {
            Some(d) => match table {
                ORDERS => &mut self.districts[d].orders,
                NEW_ORDERS => &mut self.districts[d].new_orders,
                _ => &mut self.districts[d].lines,
            },
            None => &mut self.history,
        };
        let idx = (n / per) as usize;
        if idx >= g.pages.len() {
            let t = &mut self.tables[table];
            g.pages.push(t.next_page);
            t.next_page += 1;
            steps.push(Step::Create(page(file, *g.pages.last().expect("pushed")), r));
            // The parent gains a node pointer.
            if let Some(Step::Read(k)) = p.last().map(|&x| Step::Read(page(file, x))) {
                steps.push(Step::Write(k, redo(12)));
            }
        } else {
            steps.push(Step::Write(page(file, g.pages[idx]), r));
        }
        g.rows = g.rows.max(n + 1);
    }

    /// An added row's page, read or changed.
    fn grown_page(&self, steps: &mut Vec<Step>, table: usize, d: usize, n: u64, change: Option<u32>) {
        let t = &self.tables[table];
        let g = match table {
            ORDERS => &self.districts[d].orders,
            NEW_ORDERS => &self.districts[d].new_orders,
            _ => &self.districts[d].lines,
        };
        let Some(&pg) = g.pages.get((n / t.rows_per_page) as usize) else { return };
        let k = page(t.file, pg);
        steps.push(match change {
            Some(r) => Step::Write(k, r),
            None => Step::Read(k),
        });
    }

    /// Order `o` of district `d`: its orders row and its order lines.
    fn order(&self, steps: &mut Vec<Step>, d: usize, o: u32, change: Option<(u32, u32)>) {
        if o <= 3000 {
            let row = d as u64 * 3000 + (o - 1) as u64;
            self.row(steps, ORDERS, row, change.map(|c| c.0));
            // Loaded orders have 5 to 15 lines: 10 on average.
            let first = d as u64 * 30_000 + (o - 1) as u64 * 10;
            self.row(steps, ORDER_LINE, first, change.map(|c| c.1));
            let last = self.tables[ORDER_LINE].index.leaf_of(first + 9);
            if last != self.tables[ORDER_LINE].index.leaf_of(first) {
                let t = &self.tables[ORDER_LINE];
                let k = page(t.file, t.index.leaf_page(last));
                steps.push(change.map_or(Step::Read(k), |c| Step::Write(k, c.1)));
            }
        } else {
            let n = (o - 3001) as u64;
            self.grown_page(steps, ORDERS, d, n, change.map(|c| c.0));
            if let Some(&(first, cnt)) = self.districts[d].new_order_lines.get(n as usize) {
                let per = self.tables[ORDER_LINE].rows_per_page;
                let (a, b) = (first as u64 / per, (first as u64 + cnt as u64 - 1) / per);
                for p in a..=b {
                    self.grown_page(steps, ORDER_LINE, d, p * per, change.map(|c| c.1));
                }
            }
        }
    }

    fn customer(&self, rng: &mut SimRng, steps: &mut Vec<Step>, d: usize, change: Option<u32>) -> u64 {
        // 60% by last name: idx_customer, then the row (clause 2.5.1.2).
        let c = if rng.below(100) < 60 {
            let name = self.nurand(rng, 255, 0, 0, 999);
            self.secondary(steps, CUSTOMER, d as u64 * 3000 + name * 3, None);
            1 + rng.below(3000)
        } else {
            self.customer_id(rng)
        };
        self.row(steps, CUSTOMER, d as u64 * 3000 + c - 1, change);
        c
    }

    fn new_order(&mut self, rng: &mut SimRng, txn: &mut Txn, w: u64, d: usize) {
        let s = &mut txn.steps;
        self.row(s, WAREHOUSE, w, None);
        self.row(s, DISTRICT, d as u64, Some(redo(4)));
        let c = self.customer_id(rng);
        self.row(s, CUSTOMER, d as u64 * 3000 + c - 1, None);
        let o = self.districts[d].next_o_id;
        self.districts[d].next_o_id += 1;
        let n = (o - 3001) as u64;
        self.grown(s, ORDERS, Some(d), n, insert_redo(24));
        self.secondary(s, ORDERS, d as u64 * 3000 + c - 1, Some(insert_redo(11)));
        self.grown(s, NEW_ORDERS, Some(d), n, insert_redo(8));
        let cnt = 5 + rng.below(11);
        let first = self.districts[d].lines.rows;
        self.districts[d].new_order_lines.push((first as u32, cnt as u8));
        for l in 0..cnt {
            let i = self.item_id(rng);
            self.row(s, ITEM, i - 1, None);
            let sw = if rng.below(100) == 0 { self.other_warehouse(rng, w) } else { w };
            self.row(s, STOCK, sw * 100_000 + i - 1, Some(redo(16)));
            self.grown(s, ORDER_LINE, Some(d), first + l, insert_redo(54));
        }
        txn.statements = 5 + 4 * cnt as u32;
    }

    fn payment(&mut self, rng: &mut SimRng, txn: &mut Txn, w: u64, d: usize) {
        let s = &mut txn.steps;
        self.row(s, WAREHOUSE, w, Some(redo(8)));
        self.row(s, DISTRICT, d as u64, Some(redo(8)));
        // 15% pay through a remote warehouse's district (clause 2.5.1.2).
        let cd = if rng.below(100) < 15 { (self.other_warehouse(rng, w) * 10 + rng.below(10)) as usize } else { d };
        // A bad-credit customer (10%) also gets 500 bytes of c_data.
        let changed = if rng.below(10) == 0 { 18 + 500 } else { 18 };
        self.customer(rng, s, cd, Some(redo(changed)));
        let n = self.history.rows;
        self.grown(s, HISTORY, None, n, insert_redo(46));
        txn.statements = 8;
    }

    fn order_status(&self, rng: &mut SimRng, txn: &mut Txn, d: usize) {
        let s = &mut txn.steps;
        let c = self.customer(rng, s, d, None);
        self.secondary(s, ORDERS, d as u64 * 3000 + c - 1, None);
        let o = 1 + rng.below(self.districts[d].next_o_id as u64 - 1) as u32;
        self.order(s, d, o, None);
        txn.statements = 4;
    }

    fn delivery(&mut self, rng: &mut SimRng, txn: &mut Txn, w: u64) {
        let s = &mut txn.steps;
        let mut statements = 0;
        for dd in 0..10 {
            let d = (w * 10 + dd) as usize;
            let dist = &self.districts[d];
            if dist.next_delivery >= dist.next_o_id {
                statements += 1;
                continue;
            }
            let o = dist.next_delivery;
            self.districts[d].next_delivery += 1;
            // Delete the oldest new_orders row.
            if o <= 3000 {
                self.row(s, NEW_ORDERS, d as u64 * 900 + (o - 2101) as u64, Some(redo(8)));
            } else {
                self.grown_page(s, NEW_ORDERS, d, (o - 3001) as u64, Some(redo(8)));
            }
            // o_carrier_id, and every line's ol_delivery_d.
            self.order(s, d, o, Some((redo(1), redo(8 * 10))));
            let c = 1 + rng.below(3000);
            self.row(s, CUSTOMER, d as u64 * 3000 + c - 1, Some(redo(10)));
            statements += 7;
        }
        txn.statements = statements;
    }

    fn stock_level(&self, rng: &mut SimRng, txn: &mut Txn, w: u64, d: usize) {
        let s = &mut txn.steps;
        self.row(s, DISTRICT, d as u64, None);
        let next = self.districts[d].next_o_id;
        let mut lines = 0;
        for o in next.saturating_sub(20).max(1)..next {
            self.order(s, d, o, None);
            lines += 10;
        }
        for _ in 0..lines {
            let i = self.item_id(rng);
            self.row(s, STOCK, w * 100_000 + i - 1, None);
        }
        txn.statements = 2;
    }
}

impl Workload for Tpcc {
    fn op_names(&self) -> Vec<String> {
        OPS.iter().map(|s| s.to_string()).collect()
    }

    fn next_txn(&mut self, _thread: usize, rng: &mut SimRng, txn: &mut Txn) -> bool {
        txn.steps.clear();
        let op = self.next_type(rng);
        txn.op = op;
        let w = rng.below(self.warehouses);
        let d = (w * 10 + rng.below(10)) as usize;
        match op {
            0 => self.new_order(rng, txn, w, d),
            1 => self.payment(rng, txn, w, d),
            2 => self.order_status(rng, txn, d),
            3 => self.delivery(rng, txn, w),
            _ => self.stock_level(rng, txn, w, d),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warehouse_takes_about_what_tpcc_mysql_loads() {
        // D2FS §8.1: 1700 warehouses make a 155 GB database (91 MB each).
        let pages = Tpcc::table_pages(&TpccSpec { warehouses: 1700, runtime: SimDuration::from_secs(1), deck: false });
        let mb_per_wh = pages as f64 * 16384.0 / 1e6 / 1700.0;
        assert!((75.0..100.0).contains(&mb_per_wh), "{mb_per_wh} MB per warehouse");
    }

    #[test]
    fn transactions_touch_their_tables_and_new_orders_grow_them() {
        let spec = TpccSpec { warehouses: 2, runtime: SimDuration::from_secs(1), deck: false };
        let mut t = Tpcc::new(spec, 10, &SimRng::new(3));
        let mut rng = SimRng::new(4);
        let mut txn = Txn::default();
        let mut seen = [0u64; 5];
        for _ in 0..2000 {
            assert!(t.next_txn(0, &mut rng, &mut txn));
            seen[txn.op] += 1;
            let writes = txn.steps.iter().filter(|s| !matches!(s, Step::Read(_))).count();
            match txn.op {
                0 | 1 | 3 => assert!(writes > 0 || txn.op == 3, "op {} changes nothing", OPS[txn.op]),
                _ => assert_eq!(writes, 0, "{} is read-only", OPS[txn.op]),
            }
            for s in &txn.steps {
                let k = match *s {
                    Step::Read(k) | Step::Write(k, _) | Step::Create(k, _) => k,
                };
                let (file, pg) = ((k >> 40) as usize, k & ((1 << 40) - 1));
                assert!((10..19).contains(&file));
                assert!(pg < t.tables[file - 10].next_page, "{} page {pg} past its end", NAMES[file - 10]);
            }
        }
        let no = seen[0] as f64 / 2000.0;
        assert!((0.40..0.50).contains(&no), "new-order share {no}");
        let orders: u32 = t.districts.iter().map(|d| d.next_o_id - 3001).sum();
        assert_eq!(orders as u64, seen[0]);
        assert!(t.tables[ORDER_LINE].next_page > t.tables[ORDER_LINE].index.end_page());
    }

    #[test]
    fn tpcc_mysqls_deck_deals_10_10_1_1_1() {
        let spec = TpccSpec { warehouses: 1, runtime: SimDuration::from_secs(1), deck: true };
        let mut t = Tpcc::new(spec, 10, &SimRng::new(3));
        let mut rng = SimRng::new(4);
        let mut txn = Txn::default();
        let mut seen = [0u64; 5];
        for _ in 0..23 * 40 {
            t.next_txn(0, &mut rng, &mut txn);
            seen[txn.op] += 1;
        }
        assert_eq!(seen, [400, 400, 40, 40, 40]);
    }
}
