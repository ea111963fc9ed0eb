//! The device write buffer (DRAM). A host write completes once its data is
//! in the buffer ("early completion", NVMeVirt WRITE_EARLY_COMPLETION); a
//! slot is released when the program that carries it to flash completes.
//! When the buffer is full, writes wait for the earliest release, which is
//! how NAND bandwidth and GC interference throttle the host. Admission is
//! FIFO: a write is never admitted before an earlier one.

use crate::sim::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WriteBuffer {
    capacity_slots: u32,
    used_slots: u32,
    releases: BinaryHeap<Reverse<(SimTime, u32)>>,
    admit_floor: SimTime,
    drained_at: SimTime,
    full_waits_count: u64,
}

impl WriteBuffer {
    pub fn new(capacity_slots: u32) -> Self {
        assert!(capacity_slots > 0, "write buffer needs at least one slot");
        WriteBuffer {
            capacity_slots,
            used_slots: 0,
            releases: BinaryHeap::new(),
            admit_floor: SimTime::ZERO,
            drained_at: SimTime::ZERO,
            full_waits_count: 0,
        }
    }

    /// Admit one 4 KiB block arriving at `at`; returns when it is in the buffer.
    pub fn admit(&mut self, at: SimTime) -> SimTime {
        let mut t = at.max(self.admit_floor);
        while let Some(&Reverse((r, n))) = self.releases.peek() {
            if r > t && self.used_slots < self.capacity_slots {
                break;
            }
            self.releases.pop();
            self.used_slots -= n;
            if r > t {
                self.full_waits_count += 1;
                t = r;
            }
        }
        assert!(
            self.used_slots < self.capacity_slots,
            "write buffer deadlock: {} of {} slots held by data not yet scheduled for programming",
            self.used_slots,
            self.capacity_slots
        );
        self.used_slots += 1;
        self.admit_floor = t;
        t
    }

    /// `n` slots leave the buffer when their program completes at `done`.
    pub fn release_at(&mut self, done: SimTime, n: u32) {
        self.releases.push(Reverse((done, n)));
        self.drained_at = self.drained_at.max(done);
    }

    pub fn capacity_slots(&self) -> u32 {
        self.capacity_slots
    }

    /// When every program issued so far has completed.
    pub fn drained_at(&self) -> SimTime {
        self.drained_at
    }

    pub fn full_waits_count(&self) -> u64 {
        self.full_waits_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_for_release_when_full() {
        let mut b = WriteBuffer::new(2);
        assert_eq!(b.admit(SimTime(10)), SimTime(10));
        assert_eq!(b.admit(SimTime(11)), SimTime(11));
        b.release_at(SimTime(100), 2);
        // Full: the third block waits for the release at 100.
        assert_eq!(b.admit(SimTime(12)), SimTime(100));
        // FIFO: a later arrival is not admitted before it.
        assert_eq!(b.admit(SimTime(50)), SimTime(100));
        assert_eq!(b.full_waits_count(), 1);
        assert_eq!(b.drained_at(), SimTime(100));
    }

    #[test]
    #[should_panic(expected = "write buffer deadlock")]
    fn deadlock_is_detected() {
        let mut b = WriteBuffer::new(1);
        b.admit(SimTime(0));
        b.admit(SimTime(0));
    }
}
