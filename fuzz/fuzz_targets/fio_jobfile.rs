//! fio job files, parsed and resolved on a filesystem scenario.
#![no_main]
use lfslab::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(jf) = lfslab::workload::fio_jobfile::parse(text) else { return };
    let mut f = Scenario::file_from_toml_with("[device]\ncapacity_gib = 2\n[fs]\nkind = \"f2fs\"\n", &[]).unwrap();
    f.jobs = jf.jobs;
    let _ = Scenario::from_file(f);
});
