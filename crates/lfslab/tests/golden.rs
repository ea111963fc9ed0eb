//! Golden scenario tests: each `tests/golden/NAME.toml` runs and its text
//! report must equal `NAME.expected.txt`. Set LFSLAB_BLESS=1 to rewrite the
//! expectations after an intended change; the diff then shows what moved.

use lfslab::engine;
use lfslab::scenario::Scenario;
use std::path::Path;

fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
    let scenario = Scenario::from_toml_str(&text).unwrap();
    let report = engine::run(scenario).unwrap();
    assert_eq!(report.oracle.mismatches_count, 0);
    let got = report.to_text();
    let expected_path = dir.join(format!("{name}.expected.txt"));
    if std::env::var_os("LFSLAB_BLESS").is_some() {
        std::fs::write(&expected_path, &got).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|_| panic!("{} missing: run with LFSLAB_BLESS=1", expected_path.display()));
    if got != expected {
        let diff: Vec<String> = expected
            .lines()
            .zip(got.lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("- {a}\n+ {b}"))
            .collect();
        panic!("{name}: report changed (LFSLAB_BLESS=1 to accept):\n{}", diff.join("\n"));
    }
}

#[test]
fn small_mixed() {
    check("small_mixed");
}

#[test]
fn small_f2fs() {
    check("small_f2fs");
}

#[test]
fn small_ext4() {
    check("small_ext4");
}

#[test]
fn small_scalelfs() {
    check("small_scalelfs");
}

#[test]
fn small_fileserver() {
    check("small_fileserver");
}

#[test]
fn small_ycsb() {
    check("small_ycsb");
}

#[test]
fn small_tpcc() {
    check("small_tpcc");
}
