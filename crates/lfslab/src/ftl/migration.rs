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
use crate::slot_index::SlotIndex;
use std::collections::VecDeque;

/// Bytes a record takes in device memory: two 32-bit LBAs.
pub const RECORD_BYTES: u64 = 8;

const SLOT_MASK: u32 = (1 << 31) - 1;

/// A record's slot in `by_old`: its id's low 31 bits. Outstanding ids are
/// contiguous, so the slot and the oldest id give its place in the queue.
fn slot_of(id: u64) -> u32 {
    id as u32 & SLOT_MASK
}

/// The outstanding record an index slot names.
fn record_at(q: &VecDeque<(MigrationRecord, Option<u64>)>, slot: u32) -> &MigrationRecord {
    let front = q.front().expect("an indexed record is outstanding").0.id;
    &q[(slot.wrapping_sub(slot_of(front)) & SLOT_MASK) as usize].0
}

/// The index's key of a slot: its record's old LBA.
fn old_of(q: &VecDeque<(MigrationRecord, Option<u64>)>) -> impl Fn(u32) -> u64 + '_ {
    move |s| record_at(q, s).old.0
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MigrationLog {
    /// Outstanding records in id order, with the upcall carrying each (None = buffered).
    outstanding: VecDeque<(MigrationRecord, Option<u64>)>,
    /// Old LBA -> the newest outstanding record leaving it, by its id's
    /// low 31 bits (`slot_of`; fewer than 2^31 records are outstanding).
    by_old: SlotIndex,
    next_record: u64,
    next_upcall: u64,
    /// Migration SQ: upcalls placed for the host and not yet fetched.
    sq: VecDeque<Upcall>,
    per_upcall: usize,
    pub peak_outstanding: usize,
    pub records_created: u64,
    pub upcalls_placed: u64,
    /// Memory for `complete`'s result, handed back by `recycle`: a
    /// checkpoint at paper size frees a million records at once.
    #[serde(skip)]
    spare: Vec<MigrationRecord>,
}

impl MigrationLog {
    pub fn new(records_per_upcall: usize) -> Self {
        assert!(records_per_upcall > 0, "an upcall carries at least one record");
        MigrationLog {
            outstanding: VecDeque::new(),
            by_old: SlotIndex::default(),
            next_record: 1,
            next_upcall: 1,
            sq: VecDeque::new(),
            per_upcall: records_per_upcall,
            spare: Vec::new(),
            peak_outstanding: 0,
            records_created: 0,
            upcalls_placed: 0,
        }
    }

    pub fn add(&mut self, old: Lpn, new: Lpn) -> u64 {
        let id = self.next_record;
        self.next_record += 1;
        self.outstanding.push_back((MigrationRecord { id, old, new }, None));
        self.by_old.insert_or_replace(old.0, slot_of(id), old_of(&self.outstanding));
        self.peak_outstanding = self.peak_outstanding.max(self.outstanding.len());
        self.records_created += 1;
        id
    }

    /// Hint that a record leaving `old` is added soon: fetch its index
    /// bucket. Never changes results.
    #[inline]
    pub fn prefetch(&self, old: Lpn) {
        self.by_old.prefetch(old.0);
    }

    /// Where an outstanding record moved `old` to.
    pub fn lookup(&self, old: Lpn) -> Option<Lpn> {
        let slot = self.by_old.get(old.0, old_of(&self.outstanding))?;
        let r = record_at(&self.outstanding, slot);
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
    /// their records are synced and freed. Returns the freed records (give
    /// the vector back with `recycle`).
    pub fn complete(&mut self, upcall: u64) -> Vec<MigrationRecord> {
        let mut synced = std::mem::take(&mut self.spare);
        let sq_front = self.sq.front().map(|q| q.id);
        let n = self.outstanding.iter().take_while(|(_, u)| u.is_some_and(|u| u <= upcall)).count();
        if let Some(&(_, Some(u))) = n.checked_sub(1).and_then(|k| self.outstanding.get(k)) {
            assert!(sq_front.is_none_or(|q| q > u), "upcall {u} completed before the host fetched it");
        }
        let rest = self.outstanding.len() - n;
        // A checkpoint often frees most of the log: then emptying the index
        // (a sequential write) and indexing what stays costs less than a
        // random removal per freed record. The index answers the same.
        if n > rest + self.by_old.buckets() / 64 {
            synced.extend(self.outstanding.drain(..n).map(|(r, _)| r));
            self.by_old.clear();
            for k in 0..rest {
                let r = self.outstanding[k].0;
                self.by_old.insert_or_replace(r.old.0, slot_of(r.id), old_of(&self.outstanding));
            }
            return synced;
        }
        for _ in 0..n {
            let r = self.outstanding.front().expect("counted").0;
            // Unindexed while it is still in the queue, where the index
            // reads keys.
            self.by_old.remove_if(r.old.0, slot_of(r.id), old_of(&self.outstanding));
            self.outstanding.pop_front();
            synced.push(r);
        }
        synced
    }

    /// Keep `v`'s memory for the next `complete`.
    pub fn recycle(&mut self, mut v: Vec<MigrationRecord>) {
        v.clear();
        self.spare = v;
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

    /// Lookups through the index agree with a map of the newest
    /// outstanding record per old LBA, as records come and go (freed one
    /// by one or by rebuilding the index).
    #[test]
    fn lookups_agree_with_a_map_under_churn() {
        let mut rng = crate::sim::SimRng::new(5);
        let mut m = MigrationLog::new(3);
        let mut synced = 0;
        for step in 0..20_000u64 {
            if rng.below(3) > 0 {
                m.add(Lpn(rng.below(300)), Lpn(1_000 + step));
            } else {
                m.place_upcalls();
                let fetched: Vec<u64> = std::iter::from_fn(|| m.fetch()).map(|u| u.id).collect();
                // Up to a random fetched upcall: a completion frees some of
                // the log or most of it (the index is then rebuilt).
                if !fetched.is_empty() {
                    let upto = fetched[rng.below(fetched.len() as u64) as usize];
                    synced += m.complete(upto).len();
                }
            }
            let old = Lpn(rng.below(300));
            let newest = m.after(0).into_iter().rev().find(|r| r.old == old).map(|r| r.new);
            assert_eq!(m.lookup(old), newest, "step {step}");
        }
        assert!(synced > 5_000 && m.peak_outstanding > 20, "synced {synced}, peak {}", m.peak_outstanding);
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
