//! An aged state saved after the precondition phase and loaded by a later
//! run measures the same bits as aging afresh, on every design and on the
//! raw device; a run with another setup is refused, naming the field.

use lfslab::compare::{designs_by_name, scenario_for};
use lfslab::engine::{self, Run, RunError};
use lfslab::scenario::Scenario;
use std::path::{Path, PathBuf};

const WORKLOAD: &str = r#"
name = "aged"
[device]
preset = "970pro"
capacity_gib = 2
[precondition]
random_overwrite = 0.5
[[job]]
rw = "randwrite"
size = "40%"
runtime = "2s"
"#;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lfslab-aged-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn aged_then_measured(s: Scenario, path: &Path) -> String {
    let mut r = Run::new(s.clone()).unwrap();
    r.precondition().unwrap();
    r.save_aged(path).unwrap();
    drop(r);
    let mut r = Run::from_aged(s, path).unwrap();
    r.measure().unwrap();
    r.report().unwrap().to_json()
}

#[test]
fn every_design_measures_the_same_bits_from_an_aged_state() {
    let file = Scenario::file_from_toml_with(WORKLOAD, &[]).unwrap();
    let names: Vec<String> = lfslab::compare::DESIGNS.iter().map(|d| d.name.to_string()).collect();
    for d in designs_by_name(&names).unwrap() {
        let s = scenario_for(&file, d, 1.0, Path::new(".")).unwrap();
        let path = tmp(&format!("{}.aged", d.name));
        let fresh = engine::run(s.clone()).unwrap().to_json();
        assert_eq!(aged_then_measured(s, &path), fresh, "design {}", d.name);
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn raw_device_measures_the_same_bits_from_an_aged_state() {
    let text = "[device]\ncapacity_gib = 4\n[precondition]\nfill = 1.0\nrandom_overwrite = 0.5\n\
                [[job]]\nrw = \"randwrite\"\nruntime = \"1s\"\n";
    let s = Scenario::from_toml_str(text).unwrap();
    let path = tmp("raw.aged");
    let fresh = engine::run(s.clone()).unwrap().to_json();
    assert_eq!(aged_then_measured(s, &path), fresh);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn another_measurement_may_start_from_it_but_another_setup_may_not() {
    let file = Scenario::file_from_toml_with(WORKLOAD, &[]).unwrap();
    let d = designs_by_name(&["f2fs".into()]).unwrap()[0];
    let s = scenario_for(&file, d, 1.0, Path::new(".")).unwrap();
    let path = tmp("f2fs-setup.aged");
    let mut r = Run::new(s).unwrap();
    r.precondition().unwrap();
    r.save_aged(&path).unwrap();

    // Same files, another I/O pattern and runtime: accepted.
    let other = Scenario::file_from_toml_with(WORKLOAD, &["job.0.rw=randrw".into(), "job.0.runtime=1s".into()]).unwrap();
    let s2 = scenario_for(&other, d, 1.0, Path::new(".")).unwrap();
    let mut r2 = Run::from_aged(s2, &path).unwrap();
    r2.measure().unwrap();
    assert!(r2.report().unwrap().jobs[0].read.total_ios > 0);

    // Another device or file size: refused, naming the field.
    for (set, field) in [("device.op=0.2", "device.op"), ("job.0.size=30%", "files laid out"), ("seed=7", "seed")] {
        let f = Scenario::file_from_toml_with(WORKLOAD, &[set.into()]).unwrap();
        let s3 = scenario_for(&f, d, 1.0, Path::new(".")).unwrap();
        match Run::from_aged(s3, &path) {
            Err(RunError::Aged(m)) => assert!(m.contains(field), "{set}: {m}"),
            Err(e) => panic!("{set}: unexpected error {e}"),
            Ok(_) => panic!("{set}: a different setup was accepted"),
        }
    }
    // Not an aged state at all.
    let junk = tmp("junk.aged");
    std::fs::write(&junk, b"hello").unwrap();
    let s4 = scenario_for(&file, d, 1.0, Path::new(".")).unwrap();
    assert!(matches!(Run::from_aged(s4, &junk), Err(RunError::Aged(m)) if m.contains("not an lfslab aged state")));
    std::fs::remove_file(path).unwrap();
    std::fs::remove_file(junk).unwrap();
}
