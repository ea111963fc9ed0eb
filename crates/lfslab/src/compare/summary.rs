//! One row per design: the figures a researcher compares first.

use super::DesignRun;
use serde::Serialize;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    pub design: String,
    /// Read + write IOPS of all jobs over the measured phase.
    pub iops: f64,
    pub mb_s: f64,
    /// IOPS in the last third of the run (after GC has started, when it does).
    pub steady_iops: f64,
    /// Latency percentiles of the busiest direction of the busiest job, µs.
    pub p99_us: f64,
    pub p9999_us: f64,
    pub fs_waf: f64,
    pub ftl_waf: f64,
    pub total_waf: f64,
    pub ftl_memory_bytes: u64,
    /// Time writers were blocked by foreground FS GC or free-section faults.
    pub stall_s: f64,
    /// Foreground FS GC rounds + free-section faults.
    pub stalls: u64,
    pub device_gc_victims: u64,
    pub mismatches: u64,
}

impl SummaryRow {
    pub fn of(r: &DesignRun) -> SummaryRow {
        let rep = &r.report;
        let secs = rep.sim.measured_sim_time_s.max(1e-9);
        let (mut ios, mut bytes) = (0u64, 0u64);
        for j in &rep.jobs {
            for d in [&j.read, &j.write] {
                ios += d.total_ios;
                bytes += d.io_bytes;
            }
        }
        let busiest = rep
            .jobs
            .iter()
            .flat_map(|j| [&j.read, &j.write])
            .max_by_key(|d| d.total_ios)
            .map(|d| d.lat_ns.clone())
            .unwrap_or_default();
        let ts = &rep.timeseries;
        let tail = if ts.len() >= 3 { &ts[ts.len() * 2 / 3..ts.len() - 1] } else { &ts[..] };
        let width = if ts.len() > 1 { ts[1].t_s - ts[0].t_s } else { secs };
        let steady = if tail.is_empty() { 0.0 } else { tail.iter().map(|b| b.ios as f64).sum::<f64>() / tail.len() as f64 / width };
        let (fs_waf, total_waf, stall_ns, stalls) = match &rep.fs {
            Some(f) => (
                f.fs_waf,
                f.total_waf,
                f.counters.fg_gc_stall_ns + f.counters.fault_stall_ns + f.counters.write_stall_ns,
                f.counters.gc_fg_count + f.counters.free_section_faults + f.counters.write_stalls,
            ),
            None => (1.0, rep.ftl.waf, 0, 0),
        };
        let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
        SummaryRow {
            design: r.design.clone(),
            iops: r3(ios as f64 / secs),
            mb_s: r3(bytes as f64 / secs / 1e6),
            steady_iops: r3(steady),
            p99_us: r3(busiest.at(99.0) as f64 / 1e3),
            p9999_us: r3(busiest.at(99.99) as f64 / 1e3),
            fs_waf,
            ftl_waf: rep.ftl.waf,
            total_waf,
            ftl_memory_bytes: rep.device.mapping_memory_bytes,
            stall_s: r3(stall_ns as f64 / 1e9),
            stalls,
            device_gc_victims: rep.ftl.counters.gc_count,
            mismatches: rep.oracle.mismatches_count,
        }
    }
}

fn mib(b: u64) -> String {
    format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
}

/// The terminal table.
pub fn summary_table(rows: &[SummaryRow]) -> String {
    let mut s = String::new();
    // Labels longer than a design name (reproduce's runs) widen the column.
    let w = rows.iter().map(|r| r.design.len()).max().unwrap_or(0).max(10);
    let _ = writeln!(
        s,
        "{:<w$} {:>10} {:>12} {:>10} {:>12} {:>7} {:>8} {:>9} {:>11} {:>16}",
        "design", "IOPS", "steady IOPS", "p99 us", "p99.99 us", "FS-WAF", "FTL-WAF", "total WAF", "FTL memory", "stalls (time)"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<w$} {:>10.0} {:>12.0} {:>10.1} {:>12.1} {:>7.3} {:>8.3} {:>9.3} {:>11} {:>16}",
            r.design,
            r.iops,
            r.steady_iops,
            r.p99_us,
            r.p9999_us,
            r.fs_waf,
            r.ftl_waf,
            r.total_waf,
            mib(r.ftl_memory_bytes),
            format!("{} ({:.2}s)", r.stalls, r.stall_s),
        );
    }
    s
}

pub fn summary_csv(rows: &[SummaryRow]) -> String {
    let mut s = String::from(
        "design,iops,mb_s,steady_iops,p99_us,p9999_us,fs_waf,ftl_waf,total_waf,ftl_memory_bytes,stalls,stall_s,device_gc_victims,mismatches\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.design,
            r.iops,
            r.mb_s,
            r.steady_iops,
            r.p99_us,
            r.p9999_us,
            r.fs_waf,
            r.ftl_waf,
            r.total_waf,
            r.ftl_memory_bytes,
            r.stalls,
            r.stall_s,
            r.device_gc_victims,
            r.mismatches
        );
    }
    s
}
