//! `compare` at library level: a small deterministic comparison whose
//! summary and JSON schema are golden files (LFSLAB_BLESS=1 rewrites them),
//! plus the scaling rule and design-name errors.

use lfslab::compare::{self, designs_by_name, Comparison, Settings, DESIGNS};
use lfslab::scenario::Scenario;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const WORKLOAD: &str = r#"
name = "small-fio"
[device]
preset = "970pro"
capacity_gib = 4
[[job]]
rw = "randwrite"
# mkfs.f2fs -s 16 leaves 48% of 2 GiB to users (the scale test halves it).
size = "40%"
iodepth = 1
runtime = "8s"
[output]
timeseries_interval_ms = 1000
"#;

fn small() -> Comparison {
    let file = Scenario::file_from_toml_with(WORKLOAD, &[]).unwrap();
    let designs = designs_by_name(&["f2fs".into(), "d2fs".into()]).unwrap();
    compare::run("small-fio", &file, &designs, &Settings::default(), |_, _, _| {}, None).unwrap()
}

/// Designs on parallel threads give the same bits as one after another.
#[test]
fn parallel_designs_match_sequential_runs() {
    let file = Scenario::file_from_toml_with(WORKLOAD, &[]).unwrap();
    let designs = designs_by_name(&["f2fs".into(), "zf2fs".into(), "d2fs".into()]).unwrap();
    let run = |jobs| compare::run("small-fio", &file, &designs, &Settings { jobs, ..Settings::default() }, |_, _, _| {}, None).unwrap();
    assert_eq!(run(2).to_json(), run(1).to_json());
}

/// Every key path in a JSON value, array indices folded to [].
fn paths(v: &Value, prefix: String, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // Percentile keys are data, not schema.
                let key = if prefix.ends_with(".percentile") { "<p>".to_string() } else { k.clone() };
                paths(x, format!("{prefix}.{key}"), out);
            }
        }
        Value::Array(a) => {
            for x in a {
                paths(x, format!("{prefix}[]"), out);
            }
        }
        _ => {
            out.insert(prefix);
        }
    }
}

fn golden(name: &str, got: &str) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("LFSLAB_BLESS").is_some() {
        std::fs::write(&p, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&p).unwrap_or_else(|_| panic!("{} missing: run with LFSLAB_BLESS=1", p.display()));
    assert_eq!(got, want, "{name} changed (LFSLAB_BLESS=1 to accept)");
}

#[test]
fn small_comparison_and_json_schema_are_golden() {
    let c = small();
    assert_eq!(c.summary.len(), 2);
    assert!(c.summary.iter().all(|r| r.mismatches == 0));
    golden("compare_small.summary.txt", &compare::summary_table(&c.summary));
    let v: Value = serde_json::from_str(&c.to_json()).unwrap();
    let mut keys = BTreeSet::new();
    paths(&v, String::new(), &mut keys);
    golden("compare_schema.txt", &keys.into_iter().collect::<Vec<_>>().join("\n"));
    // The report page carries every design, the plots and the scenarios.
    let html = compare::render_html(&c);
    assert_eq!(html.matches("<svg").count(), 8, "6 plots + D2FS regions and record buffer");
    for needle in ["Throughput over time", "Latency CDF", "Write amplification per layer", "FTL mapping memory", "record buffer (Fig. 17)", "resolved scenario"] {
        assert!(html.contains(needle), "report lacks {needle}");
    }
}

#[test]
fn scale_shrinks_capacity_and_runtime_together() {
    let file = Scenario::file_from_toml_with(WORKLOAD, &[]).unwrap();
    let d = &DESIGNS[0];
    let full = compare::scenario_for(&file, d, 1.0, Path::new(".")).unwrap();
    let half = compare::scenario_for(&file, d, 0.5, Path::new(".")).unwrap();
    assert_eq!(half.ssd.logical_pages * 2, full.ssd.logical_pages);
    assert_eq!(half.jobs[0].runtime.unwrap().as_secs_f64() * 2.0, full.jobs[0].runtime.unwrap().as_secs_f64());
    assert!((half.jobs[0].size_blocks * 2).abs_diff(full.jobs[0].size_blocks) <= 2, "sizes in % stay %");
    let e = compare::scenario_for(&file, d, 0.0, Path::new(".")).unwrap_err();
    assert!(e.to_string().contains("--scale"), "{e}");
}

#[test]
fn unknown_designs_list_the_valid_ones() {
    let e = designs_by_name(&["btrfs".into()]).unwrap_err().to_string();
    assert!(e.contains("\"btrfs\"") && e.contains("f2fs, f2fs-adaptive, f2fs-lfs, zf2fs, iplfs, d2fs"), "{e}");
}

/// Issue 10's scale invariance at test size: on the built-in fio-randwrite
/// workload, each design's steady IOPS and total WAF at --scale 2 lie
/// within 10% of --scale 1 (D2FS is the closest to the bound, 8% in
/// steady IOPS: its checkpoints come twice as often per second at scale 1
/// and each waits on a device whose speed does not scale; the others are
/// within 3%). Before F2FS's writeback requeued a file swept to its end as
/// the kernel does, F2FS lost 12% from scale 1 to 2. (Below scale 1 the
/// real mkfs.f2fs -s 16 reserve, about 40 sections whatever the size, is a
/// growing share of the volume: F2FS at 0.5 runs 16% slower than at 1, a
/// size effect the kernel has too.) Before the kernel's SSR, checkpoint and
/// IPU rules, F2FS flipped between GC regimes with scale.
#[test]
fn results_hold_across_scales() {
    let file = Scenario::file_from_toml_with(lfslab::scenario::builtin("fio-randwrite").unwrap(), &[]).unwrap();
    let designs = designs_by_name(&["f2fs".into(), "zf2fs".into(), "iplfs".into(), "d2fs".into()]).unwrap();
    let at = |scale: f64| compare::run("fio-randwrite", &file, &designs, &Settings { scale, jobs: 2, ..Settings::default() }, |_, _, _| {}, None)
            .unwrap();
    let (a, b) = (at(1.0), at(2.0));
    for (x, y) in a.summary.iter().zip(&b.summary) {
        for (what, u, v) in [("steady IOPS", x.steady_iops, y.steady_iops), ("total WAF", x.total_waf, y.total_waf)] {
            let r = v / u;
            assert!((0.90..=1.10).contains(&r), "{}: {what} {u:.3} at scale 1 but {v:.3} at 2 (ratio {r:.3})", x.design);
        }
    }
}
