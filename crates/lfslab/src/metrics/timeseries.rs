//! Throughput over simulated time: fixed-width buckets of host bytes and
//! I/Os, plus FTL counters sampled at bucket boundaries.

use crate::sim::{SimDuration, SimTime};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Bucket {
    /// Bucket start, seconds since the measured phase began.
    pub t_s: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub ios: u64,
    /// NAND slots whose program completed (host + GC + padding) in the bucket.
    pub nand_write_slots: u64,
    /// GC victims whose erase completed in the bucket.
    pub gc_count: u64,
    /// Application operations (database transactions) completed in the bucket.
    #[serde(skip_serializing_if = "is_zero")]
    pub ops: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug)]
pub struct ThroughputSeries {
    start: SimTime,
    interval: SimDuration,
    buckets: Vec<Bucket>,
}

impl ThroughputSeries {
    pub fn new(start: SimTime, interval: SimDuration) -> Self {
        assert!(interval.ns() > 0, "time-series interval must be positive");
        ThroughputSeries { start, interval, buckets: Vec::new() }
    }

    pub fn interval(&self) -> SimDuration {
        self.interval
    }

    fn bucket(&mut self, t: SimTime) -> &mut Bucket {
        let i = (t.saturating_since(self.start).ns() / self.interval.ns()) as usize;
        while self.buckets.len() <= i {
            let t_s = (self.buckets.len() as u64 * self.interval.ns()) as f64 / 1e9;
            self.buckets.push(Bucket { t_s, ..Bucket::default() });
        }
        &mut self.buckets[i]
    }

    #[inline]
    pub fn record_io(&mut self, t: SimTime, read_bytes: u64, write_bytes: u64) {
        let b = self.bucket(t);
        b.read_bytes += read_bytes;
        b.write_bytes += write_bytes;
        b.ios += 1;
    }

    /// An application operation completed at `t`.
    pub fn record_op(&mut self, t: SimTime) {
        self.bucket(t).ops += 1;
    }

    /// Merge per-bucket device activity (same start and interval), up to
    /// the bucket holding `end`; work completing after the run is dropped.
    pub fn add_device_activity(&mut self, program_slots: &[u64], gc_victims: &[u64], end: SimTime) {
        let last = self.index_of(end) as usize;
        self.bucket(end);
        for (i, &n) in program_slots.iter().enumerate().take(last + 1) {
            self.buckets[i].nand_write_slots += n;
        }
        for (i, &n) in gc_victims.iter().enumerate().take(last + 1) {
            self.buckets[i].gc_count += n;
        }
    }

    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }

    /// Bucket index of `t`.
    pub fn index_of(&self, t: SimTime) -> u64 {
        t.saturating_since(self.start).ns() / self.interval.ns()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_by_interval() {
        let mut s = ThroughputSeries::new(SimTime(1000), SimDuration::from_ms(100));
        s.record_io(SimTime(1000), 0, 4096);
        s.record_io(SimTime(1000 + 150_000_000), 4096, 0);
        s.add_device_activity(&[0, 10, 99], &[0, 1], SimTime(1000 + 150_000_000));
        let b = s.buckets();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].write_bytes, 4096);
        assert_eq!(b[1].read_bytes, 4096);
        assert_eq!(b[1].gc_count, 1);
        assert!((b[1].t_s - 0.1).abs() < 1e-12);
    }
}
