//! The `lfslab` binary: bad input exits 2 with a message naming the field
//! and value; a run prints its seed and knobs first.

use std::process::Command;

fn lfslab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lfslab")).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lfslab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_scenario_exits_2_naming_field_and_value() {
    let p = scenario_file("bad_bs.toml", "[[job]]\nrw = \"randwrite\"\nbs = \"5k\"\n");
    let (code, stdout, stderr) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2, "stdout {stdout} stderr {stderr}");
    assert!(stderr.contains("job[0].bs") && stderr.contains("5k"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let p = scenario_file("bad_type.toml", "[device]\ncapacity_gib = \"lots\"\n[[job]]\n");
    let (code, _, stderr) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("capacity_gib") && stderr.contains("lots"), "{stderr}");

    let p = scenario_file("not_toml.toml", "[[job]\nrw = 3\n");
    let (code, _, stderr) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not valid"), "{stderr}");

    let log = scenario_file("bad.log", "fio version 2 iolog\nf add\nf write 100 4096\n");
    let p = scenario_file("replay.toml", &format!("[[job]]\nread_iolog = {:?}\n", log.file_name().unwrap().to_str().unwrap()));
    let (code, _, stderr) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("job[0].read_iolog") && stderr.contains("line 3"), "{stderr}");

    let jf = scenario_file("bad.fio", "[w]\nrw=randwrite\nbs=4k\nzonk=1\n");
    let p = scenario_file("withfio.toml", &format!("fio_job_file = {:?}\n", jf.file_name().unwrap().to_str().unwrap()));
    let (code, _, stderr) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("line 4") && stderr.contains("zonk"), "{stderr}");

    let (code, _, stderr) = lfslab(&["run", "no-such-scenario"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("default"), "lists the built-ins: {stderr}");

    let (code, _, stderr) = lfslab(&["run", "default", "--set", "ftl.gc_policy=fifo"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("ftl.gc_policy") && stderr.contains("fifo"), "{stderr}");
}

#[test]
fn run_prints_seed_and_knobs_then_results() {
    let p = scenario_file(
        "tiny.toml",
        "[device]\npreset = \"femu\"\ncapacity_gib = 0.0625\nchannels = 2\nchips_per_channel = 1\npages_per_block = 16\n\
         [precondition]\nfill = 0.5\n[[job]]\nrw = \"randrw\"\niodepth = 2\nruntime = \"20ms\"\n",
    );
    let json = p.with_extension("json");
    let (code, stdout, stderr) = lfslab(&["run", p.to_str().unwrap(), "--seed", "42", "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let seed_line = stdout.find("seed 42").expect("seed printed");
    let knobs = stdout.find("program_us").expect("knobs printed");
    let results = stdout.find("WAF").expect("results printed");
    assert!(seed_line < knobs && knobs < results);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["seed"], 42);
    assert!(report["jobs"][0]["write"]["clat_ns"]["percentile"]["99.990000"].as_u64().is_some());
}

#[test]
fn builtin_scenarios_are_listed_and_printed() {
    let (code, stdout, _) = lfslab(&["scenario"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("default") && stdout.contains("bench"));
    // Each built-in with a line saying what it is.
    assert!(stdout.lines().any(|l| l.starts_with("fio-randwrite") && l.contains("default workload of `lfslab compare`")), "{stdout}");
    let (code, stdout, _) = lfslab(&["scenario", "default"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("[[job]]"));
    let (code, stdout, _) = lfslab(&["scenario", "--schema"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("## [[job]]") && stdout.contains("| `capacity_gib` | number | 8.0 |"), "{stdout}");
    let (code, _, stderr) = lfslab(&["scenario", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("default"));
}

#[test]
fn d2fs_run_writes_region_csv_and_other_runs_say_why_not() {
    let d2fs = scenario_file(
        "d2fs.toml",
        "[device]\ncapacity_gib = 4\n[fs]\nkind = \"d2fs\"\n[[job]]\nrw = \"randwrite\"\nsize = \"10%\"\nruntime = \"1500ms\"\n",
    );
    let csv = d2fs.with_extension("regions.csv");
    let (code, stdout, stderr) = lfslab(&["run", d2fs.to_str().unwrap(), "--quiet", "--regions-csv", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("d2fs     p_v 2.40") && stdout.contains("memory   FTL mapping"), "{stdout}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("t_s,regular_region_pct,gc_region_pct\n") && text.lines().count() > 1, "{text}");
    let f2fs = scenario_file("f2fs.toml", "[device]\ncapacity_gib = 4\n[fs]\n[[job]]\nrw = \"randwrite\"\nsize = \"10%\"\nruntime = \"100ms\"\n");
    let (code, _, stderr) = lfslab(&["run", f2fs.to_str().unwrap(), "--quiet", "--regions-csv", csv.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(stderr.contains("needs a D2FS run"), "{stderr}");
}

#[test]
fn compare_writes_a_report_directory_and_names_bad_input() {
    let w = scenario_file(
        "cmp.toml",
        "name = \"cmp\"\n[device]\ncapacity_gib = 4\n[[job]]\nrw = \"randwrite\"\nsize = \"20%\"\nruntime = \"1s\"\n",
    );
    let out = w.with_extension("out");
    let (code, stdout, stderr) = lfslab(&["compare", "--workload", w.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("design") && stdout.contains("\nf2fs ") && stdout.contains("\nd2fs "), "{stdout}");
    for f in ["report.html", "comparison.json", "summary.csv", "f2fs.toml", "d2fs.json", "d2fs.timeseries.csv", "d2fs.regions.csv"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // The resolved scenario of a design repeats its run.
    let (code, _, stderr) = lfslab(&["run", out.join("d2fs.toml").to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{stderr}");

    let (code, _, stderr) = lfslab(&["compare", "--designs", "f2fs,zfs", "--workload", w.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"zfs\"") && stderr.contains("valid: f2fs, f2fs-adaptive, f2fs-lfs, zf2fs, iplfs, d2fs"), "{stderr}");
    let (code, _, stderr) = lfslab(&["reproduce", "fig99"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("valid: d2fs-fio, d2fs-table1"), "{stderr}");
    // An output directory under a regular file cannot be created.
    let blocked = w.join("sub");
    let (code, _, stderr) =
        lfslab(&["compare", "--designs", "d2fs", "--workload", w.to_str().unwrap(), "--out", blocked.to_str().unwrap()]);
    // Checked before anything runs: bad input, exit 2.
    assert_eq!(code, 2);
    assert!(stderr.contains("--out") && stderr.contains("cannot create it"), "{stderr}");
}

/// The bench suite times the FTL path, then each design's full stack in a
/// child process, one row per design and scale.
#[test]
fn bench_suite_times_the_ftl_path_and_each_design() {
    let (code, stdout, stderr) = lfslab(&["bench", "--capacity-gib", "2", "--io-gib", "0.25", "--designs", "d2fs", "--scales", "0.25,0.5"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("randwrite (GC)") && stdout.contains("steady IOPS"), "{stdout}");
    let rows: Vec<Vec<f64>> = stdout
        .lines()
        .filter(|l| l.starts_with("d2fs "))
        .map(|row| row.split_whitespace().skip(1).map(|c| c.parse().expect("numeric column")).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    let (cols, large) = (&rows[0], &rows[1]);
    assert_eq!((cols[0], large[0]), (0.25, 0.5));
    assert!(cols[3] > 0.0 && cols[7] > 0.0, "app writes and steady IOPS: {cols:?}");
    // The growth line: wall time, app writes and wall time per write from
    // the smaller scale to the larger; the first is the product of the others.
    let line = stdout.lines().find(|l| l.starts_with("d2fs:")).expect("a growth line");
    let g: Vec<f64> = line.split_whitespace().skip(1).map(|c| c.trim_end_matches('x').parse().expect("a ratio")).collect();
    let walls = |r: &[f64]| r[1] + r[2];
    assert!((g[0] - walls(large) / walls(cols)).abs() <= 0.06 + 0.01 * g[0], "{line}: {cols:?} {large:?}");
    assert!((g[1] - large[3] / cols[3]).abs() <= 0.051, "{line}: {cols:?} {large:?}");
    assert!((g[0] - g[1] * g[2]).abs() <= 0.02 * g[0] + 0.06, "{line}");
    // --runs prints one row per design and scale, the median run's: its
    // simulated columns are the same as any run's.
    let (code, stdout, stderr) =
        lfslab(&["bench", "--capacity-gib", "2", "--io-gib", "0.25", "--designs", "d2fs", "--scales", "0.25", "--runs", "3", "--database-ops", "0"]);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("d2fs ")).collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    let again: Vec<f64> = rows[0].split_whitespace().skip(1).map(|c| c.parse().expect("numeric column")).collect();
    assert_eq!((again[3], again[6], again[7]), (cols[3], cols[6], cols[7]), "{cols:?} / {}", rows[0]);
}

#[test]
fn a_saved_aged_state_gives_the_same_report_and_refuses_another_setup() {
    let p = scenario_file(
        "aged.toml",
        "[device]\ncapacity_gib = 2\n[fs]\nkind = \"f2fs\"\n[precondition]\nrandom_overwrite = 0.25\n\
         [[job]]\nrw = \"randwrite\"\nsize = \"30%\"\nruntime = \"1s\"\n",
    );
    let dir = p.parent().unwrap();
    let (aged, fresh, again) = (dir.join("cli.aged"), dir.join("fresh.json"), dir.join("again.json"));
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (code, _, stderr) = lfslab(&["run", &s(&p), "--quiet", "--save-aged", &s(&aged), "--json", &s(&fresh)]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = lfslab(&["run", &s(&p), "--quiet", "--from-aged", &s(&aged), "--json", &s(&again)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&fresh).unwrap(), std::fs::read_to_string(&again).unwrap());

    let (code, _, stderr) = lfslab(&["run", &s(&p), "--quiet", "--from-aged", &s(&aged), "--set", "fs.segs_per_sec=4"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("fs.segs_per_sec") && stderr.contains("this run has 4"), "{stderr}");
    let (code, _, stderr) = lfslab(&["run", &s(&p), "--quiet", "--from-aged", &s(&p)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not an lfslab aged state"), "{stderr}");
}

/// `--json -` puts the JSON report alone on standard output.
#[test]
fn json_to_stdout_is_json_alone() {
    let (code, stdout, stderr) = lfslab(&["run", "default", "--set", "job.0.runtime=0.1s", "--json", "-"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is one JSON document");
    assert!(v.get("jobs").is_some(), "{stdout}");
}

#[test]
fn fio_job_files_and_iologs_run_as_given() {
    let small = ["--set", "device.capacity_gib=2"];
    // Files on F2FS, as fio would create them.
    let p = scenario_file("files.fio", "[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=64m\n[w]\nrw=randwrite\nruntime=1\n");
    let (code, out, err) = lfslab(&[&["run", p.to_str().unwrap(), "--json", "-"][..], &small[..]].concat());
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(r.get("fs").is_some(), "a fio job on files runs on a filesystem");
    let ignored = r["ignored_input"].as_array().expect("ignored options are reported");
    assert!(ignored.iter().any(|n| n.as_str().unwrap().contains("ioengine")), "{ignored:?}");
    assert!(r["jobs"][0]["write"]["total_ios"].as_u64().unwrap() > 0);
    // filename=/dev/... with direct=1: the raw device.
    let p = scenario_file("raw", "[global]\nfilename=/dev/nvme0n1\ndirect=1\nbs=4k\nsize=10%\n[w]\nrw=randwrite\nio_size=8m\n");
    let (code, out, err) = lfslab(&[&["run", p.to_str().unwrap(), "--json", "-"][..], &small[..]].concat());
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(r.get("fs").is_none(), "a job on /dev runs on the raw device");
    assert_eq!(r["jobs"][0]["write"]["total_ios"].as_u64(), Some(2048));
    // An iolog replays on the raw device.
    let p = scenario_file("t.iolog", "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda write 0 8192\n/dev/sda read 0 4096\n/dev/sda close\n");
    let (code, out, err) = lfslab(&[&["run", p.to_str().unwrap(), "--json", "-"][..], &small[..]].concat());
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((r["jobs"][0]["read"]["total_ios"].as_u64(), r["jobs"][0]["write"]["total_ios"].as_u64()), (Some(1), Some(1)));
    assert_eq!(r["oracle"]["mismatches_count"].as_u64(), Some(0));
    // Files and a block device in one job file are refused, naming the job.
    let p = scenario_file("mixed.fio", "[a]\nfilename=/dev/sda\n[b]\nrw=read\n");
    let (code, _, err) = lfslab(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("\"b\"") && err.contains("block device"), "{err}");
}

/// The keys fio 3.33 writes for a job's read/write/trim section and its
/// sync section (Debian's fio 3.33-3, `--output-format=json`), less the
/// bandwidth/IOPS sampling statistics (bw_min ... iops_samples), which
/// need fio's periodic samples.
const FIO_DIR_KEYS: [&str; 12] =
    ["io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios", "drop_ios", "slat_ns", "clat_ns", "lat_ns"];

#[test]
fn fio_json_has_fios_layout_one_entry_per_clone_unless_group_reporting() {
    let job = "[global]\nbs=4k\nsize=8m\n[w]\nrw=randwrite\nnumjobs=2\nfsync=4\n";
    for (name, extra, entries) in [("clones.fio", "", 2), ("grouped.fio", "group_reporting\n", 1)] {
        let p = scenario_file(name, &format!("{job}{extra}"));
        let (code, out, err) = lfslab(&["run", p.to_str().unwrap(), "--set", "device.capacity_gib=2", "--json", "-"]);
        assert_eq!(code, 0, "{err}");
        let r: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert!(r["fio version"].as_str().unwrap().starts_with("lfslab-"));
        assert_eq!(r["global options"]["bs"], "4k");
        let jobs = r["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), entries, "{name}");
        for j in jobs {
            assert_eq!(j["jobname"], "w");
            assert_eq!(j["job options"]["rw"], "randwrite");
            assert_eq!(j["job options"]["numjobs"], "2");
            for dir in ["read", "write", "trim"] {
                for k in FIO_DIR_KEYS {
                    assert!(!j[dir][k].is_null(), "{name}: {dir}.{k} missing");
                }
            }
            let w = &j["write"];
            assert_eq!(w["io_kbytes"].as_u64().unwrap(), w["io_bytes"].as_u64().unwrap() / 1024);
            // lat = slat + clat, as fio's.
            let (slat, clat, lat) = (w["slat_ns"]["mean"].as_f64().unwrap(), w["clat_ns"]["mean"].as_f64().unwrap(), w["lat_ns"]["mean"].as_f64().unwrap());
            assert!((slat + clat - lat).abs() < 1.0, "{slat} + {clat} != {lat}");
            assert!(j["sync"]["total_ios"].as_u64().unwrap() > 0);
            assert!(j["sync"]["lat_ns"]["percentile"]["99.000000"].as_u64().is_some());
        }
        let writes: u64 = jobs.iter().map(|j| j["write"]["total_ios"].as_u64().unwrap()).sum();
        assert_eq!(writes, 2 * 2048, "{name}: both clones write their 8 MiB");
    }
}

/// `reproduce --set` applies to every run after the experiment's own
/// settings, says so first, and a bad key is bad input.
#[test]
fn reproduce_takes_overrides() {
    let out = std::env::temp_dir().join(format!("lfslab-cli-repro-{}", std::process::id()));
    let (code, stdout, stderr) =
        lfslab(&["reproduce", "rmipu-frag", "--set", "device.cmd_us=0", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("# every run with --set device.cmd_us=0"), "{stdout}");
    // Without the per-request cost, the fragmented read costs NAND time only: no gap.
    let line = stdout.lines().find(|l| l.contains("application read bandwidth vs ext4")).expect("paper row");
    let ours: f64 = line.split_whitespace().nth(8).unwrap().parse().unwrap();
    assert!((ours - 1.0).abs() < 0.02, "{line}");
    let (code, _, stderr) = lfslab(&["reproduce", "rmipu-frag", "--set", "device.cmd_uss=1", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cmd_uss"), "{stderr}");
}
