//! Migration records and upcalls of Coupled GC (D2FS §4.4, §5).
//!
//! A record `<old LBA, new LBA>` is created for every page CGC remaps. It is
//! *buffered* until placed in an upcall on the migration submission queue,
//! *in flight* until the host reports (after a checkpoint) that its filemap
//! reflects it, then *synced* and freed. While a record is outstanding,
//! reads and discards of the old LBA whose block entry is NULL follow it
//! (read-redirect, discard-redirect). Records are kept in creation order;
//! the host completes upcalls in order, so the outstanding ids are
//! contiguous and a lookup by id is an index.

use crate::nand::Lpn;
use crate::nvme::{MigrationRecord, Upcall};
use std::collections::VecDeque;

/// Bytes a record takes in device memory: two 32-bit LBAs.
pub const RECORD_BYTES: u64 = 8;

/// Records added one after another that leave one section (`key`) at
/// strictly rising old LBAs. Coupled GC copies a victim's live pages in
/// page order and, block-associative (§4.3), a page's offset in its block
/// is its LBA's offset in its section, so one victim's records form one
/// batch; a lookup searches a batch by halving instead of keeping a hash
/// entry per record (a random line per copy at paper size).
///
/// Every record is in one batch, so batches tile the ids: a batch's
/// records run from the end of the batch before it (or, for the front
/// batch, from the oldest outstanding record) to its own `end`.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Batch {
    key: u32,
    /// One past its last record's id.
    end: u64,
    /// The previous batch of the same key (its sequence number plus one; 0: none).
    prev: u64,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MigrationLog {
    /// Outstanding records' old and new LBAs in id order, two 32-bit LBAs
    /// each as the device keeps them (`RECORD_BYTES`); the front's id is
    /// `front_id`, so a record's id is its place.
    outstanding: VecDeque<[u32; 2]>,
    front_id: u64,
    /// Upcalls placed and not completed, in id order: (upcall id, one past
    /// its last record's id). Records after the last one's are buffered.
    inflight: VecDeque<(u64, u64)>,
    /// Batches holding outstanding records, in id order; the front's
    /// sequence number is `first_batch`.
    batches: VecDeque<Batch>,
    first_batch: u64,
    /// Per key, its newest batch (sequence number plus one; 0: none).
    newest: Vec<u64>,
    next_upcall: u64,
    /// Migration SQ: upcalls placed for the host and not yet fetched.
    sq: VecDeque<Upcall>,
    per_upcall: usize,
    pub peak_outstanding: usize,
    pub records_created: u64,
    pub upcalls_placed: u64,
    /// `complete`'s result: (key, records freed) per batch, kept between calls.
    #[serde(skip)]
    freed: Vec<(u32, u32)>,
}

impl MigrationLog {
    pub fn new(records_per_upcall: usize) -> Self {
        assert!(records_per_upcall > 0, "an upcall carries at least one record");
        MigrationLog {
            outstanding: VecDeque::new(),
            front_id: 1,
            inflight: VecDeque::new(),
            batches: VecDeque::new(),
            first_batch: 0,
            newest: Vec::new(),
            next_upcall: 1,
            sq: VecDeque::new(),
            per_upcall: records_per_upcall,
            freed: Vec::new(),
            peak_outstanding: 0,
            records_created: 0,
            upcalls_placed: 0,
        }
    }

    /// One past the newest record's id.
    fn next_record(&self) -> u64 {
        self.front_id + self.outstanding.len() as u64
    }

    /// One past the last record in an upcall (the front's id when none is
    /// in flight: every record before it has been freed).
    fn placed_end(&self) -> u64 {
        self.inflight.back().map_or(self.front_id, |&(_, end)| end)
    }

    fn record(&self, i: usize) -> MigrationRecord {
        let [old, new] = self.outstanding[i];
        MigrationRecord { id: self.front_id + i as u64, old: Lpn(old as u64), new: Lpn(new as u64) }
    }

    /// Record that `old`, in section `key`, moved to `new`.
    pub fn add(&mut self, key: u32, old: Lpn, new: Lpn) -> u64 {
        let lba = |l: Lpn| u32::try_from(l.0).unwrap_or_else(|_| panic!("migration record LBA {} beyond 32 bits", l.0));
        let (old, new) = (lba(old), lba(new));
        let id = self.next_record();
        // The back batch's last record, if still outstanding, is the queue's
        // last (a completion frees records from the front, and batches with them).
        let rises = self.outstanding.back().is_some_and(|r| r[0] < old);
        match self.batches.back_mut() {
            Some(b) if b.key == key && b.end == id && rises => b.end += 1,
            _ => {
                let k = key as usize;
                if self.newest.len() <= k {
                    self.newest.resize(k + 1, 0);
                }
                let seq = self.first_batch + self.batches.len() as u64;
                self.batches.push_back(Batch { key, end: id + 1, prev: self.newest[k] });
                self.newest[k] = seq + 1;
            }
        }
        self.outstanding.push_back([old, new]);
        self.peak_outstanding = self.peak_outstanding.max(self.outstanding.len());
        self.records_created += 1;
        id
    }

    /// Where the newest outstanding record leaving `old` (in section `key`)
    /// moved it.
    pub fn lookup(&self, key: u32, old: Lpn) -> Option<Lpn> {
        if self.outstanding.is_empty() {
            return None;
        }
        let front = self.front_id;
        let mut s = self.newest.get(key as usize).copied().unwrap_or(0);
        // Newest batch first; a batch before `first_batch` has no record left.
        while s > self.first_batch {
            let i = (s - 1 - self.first_batch) as usize;
            let b = self.batches[i];
            // Its outstanding records, rising in old LBA.
            let first = if i == 0 { front } else { self.batches[i - 1].end };
            let (mut lo, mut hi) = ((first - front) as usize, (b.end - front) as usize);
            while lo < hi {
                let mid = (lo + hi) / 2;
                let [o, n] = self.outstanding[mid];
                match (o as u64).cmp(&old.0) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return Some(Lpn(n as u64)),
                }
            }
            s = b.prev;
        }
        None
    }

    pub fn outstanding(&self) -> usize {
        self.outstanding.len()
    }

    pub fn memory_bytes(&self) -> u64 {
        self.outstanding.len() as u64 * RECORD_BYTES
    }

    /// Put every buffered record into upcalls on the SQ; returns how many upcalls were placed.
    pub fn place_upcalls(&mut self) -> usize {
        let mut placed = 0;
        // The buffered records, by place in the queue.
        let mut from = (self.placed_end() - self.front_id) as usize;
        while from < self.outstanding.len() {
            let id = self.next_upcall;
            self.next_upcall += 1;
            let to = (from + self.per_upcall).min(self.outstanding.len());
            let records = (from..to).map(|i| self.record(i)).collect();
            self.sq.push_back(Upcall { id, records });
            self.inflight.push_back((id, self.front_id + to as u64));
            placed += 1;
            from = to;
        }
        self.upcalls_placed += placed as u64;
        placed
    }

    /// The host takes the next upcall from the migration SQ.
    pub fn fetch(&mut self) -> Option<Upcall> {
        self.sq.pop_front()
    }

    pub fn queued_upcalls(&self) -> usize {
        self.sq.len()
    }

    /// The host completed every upcall up to `upcall` (migration CQ entry):
    /// their records are synced and freed. Returns, per batch they left, in
    /// id order, its key and how many of its records were freed; their sum
    /// is the records freed.
    pub fn complete(&mut self, upcall: u64) -> &[(u32, u32)] {
        self.freed.clear();
        let mut new_front = self.front_id;
        while let Some(&(u, end)) = self.inflight.front().filter(|&&(u, _)| u <= upcall) {
            assert!(self.sq.front().is_none_or(|q| q.id > u), "upcall {u} completed before the host fetched it");
            new_front = end;
            self.inflight.pop_front();
        }
        let mut start = self.front_id;
        for b in &self.batches {
            if start >= new_front {
                break;
            }
            // A batch is one section's records: fewer than 2^32.
            self.freed.push((b.key, (b.end.min(new_front) - start) as u32));
            start = b.end;
        }
        self.outstanding.drain(..(new_front - self.front_id) as usize);
        self.front_id = new_front;
        while self.batches.front().is_some_and(|b| b.end <= new_front) {
            self.batches.pop_front();
            self.first_batch += 1;
        }
        &self.freed
    }

    /// Outstanding records after `last` (crash recovery re-submission, §7).
    pub fn after(&self, last: u64) -> Vec<MigrationRecord> {
        let skip = last.saturating_add(1).saturating_sub(self.front_id).min(self.outstanding.len() as u64) as usize;
        (skip..self.outstanding.len()).map(|i| self.record(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests' sections: 32 LBAs each.
    fn add(m: &mut MigrationLog, old: u64, new: u64) {
        m.add((old / 32) as u32, Lpn(old), Lpn(new));
    }
    fn lookup(m: &MigrationLog, old: u64) -> Option<Lpn> {
        m.lookup((old / 32) as u32, Lpn(old))
    }

    #[test]
    fn records_flow_buffered_inflight_synced() {
        let mut m = MigrationLog::new(2);
        for i in 0..5 {
            add(&mut m, 100 + i, 200 + i);
        }
        assert_eq!(lookup(&m, 102), Some(Lpn(202)));
        assert_eq!(m.place_upcalls(), 3);
        let a = m.fetch().unwrap();
        let b = m.fetch().unwrap();
        assert_eq!((a.records.len(), b.records.len()), (2, 2));
        assert_eq!(a.records[0].id, 1);
        let freed: u64 = m.complete(b.id).iter().map(|&(_, n)| n as u64).sum();
        assert_eq!(freed, 4);
        assert_eq!(lookup(&m, 100), None);
        assert_eq!(lookup(&m, 104), Some(Lpn(204)));
        assert_eq!(m.after(4).len(), 1);
        assert_eq!(m.peak_outstanding, 5);
    }

    #[test]
    fn a_second_placement_takes_only_the_records_added_since() {
        let mut m = MigrationLog::new(4);
        add(&mut m, 1, 10);
        add(&mut m, 2, 20);
        assert_eq!(m.place_upcalls(), 1);
        assert_eq!(m.place_upcalls(), 0, "nothing buffered");
        add(&mut m, 3, 30);
        assert_eq!(m.place_upcalls(), 1);
        let ids: Vec<Vec<u64>> = std::iter::from_fn(|| m.fetch()).map(|u| u.records.iter().map(|r| r.id).collect()).collect();
        assert_eq!(ids, vec![vec![1, 2], vec![3]]);
    }

    /// Lookups through the batches agree with a map of the newest
    /// outstanding record per old LBA, as records come and go (a
    /// completion frees part of a batch, or all of some).
    #[test]
    fn lookups_agree_with_a_map_under_churn() {
        let mut rng = crate::sim::SimRng::new(5);
        let mut m = MigrationLog::new(3);
        let mut synced = 0;
        let mut old = 0;
        for step in 0..20_000u64 {
            if rng.below(3) > 0 {
                // Mostly rising runs within a section (one victim's
                // copies), sometimes a jump anywhere (a new victim).
                old = if rng.below(8) == 0 { rng.below(300) } else { old + 1 + rng.below(3) } % 300;
                add(&mut m, old, 1_000 + step);
            } else {
                m.place_upcalls();
                let fetched: Vec<u64> = std::iter::from_fn(|| m.fetch()).map(|u| u.id).collect();
                // Up to a random fetched upcall: a completion frees some of
                // the log or most of it.
                if !fetched.is_empty() {
                    let upto = fetched[rng.below(fetched.len() as u64) as usize];
                    let before = m.after(0);
                    // Each freed record's section, in id order, from the
                    // batches' counts: those of the records that left.
                    let keys: Vec<u64> =
                        m.complete(upto).iter().flat_map(|&(k, n)| std::iter::repeat_n(k as u64, n as usize)).collect();
                    let left: Vec<u64> = before[..before.len() - m.outstanding()].iter().map(|r| r.old.0 / 32).collect();
                    assert_eq!(keys, left, "step {step}");
                    synced += keys.len();
                }
            }
            let q = rng.below(300);
            let newest = m.after(0).into_iter().rev().find(|r| r.old == Lpn(q)).map(|r| r.new);
            assert_eq!(lookup(&m, q), newest, "step {step}");
        }
        assert!(synced > 5_000 && m.peak_outstanding > 20, "synced {synced}, peak {}", m.peak_outstanding);
        let batches = m.first_batch + m.batches.len() as u64;
        assert!(batches * 2 < m.records_created, "{batches} batches for {} records", m.records_created);
    }

    #[test]
    fn newest_record_wins_lookup_and_survives_sync_of_older() {
        let mut m = MigrationLog::new(256);
        add(&mut m, 1, 10);
        m.place_upcalls();
        let u = m.fetch().unwrap();
        add(&mut m, 1, 20);
        assert_eq!(lookup(&m, 1), Some(Lpn(20)));
        m.complete(u.id);
        assert_eq!(lookup(&m, 1), Some(Lpn(20)));
    }
}
