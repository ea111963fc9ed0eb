//! The host's CPU cores (ScaleLFS §5: 24 physical / 48 logical cores; round2
//! spec §1.5, G1). Application threads' submit and completion bursts and
//! the filesystem's GC workers each book a core for their CPU time; a burst
//! that finds every core busy waits for the earliest free one. Each core is
//! a gap calendar because a call runs whole at its start instant, so bursts
//! are booked out of time order. `cores = 0` is unlimited: nothing waits,
//! and busy time is still counted for the utilisation series.
//!
//! Simplified: no scheduler quantum or preemption, and a blocked thread
//! books nothing (it sleeps); the CPU a filesystem call spends inside the
//! call (syscall, per-block copy) stays on the calling thread's own clock.

use crate::sim::{Calendar, SimDuration, SimTime};

/// Width of the utilisation series' buckets.
pub const CPU_BUCKET: SimDuration = SimDuration(1_000_000_000);

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct CpuPool {
    cores: Vec<Calendar>,
    /// Busy core-nanoseconds per `CPU_BUCKET` of simulated time.
    busy: Vec<u64>,
    total_busy_ns: u64,
    /// Count busy time (off: an unlimited pool nobody reads costs nothing).
    track: bool,
}

impl CpuPool {
    /// `cores` cores; 0 = unlimited.
    pub fn new(cores: u32) -> Self {
        CpuPool { cores: vec![Calendar::default(); cores as usize], busy: Vec::new(), total_busy_ns: 0, track: true }
    }

    /// Unlimited cores and no busy accounting: bursts take their own time.
    pub fn untracked() -> Self {
        CpuPool { track: false, ..Self::default() }
    }

    /// Whether busy time is counted (the pool is read by a report).
    pub fn tracked(&self) -> bool {
        self.track
    }

    /// Cores in the pool (0 = unlimited).
    pub fn cores(&self) -> u32 {
        self.cores.len() as u32
    }

    /// Run a burst of `d` at or after `at` on the core free earliest;
    /// returns when it ends.
    pub fn run(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        if d.0 == 0 || !self.track {
            return at + d;
        }
        // The earliest fit, lowest core first among equals. No fit is
        // before `at`, so the first core free at `at` ends the search: with
        // the pool mostly idle, that is one or two lookups, not one per core.
        let mut best: Option<(SimTime, usize)> = None;
        for (i, c) in self.cores.iter().enumerate() {
            let s = c.fit(at, d);
            if best.is_none_or(|b| (s, i) < b) {
                best = Some((s, i));
            }
            if s == at {
                break;
            }
        }
        let start = match best {
            None => at,
            Some((s, i)) => {
                let end = self.cores[i].reserve(s, d);
                debug_assert_eq!(end, s + d, "core {i} booked away from its fit");
                s
            }
        };
        self.note_busy(start, d);
        start + d
    }

    /// Count `d` of busy time from `start` without booking a core (work
    /// whose timing another resource already decided, e.g. under a lock).
    pub fn account(&mut self, start: SimTime, d: SimDuration) {
        if self.track {
            self.note_busy(start, d);
        }
    }

    fn note_busy(&mut self, start: SimTime, d: SimDuration) {
        self.total_busy_ns += d.0;
        let (mut t, end) = (start.0, start.0 + d.0);
        while t < end {
            let b = (t / CPU_BUCKET.0) as usize;
            let bucket_end = (b as u64 + 1) * CPU_BUCKET.0;
            let part = end.min(bucket_end) - t;
            if self.busy.len() <= b {
                self.busy.resize(b + 1, 0);
            }
            self.busy[b] += part;
            t += part;
        }
    }

    pub fn total_busy_ns(&self) -> u64 {
        self.total_busy_ns
    }

    /// Utilisation per `CPU_BUCKET` in percent of `cores` (of the busiest
    /// bucket's demand when unlimited, so the series still shows its shape).
    pub fn utilisation_pct(&self, cores: u32) -> Vec<f64> {
        let cap = CPU_BUCKET.0 as f64 * cores.max(1) as f64;
        self.busy.iter().map(|&b| 100.0 * b as f64 / cap).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_beyond_the_cores_wait_for_the_earliest_free_core() {
        let mut p = CpuPool::new(2);
        let us = |n: u64| SimTime(n * 1000);
        let d = SimDuration(10_000);
        assert_eq!(p.run(us(0), d), us(10));
        assert_eq!(p.run(us(0), d), us(10));
        // Both cores busy until 10 us: the third waits.
        assert_eq!(p.run(us(2), d), us(20));
        // A burst earlier than the third fills no gap (both busy from 0).
        assert_eq!(p.run(us(5), SimDuration(1_000)), us(11));
        assert_eq!(p.total_busy_ns(), 31_000);
    }

    #[test]
    fn unlimited_never_waits_and_counts_busy_time_per_bucket() {
        let mut p = CpuPool::new(0);
        let t = SimTime(CPU_BUCKET.0 - 500);
        assert_eq!(p.run(t, SimDuration(1_000)), t + SimDuration(1_000));
        assert_eq!(p.run(t, SimDuration(1_000)), t + SimDuration(1_000));
        let u = p.utilisation_pct(1);
        assert_eq!(u.len(), 2);
        assert!((u[0] - 100.0 * 1_000.0 / CPU_BUCKET.0 as f64).abs() < 1e-12);
        assert!((u[1] - u[0]).abs() < 1e-12);
    }
}
