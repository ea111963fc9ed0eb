//! Simulator speed (not a test): simulated 4 KiB host writes per wall-clock
//! second on the built-in "bench" scenario (32 GiB 970 Pro model, 4 KiB
//! random writes with device GC active), and peak resident memory.
//! Run: `cargo bench -p lfslab` (set LFSLAB_BENCH_GIB to change the size).

use lfslab::engine::Run;
use lfslab::scenario::{builtin, Scenario};
use std::time::Instant;

fn main() {
    let mut overrides = Vec::new();
    if let Ok(gib) = std::env::var("LFSLAB_BENCH_GIB") {
        overrides.push(format!("device.capacity_gib={gib}"));
        overrides.push(format!("job.0.io_size=\"{gib}g\""));
    }
    let s = Scenario::from_toml_str_with(builtin("bench").expect("built-in"), &overrides).expect("bench scenario");
    let mut run = Run::new(s).expect("bench scenario builds");
    run.precondition().expect("precondition");
    let t = Instant::now();
    run.measure().expect("bench run");
    let wall = t.elapsed().as_secs_f64();
    let report = run.report().expect("report");
    let writes = report.ftl.counters.host_write_slots;
    println!(
        "sim_speed: {writes} simulated 4 KiB random writes with GC active in {wall:.2} s = {:.2} M writes/s (WAF {:.2}, {} GC victims)",
        writes as f64 / wall / 1e6,
        report.ftl.waf,
        report.ftl.counters.gc_count
    );
    if let Some(line) = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_string)
    }) {
        println!("sim_speed: peak RSS {}", line.trim_start_matches("VmHWM:").trim());
    }
}
