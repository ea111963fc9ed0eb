//! Bad input, table-driven: each case writes its files, runs the binary and
//! checks the exit code and the words its message must contain. Never a
//! panic (exit 101), never a hang, never a silent wrong answer.

use std::path::PathBuf;
use std::process::Command;

struct Case {
    name: &'static str,
    /// (file name, content) written to the case's directory first.
    files: &'static [(&'static str, &'static str)],
    /// Arguments; `{dir}` is the case's directory.
    args: &'static [&'static str],
    code: i32,
    /// Words the output (stdout + stderr) must contain.
    words: &'static [&'static str],
}

const SMALL: &str = "[device]\ncapacity_gib = 2\n";

fn dir_of(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lfslab-bad-input-{}", std::process::id())).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_case(c: &Case) -> Result<(), String> {
    let dir = dir_of(c.name);
    for (f, text) in c.files {
        std::fs::write(dir.join(f), text.replace("{small}", SMALL)).unwrap();
    }
    let args: Vec<String> = c.args.iter().map(|a| a.replace("{dir}", dir.to_str().unwrap())).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_lfslab")).args(&args).current_dir(&dir).output().expect("binary runs");
    let code = out.status.code().unwrap_or(-1);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let tail: String = text.chars().rev().take(600).collect::<Vec<_>>().into_iter().rev().collect();
    if code != c.code {
        return Err(format!("{}: exit {code}, want {}: ...{tail}", c.name, c.code));
    }
    if text.contains("panicked") {
        return Err(format!("{}: panicked: {tail}", c.name));
    }
    for w in c.words {
        if !text.contains(w) {
            return Err(format!("{}: output lacks {w:?}: ...{tail}", c.name));
        }
    }
    Ok(())
}

const CASES: &[Case] = &[
    Case {
        name: "gc-per-block-replaced-by-stages",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\ngc_per_block_ns = 5000\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["fs.gc_per_block_ns", "gc_meta_ns", "gc_page_cache_ns"],
    },
    Case {
        name: "database-unknown-benchmark",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"sysbench\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database.benchmark", "sysbench", "ycsb or tpcc"],
    },
    Case {
        name: "database-without-fs",
        files: &[("s.toml", "{small}[database]\nbenchmark = \"ycsb\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database", "[fs]"],
    },
    Case {
        name: "database-does-not-fit",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"tpcc\"\nwarehouses = 500\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database.warehouses", "MiB"],
    },
    Case {
        name: "database-ycsb-unknown-workload",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"ycsb\"\nworkload = \"g\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database.workload", "\"g\"", "d2fs-a"],
    },
    Case {
        name: "database-field-of-the-other-benchmark",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"ycsb\"\nwarehouses = 3\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database.warehouses", "tpcc"],
    },
    Case {
        name: "database-bad-buffer-pool",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"ycsb\"\nbuffer_pool = \"2m\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["database.buffer_pool", "2097152", "5 MiB"],
    },
    Case {
        name: "database-unknown-key",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[database]\nbenchmark = \"ycsb\"\nrecords = 3\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["records"],
    },
    Case {
        name: "filebench-unknown-personality",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[filebench]\npersonality = \"mailserver\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["filebench.personality", "mailserver", "fileserver, varmail, webserver"],
    },
    Case {
        name: "filebench-without-fs",
        files: &[("s.toml", "{small}[filebench]\npersonality = \"varmail\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["filebench", "[fs]"],
    },
    Case {
        name: "filebench-and-jobs",
        files: &[(
            "s.toml",
            "{small}[fs]\nkind = \"f2fs\"\n[filebench]\npersonality = \"varmail\"\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\n",
        )],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["filebench", "not both"],
    },
    Case {
        name: "filebench-fileset-too-big",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[filebench]\npersonality = \"fileserver\"\nnfiles = 100000\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["filebench.nfiles", "100000", "MiB"],
    },
    Case {
        name: "filebench-bad-size",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[filebench]\npersonality = \"varmail\"\nfilesize = \"big\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["filebench.filesize", "big"],
    },
    Case {
        name: "filebench-unknown-key",
        files: &[("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[filebench]\npersonality = \"varmail\"\nnfile = 3\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["nfile", "nfiles"],
    },
    Case {
        name: "zoned-too-few-active-zones",
        files: &[(
            "s.toml",
            "{small}[fs]\nkind = \"zf2fs\"\nmax_active_zones = 4\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\n",
        )],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["fs.max_active_zones", "4", "6"],
    },
    Case {
        name: "iolog-offset-overflow",
        files: &[
            ("a.iolog", "fio version 2 iolog\nf add\nf write 18446744073709547520 4096\n"),
            ("s.toml", "{small}[[job]]\nread_iolog = \"a.iolog\"\n"),
        ],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "line 3", "18446744073709547520"],
    },
    Case {
        name: "msr-trace-bad-type",
        files: &[("t.csv", "128166372003061629,hm,0,Write,0,4096,1\n128166372003061630,hm,0,Erase,0,4096,1\n")],
        args: &["run", "t.csv", "--quiet"],
        code: 2,
        words: &["t.csv", "read_iolog", "MSR Cambridge CSV line 2", "Erase"],
    },
    Case {
        name: "spc-trace-bad-lba",
        files: &[("t.spc", "0,8,4096,W,0.1\n0,x,4096,W,0.2\n"), ("s.toml", "{small}[[job]]\nread_iolog = \"t.spc\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "UMass/SPC CSV line 2", "LBA \"x\""],
    },
    Case {
        name: "replay-fold-on-a-filesystem",
        files: &[("t.spc", "0,8,4096,W,0.1\n"), ("s.toml", "{small}[fs]\nkind = \"f2fs\"\n[[job]]\nread_iolog = \"t.spc\"\nreplay_fold = true\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].replay_fold", "raw device"],
    },
    Case {
        name: "replay-time-scale-zero",
        files: &[("t.spc", "0,8,4096,W,0.1\n"), ("s.toml", "{small}[[job]]\nread_iolog = \"t.spc\"\nreplay_time_scale = 0\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].replay_time_scale", "0"],
    },
    Case {
        name: "iolog-v2-wait-overflow",
        files: &[
            ("a.iolog", "fio version 2 iolog\nf add\nf wait 18446744073709551615\nf write 0 4096\n"),
            ("s.toml", "{small}[[job]]\nread_iolog = \"a.iolog\"\n"),
        ],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "line 3"],
    },
    Case {
        name: "iolog-v3-time-overflow",
        files: &[
            ("a.iolog", "fio version 3 iolog\n0 f add\n18446744073709552 f write 0 4096\n"),
            ("s.toml", "{small}[[job]]\nread_iolog = \"a.iolog\"\n"),
        ],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "line 3"],
    },
    Case {
        name: "iolog-wait-sum-overflow",
        files: &[
            ("a.iolog", "fio version 2 iolog\nf add\nf wait 10000000000000000\nf wait 10000000000000000\nf write 0 4096\n"),
            ("s.toml", "{small}[[job]]\nread_iolog = \"a.iolog\"\n"),
        ],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "line 4"],
    },
    Case {
        name: "time-based-without-runtime",
        files: &[("s.toml", "{small}[[job]]\nrw = \"randwrite\"\ntime_based = true\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].time_based", "runtime"],
    },
    Case {
        name: "fio-file-is-dev-zero",
        files: &[("s.toml", "fio_job_file = \"/dev/zero\"\n{small}")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["fio_job_file", "/dev/zero"],
    },
    Case {
        name: "iolog-is-dev-zero",
        files: &[("s.toml", "{small}[[job]]\nread_iolog = \"/dev/zero\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].read_iolog", "/dev/zero"],
    },
    Case {
        name: "timeseries-interval-too-fine",
        files: &[("s.toml", "{small}[[job]]\nrw = \"randwrite\"\nruntime = \"75s\"\n[output]\ntimeseries_interval_ms = 0.001\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["output.timeseries_interval_ms", "0.001"],
    },
    Case {
        name: "compare-set-fs-kind",
        files: &[],
        args: &["compare", "--designs", "f2fs", "--set", "fs.kind=zf2fs", "--out", "{dir}/o"],
        code: 2,
        words: &["fs.kind", "--designs"],
    },
    Case {
        name: "stream-beyond-device",
        files: &[("s.toml", "[device]\ncapacity_gib = 8\n[ftl]\nstreams = 2\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\nstream = 5\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].stream", "5", "ftl.streams"],
    },
    Case {
        name: "duplicate-design",
        files: &[],
        args: &["compare", "--designs", "iplfs,iplfs", "--out", "{dir}/o"],
        code: 2,
        words: &["iplfs", "twice"],
    },
    Case {
        name: "runtime-zero",
        files: &[("s.toml", "{small}[[job]]\nrw = \"randwrite\"\nruntime = 0\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["job[0].runtime", "= 0"],
    },
    Case {
        name: "segs-per-sec-not-power-of-two",
        files: &[("s.toml", "{small}[fs]\nsegs_per_sec = 3\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["fs.segs_per_sec = 3"],
    },
    Case {
        name: "pages-per-block-huge",
        files: &[("s.toml", "{small}pages_per_block = 65536\n[[job]]\nrw = \"randwrite\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["device.pages_per_block", "65536"],
    },
    Case {
        name: "capacity-too-small",
        files: &[("s.toml", "[device]\ncapacity_gib = 1\n[[job]]\nrw = \"randwrite\"\n")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["device.capacity_gib = 1"],
    },
    Case {
        name: "set-error-names-the-override",
        files: &[],
        args: &["run", "default", "--set", "job.0.bs=5k"],
        code: 2,
        words: &["--set job.0.bs=5k"],
    },
    Case {
        name: "fio-include",
        files: &[("j.fio", "include other.fio\n[w]\nrw=randwrite\n"), ("s.toml", "fio_job_file = \"j.fio\"\n{small}")],
        args: &["run", "s.toml", "--quiet"],
        code: 2,
        words: &["include", "not supported"],
    },
    Case {
        name: "scale-too-small",
        files: &[],
        args: &["compare", "--designs", "f2fs", "--scale", "1e-9", "--out", "{dir}/o"],
        code: 2,
        words: &["--scale", "the scaled scenario is not valid"],
    },
    Case {
        name: "json-path-unwritable",
        files: &[("s.toml", "{small}[[job]]\nrw = \"randwrite\"\nruntime = \"1s\"\n")],
        args: &["run", "s.toml", "--quiet", "--json", "/nonexistent-dir/x.json"],
        code: 2,
        words: &["/nonexistent-dir/x.json"],
    },
];

#[test]
fn every_bad_input_gets_a_clear_error() {
    let failures: Vec<String> = CASES.iter().filter_map(|c| run_case(c).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), CASES.len(), failures.join("\n\n"));
}

/// A closed stdout ends the program quietly, and files asked for are still written.
#[test]
fn closed_stdout_is_quiet_and_files_are_written() {
    let dir = dir_of("broken-pipe");
    let json = dir.join("r.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lfslab"))
        .args(["run", "default", "--set", "job.0.runtime=0.2s", "--json", json.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once, as `| head -0` would
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(json.exists(), "the JSON report was not written");
}

/// A run that cannot fit in memory is refused with the estimate before it
/// allocates (the available memory is pinned so the test holds anywhere).
#[test]
fn a_run_too_large_for_memory_is_refused_first() {
    let dir = dir_of("memory");
    std::fs::write(dir.join("s.toml"), "[device]\ncapacity_gib = 64\n[[job]]\nrw = \"randwrite\"\nsize = \"16m\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lfslab"))
        .args(["run", "s.toml", "--quiet"])
        .env("LFSLAB_MEMORY_MIB", "128")
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("device.capacity_gib = 64") && stderr.contains("GiB of memory"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_lfslab"))
        .args(["compare", "--designs", "f2fs,d2fs", "--set", "device.capacity_gib=64", "--out", "o"])
        .env("LFSLAB_MEMORY_MIB", "128")
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("GiB of memory"), "{stderr}");
}
