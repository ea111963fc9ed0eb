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

/// fio-randwrite sizes its device by its flash and its file in bytes, as the
/// D2FS artifact does: both scale with --scale, and each design exports
/// what its device would (a conventional FTL 1/1.07 of the flash, ZNS all).
#[test]
fn scale_keeps_a_flash_sized_device_and_a_byte_sized_file_in_proportion() {
    let file = Scenario::file_from_toml_with(lfslab::scenario::builtin("fio-randwrite").unwrap(), &[]).unwrap();
    let designs = designs_by_name(&["f2fs".into(), "zf2fs".into()]).unwrap();
    let at = |d: usize, scale: f64| compare::scenario_for(&file, &designs[d], scale, Path::new(".")).unwrap();
    for d in 0..2 {
        let (one, two) = (at(d, 1.0), at(d, 2.0));
        assert_eq!(two.ssd.geometry.superblocks(), 2 * one.ssd.geometry.superblocks() - if d == 1 { 5 } else { 0 });
        assert_eq!(two.jobs[0].size_blocks, 2 * one.jobs[0].size_blocks, "a file in bytes scales with the device");
    }
    let (conv, zoned) = (at(0, 1.0), at(1, 1.0));
    assert_eq!(conv.jobs[0].size_blocks, zoned.jobs[0].size_blocks, "the same file on every design");
    assert!(conv.ssd.logical_pages < zoned.ssd.logical_pages);
    let share = |s: &lfslab::scenario::Scenario| s.jobs[0].size_blocks as f64 / s.ssd.logical_pages as f64;
    assert!((share(&conv) - 0.7524).abs() < 0.001 && (share(&zoned) - 0.7031).abs() < 0.001, "{} {}", share(&conv), share(&zoned));
}

#[test]
fn unknown_designs_list_the_valid_ones() {
    let e = designs_by_name(&["btrfs".into()]).unwrap_err().to_string();
    assert!(e.contains("\"btrfs\"") && e.contains("f2fs, f2fs-adaptive, f2fs-lfs, zf2fs, iplfs, d2fs"), "{e}");
}

/// Issue 10's scale invariance at test size: on the built-in fio-randwrite
/// workload, each design's steady IOPS and total WAF at --scale 2 lie
/// within 10% of --scale 1, D2FS's steady IOPS within 13%. D2FS is 12.6%
/// faster at scale 2 (10.3% before its logs started where mkfs.f2fs
/// places them, which moved scale 1 by 1.8% and scale 2 by 0.2%, in no
/// one counter) since its device is sized by its flash (75% of it
/// holds the file, against 70% before, when it was 6%): its checkpoints
/// (dirty-node and invalidated-block triggers, both volume-scaled; the
/// report's D2FS scale note) come 1.7 times as often per written
/// GiB at scale 1, and writers wait on cp_rwsem behind each (9.4 s against
/// 5.9 s per 75 s of run), a share of time that the device, whose speed does
/// not scale, does not shrink. The others are within 3%. Before F2FS's writeback requeued a file swept to its end as
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
            let bound = if x.design == "d2fs" && what == "steady IOPS" { 0.13 } else { 0.10 };
            assert!((1.0 - bound..=1.0 + bound).contains(&r), "{}: {what} {u:.3} at scale 1 but {v:.3} at 2 (ratio {r:.3})", x.design);
        }
    }
}
