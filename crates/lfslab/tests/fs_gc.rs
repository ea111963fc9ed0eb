//! D2FS Fig. 1 in miniature: 4 KiB random writes to a file at 70% of an
//! F2FS partition (the device has room, so only F2FS collects) versus the
//! same writes on a full raw device (only the FTL collects). Throughput
//! must fall once FS GC starts, and fall further than under device GC.

mod common;

use lfslab::metrics::RunReport;

fn device(capacity_gib: f64) -> String {
    format!(
        r#"
[device]
preset = "femu"
capacity_gib = {capacity_gib}
channels = 8
chips_per_channel = 2
pages_per_block = 64
page_kib = 8
# NVMeVirt's device GC, as D2FS Fig. 1 ran on NVMeVirt (not FEMU's).
[ftl]
gc_threshold_superblocks = 2
gc_background_pct = 0
"#
    )
}

fn fs_gc(mode: &str) -> RunReport {
    f2fs_randwrite(mode, "6s", "")
}

/// Random writes to a file of 70% of a 0.5 GiB F2FS partition; `job`: more
/// job keys.
fn f2fs_randwrite(mode: &str, runtime: &str, job: &str) -> RunReport {
    common::run(&format!(
        r#"{}
[fs]
partition_gib = 0.5
mode = "{mode}"
[[job]]
rw = "randwrite"
size = "70%"
iodepth = 1
runtime = "{runtime}"
{job}
[output]
timeseries_interval_ms = 500
"#,
        device(1.0)
    ))
}

fn dev_gc() -> RunReport {
    common::run(&format!(
        r#"{}
[precondition]
fill = 1.0
[[job]]
rw = "randwrite"
size = "35%"
iodepth = 1
runtime = "6s"
[output]
timeseries_interval_ms = 500
"#,
        device(1.0)
    ))
}

/// IOPS of the first bucket and the mean of the last third.
fn first_and_steady(r: &RunReport) -> (f64, f64) {
    let b = &r.timeseries;
    let full: Vec<f64> = b.iter().take(b.len() - 1).map(|x| x.ios as f64).collect();
    let tail = &full[full.len() * 2 / 3..];
    (full[0], tail.iter().sum::<f64>() / tail.len() as f64)
}

#[test]
fn fs_gc_hurts_more_than_device_gc() {
    let fs = fs_gc("lfs");
    let dev = dev_gc();
    let (fs_first, fs_steady) = first_and_steady(&fs);
    let (dev_first, dev_steady) = first_and_steady(&dev);
    eprintln!("FS GC: {fs_first} -> {fs_steady} I/Os per bucket; device GC: {dev_first} -> {dev_steady}");
    let f = fs.fs.as_ref().expect("fs report");
    assert!(f.counters.gc_fg_count > 0, "F2FS must run foreground GC");
    assert!(f.counters.checkpoints > 0);
    // The device has twice the partition's space: whatever it collects is
    // nearly empty, so device GC costs almost nothing.
    assert!(fs.ftl.waf < 1.1, "device WAF under F2FS should stay near 1: {}", fs.ftl.waf);
    assert!(dev.ftl.counters.gc_count > 0, "the full raw device must collect");
    assert!(fs_steady < fs_first * 0.5, "FS GC should more than halve throughput: {fs_first} -> {fs_steady}");
    assert!(fs_steady / fs_first < dev_steady / dev_first, "FS GC must hurt more than device GC");
    assert_eq!(fs.oracle.mismatches_count, 0);
    assert_eq!(dev.oracle.mismatches_count, 0);
}

#[test]
fn fs_runs_are_deterministic() {
    let a = fs_gc("adaptive").to_json();
    let b = fs_gc("adaptive").to_json();
    assert_eq!(a, b);
}

/// fio's extend_file fallocates a write-only job's file and writes no data
/// (the D2FS artifact's fio runs so): F2FS reserves the blocks without
/// placing them, so random writes fill the log first and the first GC
/// victims are the oldest, most overwritten sections. A file written out
/// first leaves every early section holding its share of the file.
#[test]
fn a_fallocated_file_gives_emptier_first_victims_than_a_written_one() {
    let run = |layout: &str| f2fs_randwrite("lfs", "3s", &format!("layout = \"{layout}\""));
    let valid_per_round = |r: &RunReport| {
        let c = &r.fs.as_ref().expect("fs report").counters;
        assert!(c.gc_fg_count > 0, "foreground GC must run");
        assert_eq!(r.oracle.mismatches_count, 0);
        c.gc_moved_data_blocks as f64 / c.gc_fg_count as f64
    };
    let (fallocated, written) = (valid_per_round(&run("fallocate")), valid_per_round(&run("write")));
    eprintln!("valid blocks moved per section: fallocate {fallocated:.0}, write {written:.0}");
    assert!(fallocated < written * 0.7, "fallocate {fallocated:.0} vs write {written:.0} per section");
}
