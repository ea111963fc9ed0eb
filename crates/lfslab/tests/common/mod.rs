//! Shared helpers for scenario-level tests (each test binary uses a subset).
#![allow(dead_code)]

use lfslab::engine;
use lfslab::metrics::RunReport;
use lfslab::scenario::Scenario;

/// A small device with 1 MiB superblocks (4 dies x 64 pages x 4 KiB), so GC
/// granularity is fine enough for steady-state WAF at 256 MiB.
pub fn small_device(op: f64, policy: &str) -> String {
    format!(
        r#"
[device]
preset = "femu"
capacity_gib = 0.25
op = {op}
channels = 4
chips_per_channel = 1
pages_per_block = 64
page_kib = 4

[ftl]
gc_policy = "{policy}"
# The textbook FTL (NVMeVirt's two-superblock threshold, no background
# GC): these tests check flash theory, not FEMU's GC thresholds.
gc_threshold_superblocks = 2
gc_background_pct = 0
"#
    )
}

pub fn run(text: &str) -> RunReport {
    let s = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("scenario rejected: {e}\n{text}"));
    engine::run(s).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Steady-state random-write WAF: fill, age with 2x random overwrites, then
/// measure another 2x of random 4 KiB writes with `distribution`.
pub fn steady_waf(op: f64, policy: &str, distribution: &str) -> RunReport {
    let text = format!(
        r#"{}
[precondition]
fill = 1.0
random_overwrite = 2.0

[[job]]
rw = "randwrite"
bs = "4k"
iodepth = 8
io_size = "512m"
random_distribution = "{distribution}"
"#,
        small_device(op, policy)
    );
    let r = run(&text);
    assert_eq!(r.oracle.mismatches_count, 0);
    r
}
