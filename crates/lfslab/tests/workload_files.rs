//! fio job files, iolog replay and stonewall through whole runs.

mod common;

use lfslab::engine;
use lfslab::scenario::Scenario;
use std::path::{Path, PathBuf};

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lfslab-wl-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn rmipu_fragmentation_from_a_fio_job_file() {
    let dir = scenarios_dir();
    let text = std::fs::read_to_string(dir.join("rmipu-frag.toml")).unwrap();
    let run = |set: &[String]| {
        let s = Scenario::from_toml_str_in(&text, set, &dir).unwrap();
        assert_eq!(s.jobs.len(), 2);
        assert_eq!(s.jobs[1].group, 1, "stonewall puts the read after the updates");
        engine::run(s).unwrap()
    };
    let lfs = run(&[]);
    let ipu = run(&["fs.mode=\"adaptive\"".into(), "fs.ipu_policy=\"force\"".into()]);
    let frag = lfs.fs.as_ref().unwrap().mean_read_request_kib;
    let inplace = ipu.fs.as_ref().unwrap().mean_read_request_kib;
    eprintln!("mean read request after random updates: F2FS {frag:.1} KiB, in-place {inplace:.1} KiB");
    assert!(frag < 64.0, "out-of-place updates fragment the file: {frag} KiB");
    assert!(inplace >= 512.0, "in-place updates keep it contiguous: {inplace} KiB");
    // The read job started when the update job ended, and its runtime and
    // bandwidth count from there, as fio's do.
    assert!(lfs.jobs[1].read.total_ios > 0);
    let (upd, read) = (&lfs.jobs[0].write, &lfs.jobs[1].read);
    let whole = (lfs.sim.measured_sim_time_s * 1000.0).round() as u64;
    assert!(read.runtime + upd.runtime <= whole + 1, "read {} ms + updates {} ms within the run's {whole} ms", read.runtime, upd.runtime);
    let bw = read.io_bytes as f64 / (read.runtime as f64 / 1000.0);
    assert!((read.bw_bytes as f64 / bw - 1.0).abs() < 0.01, "bandwidth over the job's own runtime");
    assert_eq!(lfs.oracle.mismatches_count, 0);
}

#[test]
fn iolog_replay_on_raw_device_and_files() {
    let dir = tmp_dir("iolog");
    let mut log = String::from("fio version 3 iolog\n0 f add\n0 f open\n");
    for i in 0..200u64 {
        log.push_str(&format!("{} f write {} 8192\n", i * 50, (i * 7919 % 1000) * 8192));
        if i % 4 == 3 {
            log.push_str(&format!("{} f read {} 4096\n", i * 50 + 10, (i * 31 % 1000) * 8192));
        }
        if i % 50 == 49 {
            log.push_str(&format!("{} f sync\n", i * 50 + 20));
        }
    }
    std::fs::write(dir.join("trace.log"), &log).unwrap();
    let dev = common::small_device(0.15, "greedy");
    for fs in ["", "[fs]\nmode = \"lfs\"\n"] {
        let text = format!("{dev}\n{fs}\n[[job]]\nname = \"replay\"\nread_iolog = \"trace.log\"\n");
        let s = Scenario::from_toml_str_in(&text, &[], &dir).unwrap();
        let r = engine::run(s).unwrap();
        let j = &r.jobs[0];
        assert_eq!(j.write.total_ios, 200, "{fs}");
        assert_eq!(j.read.total_ios, 50);
        assert_eq!(j.sync.total_ios, 4);
        assert!(j.write.runtime >= 9, "v3 timestamps pace the replay (last at 9.95 ms): {} ms", j.write.runtime);
        assert!(r.oracle.blocks_checked_count >= 50);
        assert_eq!(r.oracle.mismatches_count, 0);
    }
}

/// Block traces replay as iologs do: an MSR Cambridge CSV on the raw
/// device, paced by its timestamps, scaled by replay_time_scale, and folded
/// into a device smaller than the trace with replay_fold.
#[test]
fn block_traces_replay_on_the_raw_device() {
    let dir = tmp_dir("trace");
    let mut csv = String::new();
    for i in 0..300u64 {
        // 2 ms apart (20,000 ticks of 100 ns), over 4 GiB of disk.
        let op = if i % 3 == 0 { "Read" } else { "Write" };
        csv.push_str(&format!("{},hm,0,{op},{},8192,120\n", 128166372003061629 + i * 20_000, (i * 7919 % 500_000) * 8192));
    }
    std::fs::write(dir.join("msr.csv"), &csv).unwrap();
    let dev = common::small_device(0.15, "greedy");
    let run = |extra: &str| {
        let text = format!("{dev}\n[[job]]\nname = \"replay\"\nread_iolog = \"msr.csv\"\n{extra}");
        Scenario::from_toml_str_in(&text, &[], &dir).map(|s| engine::run(s).unwrap())
    };
    // The trace spans 4 GiB: more than the small device, until folded.
    let e = run("").unwrap_err().to_string();
    assert!(e.contains("replay_fold"), "{e}");
    let r = run("replay_fold = true\n").unwrap();
    let j = &r.jobs[0];
    assert_eq!((j.write.total_ios, j.read.total_ios), (200, 100));
    assert!(j.write.runtime >= 598, "timestamps pace the replay (last at 598 ms): {} ms", j.write.runtime);
    assert_eq!(r.oracle.mismatches_count, 0);
    let fast = run("replay_fold = true\nreplay_time_scale = 10\n").unwrap();
    assert!(fast.jobs[0].write.runtime * 5 < j.write.runtime, "{} ms at 10% against {} ms", fast.jobs[0].write.runtime, j.write.runtime);
}

#[test]
fn bad_job_files_and_iologs_are_scenario_errors() {
    let dir = tmp_dir("bad");
    std::fs::write(dir.join("bad.fio"), "[a]\nrw=randwrite\nfrobnicate=1\n").unwrap();
    std::fs::write(dir.join("badrw.fio"), "[a]\nrw=randwrit\n").unwrap();
    std::fs::write(dir.join("bad.log"), "fio version 2 iolog\nf add\nf write 512 4096\n").unwrap();
    let dev = common::small_device(0.15, "greedy");
    let cases = [
        (format!("fio_job_file = \"bad.fio\"\n{dev}"), "line 3"),
        (format!("fio_job_file = \"badrw.fio\"\n{dev}"), "randwrit"),
        (format!("fio_job_file = \"missing.fio\"\n{dev}"), "cannot read"),
        (format!("{dev}\n[[job]]\nread_iolog = \"bad.log\"\n"), "line 3"),
        (format!("{dev}\n[fs]\n[[job]]\ndirect = 2\n"), "job[0].direct"),
        (format!("{dev}\n[[job]]\nnrfiles = 2\n"), "[fs]"),
        (format!("{dev}\n[fs]\n[[job]]\nsize = \"200%\"\n"), "200%"),
    ];
    for (text, needle) in cases {
        let e = Scenario::from_toml_str_in(&text, &[], &dir).expect_err(needle).to_string();
        assert!(e.contains(needle), "{needle}: {e}");
    }
}
