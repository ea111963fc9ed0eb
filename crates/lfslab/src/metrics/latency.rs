//! Latency histograms (HdrHistogram, 3 significant digits, ns resolution)
//! and their fio-style summary.

use crate::sim::SimDuration;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// fio's default clat percentiles, plus the maximum (100).
pub const PERCENTILES: [f64; 18] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 100.0];

#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    h: Histogram<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        // 1 ns .. 1 hour at 3 significant digits. Fixed bounds: an
        // auto-resizing histogram clamps under `saturating_record`.
        LatencyHistogram { h: Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 3).expect("valid bounds") }
    }

    #[inline]
    pub fn record(&mut self, d: SimDuration) {
        self.h.saturating_record(d.ns().max(1));
    }

    pub fn count(&self) -> u64 {
        self.h.len()
    }

    /// Add `other`'s samples (fio's group_reporting).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        self.h.add(&other.h).expect("histograms share their bounds");
    }

    pub fn value_at_percentile(&self, p: f64) -> u64 {
        if self.h.is_empty() {
            0
        } else {
            self.h.value_at_percentile(p)
        }
    }

    pub fn summary(&self) -> LatencySummary {
        let mut percentile = BTreeMap::new();
        for p in PERCENTILES {
            percentile.insert(format!("{p:.6}"), self.value_at_percentile(p));
        }
        LatencySummary {
            min: if self.h.is_empty() { 0 } else { self.h.min() },
            max: if self.h.is_empty() { 0 } else { self.h.max() },
            mean: if self.h.is_empty() { 0.0 } else { (self.h.mean() * 10.0).round() / 10.0 },
            stddev: if self.h.is_empty() { 0.0 } else { (self.h.stdev() * 10.0).round() / 10.0 },
            n: self.h.len(),
            percentile,
        }
    }

    /// (latency_ns, cumulative fraction) points for a CDF plot.
    pub fn cdf(&self, points: usize) -> Vec<(u64, f64)> {
        if self.h.is_empty() {
            return Vec::new();
        }
        (1..=points)
            .map(|i| {
                let q = i as f64 / points as f64;
                (self.h.value_at_quantile(q), q)
            })
            .collect()
    }
}

/// fio's `clat_ns` layout: min, max, mean, stddev, N, and percentiles keyed "99.990000".
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    pub percentile: BTreeMap<String, u64>,
}

impl LatencySummary {
    pub fn at(&self, p: f64) -> u64 {
        self.percentile.get(&format!("{p:.6}")).copied().unwrap_or(0)
    }

    /// The same samples less a constant (fio's clat is lat less slat).
    pub fn less(&self, ns: u64) -> LatencySummary {
        if self.n == 0 {
            return self.clone();
        }
        LatencySummary {
            min: self.min.saturating_sub(ns),
            max: self.max.saturating_sub(ns),
            mean: ((self.mean - ns as f64).max(0.0) * 10.0).round() / 10.0,
            stddev: self.stddev,
            n: self.n,
            percentile: self.percentile.iter().map(|(k, &v)| (k.clone(), v.saturating_sub(ns))).collect(),
        }
    }

    /// `n` samples of exactly `ns` (a fixed cost such as the submission's).
    pub fn constant(ns: u64, n: u64) -> LatencySummary {
        let v = if n == 0 { 0 } else { ns };
        LatencySummary {
            min: v,
            max: v,
            mean: v as f64,
            stddev: 0.0,
            n,
            percentile: PERCENTILES.iter().map(|p| (format!("{p:.6}"), v)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_distribution() {
        let mut h = LatencyHistogram::new();
        for i in 1..=10_000u64 {
            h.record(SimDuration(i * 1000));
        }
        let s = h.summary();
        assert_eq!(s.n, 10_000);
        // 3 significant digits: within 0.1%.
        let p50 = s.at(50.0) as f64;
        assert!((p50 - 5_000_000.0).abs() / 5e6 < 0.002, "{p50}");
        let p9999 = s.at(99.99) as f64;
        assert!((p9999 - 9_999_000.0).abs() / 1e7 < 0.002, "{p9999}");
        assert_eq!(h.cdf(4).len(), 4);
        assert!(LatencyHistogram::new().summary().percentile.values().all(|&v| v == 0));
    }
}
