//! Measurements and their sinks: latency histograms, throughput time
//! series, the run report (JSON) and its text table.

mod latency;
mod report;
mod timeseries;

pub use latency::{LatencyHistogram, LatencySummary, PERCENTILES};
pub use report::*;
pub use timeseries::{Bucket, ThroughputSeries};
