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
use std::collections::{BTreeMap, VecDeque};

/// Bytes a record takes in device memory: two 32-bit LBAs.
pub const RECORD_BYTES: u64 = 8;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MigrationLog {
    /// Outstanding records in id order, with the upcall carrying each (None = buffered).
    outstanding: VecDeque<(MigrationRecord, Option<u64>)>,
    /// Old LBA -> id of the newest outstanding record leaving it.
    by_old: BTreeMap<u64, u64>,
    next_record: u64,
    next_upcall: u64,
    /// Migration SQ: upcalls placed for the host and not yet fetched.
    sq: VecDeque<Upcall>,
    per_upcall: usize,
    pub peak_outstanding: usize,
    pub records_created: u64,
    pub upcalls_placed: u64,
}

impl MigrationLog {
    pub fn new(records_per_upcall: usize) -> Self {
        assert!(records_per_upcall > 0, "an upcall carries at least one record");
        MigrationLog {
            outstanding: VecDeque::new(),
            by_old: BTreeMap::new(),
            next_record: 1,
            next_upcall: 1,
            sq: VecDeque::new(),
            per_upcall: records_per_upcall,
            peak_outstanding: 0,
            records_created: 0,
            upcalls_placed: 0,
        }
    }

    pub fn add(&mut self, old: Lpn, new: Lpn) -> u64 {
        let id = self.next_record;
        self.next_record += 1;
        self.outstanding.push_back((MigrationRecord { id, old, new }, None));
        self.by_old.insert(old.0, id);
        self.peak_outstanding = self.peak_outstanding.max(self.outstanding.len());
        self.records_created += 1;
        id
    }

    fn get(&self, id: u64) -> Option<&(MigrationRecord, Option<u64>)> {
        let front = self.outstanding.front()?.0.id;
        self.outstanding.get(id.checked_sub(front)? as usize)
    }

    /// Where an outstanding record moved `old` to.
    pub fn lookup(&self, old: Lpn) -> Option<Lpn> {
        let id = *self.by_old.get(&old.0)?;
        let (r, _) = self.get(id).expect("indexed record is outstanding");
        debug_assert_eq!(r.old, old);
        Some(r.new)
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
        // Buffered records are the queue's tail (placing goes front to back
        // and `complete` pops only placed ones): count back from the end, so
        // a call costs what it places, not the records in flight.
        let buffered = self.outstanding.iter().rev().take_while(|(_, u)| u.is_none()).count();
        let mut i = self.outstanding.len() - buffered;
        while i < self.outstanding.len() {
            let id = self.next_upcall;
            self.next_upcall += 1;
            let end = (i + self.per_upcall).min(self.outstanding.len());
            let mut records = Vec::with_capacity(end - i);
            for (r, u) in self.outstanding.range_mut(i..end) {
                *u = Some(id);
                records.push(*r);
            }
            self.sq.push_back(Upcall { id, records });
            placed += 1;
            i = end;
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
    /// their records are synced and freed. Returns the freed records.
    pub fn complete(&mut self, upcall: u64) -> Vec<MigrationRecord> {
        let mut synced = Vec::new();
        while let Some(&(r, Some(u))) = self.outstanding.front() {
            if u > upcall {
                break;
            }
            assert!(
                self.sq.front().is_none_or(|q| q.id > u),
                "upcall {u} completed before the host fetched it"
            );
            self.outstanding.pop_front();
            if self.by_old.get(&r.old.0) == Some(&r.id) {
                self.by_old.remove(&r.old.0);
            }
            synced.push(r);
        }
        synced
    }

    /// Outstanding records after `last` (crash recovery re-submission, §7).
    pub fn after(&self, last: u64) -> Vec<MigrationRecord> {
        self.outstanding.iter().map(|(r, _)| *r).filter(|r| r.id > last).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_flow_buffered_inflight_synced() {
        let mut m = MigrationLog::new(2);
        for i in 0..5 {
            m.add(Lpn(100 + i), Lpn(200 + i));
        }
        assert_eq!(m.lookup(Lpn(102)), Some(Lpn(202)));
        assert_eq!(m.place_upcalls(), 3);
        let a = m.fetch().unwrap();
        let b = m.fetch().unwrap();
        assert_eq!((a.records.len(), b.records.len()), (2, 2));
        assert_eq!(a.records[0].id, 1);
        let freed = m.complete(b.id);
        assert_eq!(freed.len(), 4);
        assert_eq!(m.lookup(Lpn(100)), None);
        assert_eq!(m.lookup(Lpn(104)), Some(Lpn(204)));
        assert_eq!(m.after(4).len(), 1);
        assert_eq!(m.peak_outstanding, 5);
    }

    #[test]
    fn a_second_placement_takes_only_the_records_added_since() {
        let mut m = MigrationLog::new(4);
        m.add(Lpn(1), Lpn(10));
        m.add(Lpn(2), Lpn(20));
        assert_eq!(m.place_upcalls(), 1);
        assert_eq!(m.place_upcalls(), 0, "nothing buffered");
        m.add(Lpn(3), Lpn(30));
        assert_eq!(m.place_upcalls(), 1);
        let ids: Vec<Vec<u64>> = std::iter::from_fn(|| m.fetch()).map(|u| u.records.iter().map(|r| r.id).collect()).collect();
        assert_eq!(ids, vec![vec![1, 2], vec![3]]);
    }

    #[test]
    fn newest_record_wins_lookup_and_survives_sync_of_older() {
        let mut m = MigrationLog::new(256);
        m.add(Lpn(1), Lpn(10));
        m.place_upcalls();
        let u = m.fetch().unwrap();
        m.add(Lpn(1), Lpn(20));
        assert_eq!(m.lookup(Lpn(1)), Some(Lpn(20)));
        m.complete(u.id);
        assert_eq!(m.lookup(Lpn(1)), Some(Lpn(20)));
    }
}
