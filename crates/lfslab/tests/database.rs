//! The database I/O model end to end: YCSB and TPC-C on every design with
//! every read checked, and the InnoDB mechanisms doing what InnoDB does
//! (group commit, doublewrite, log flushing policy, checkpoint age).

use lfslab::engine;
use lfslab::metrics::RunReport;
use lfslab::scenario::Scenario;

fn run(kind: &str, db: &str) -> RunReport {
    let text = format!(
        "seed = 5\n[device]\npreset = \"femu\"\ncapacity_gib = 2\nchannels = 4\npages_per_block = 64\n[fs]\nkind = \"{kind}\"\n[database]\n{db}"
    );
    let s = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{kind}: {e}"));
    engine::run(s).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

const YCSB_TABLE: &str = "benchmark = \"ycsb\"\nrecordcount = 20000\noperationcount = 6000\nfieldlength = 400\n";
/// InnoDB's smallest buffer pool (5 MiB): most operations miss and write pages back.
const YCSB: &str = "benchmark = \"ycsb\"\nrecordcount = 20000\noperationcount = 6000\nfieldlength = 400\nbuffer_pool = \"5m\"\nlru_scan_depth = 64\n";
const TPCC: &str = "benchmark = \"tpcc\"\nwarehouses = 2\nruntime = 1\nbuffer_pool = \"5m\"\nlru_scan_depth = 64\nthreads = 8\n";

fn ops(r: &RunReport, name: &str) -> u64 {
    r.operations.iter().find(|o| o.name == name).map_or(0, |o| o.ops)
}

#[test]
fn both_benchmarks_run_on_every_design_with_data_checked() {
    for kind in ["f2fs", "zf2fs", "iplfs", "d2fs"] {
        for (name, db) in [("ycsb", format!("{YCSB}threads = 4\n")), ("tpcc", TPCC.to_string())] {
            let r = run(kind, &db);
            assert_eq!(r.oracle.mismatches_count, 0, "{kind}/{name}");
            assert!(r.oracle.blocks_checked_count > 1000, "{kind}/{name}: page reads were checked");
            let d = r.database.as_ref().expect("database report");
            assert!(d.engine.commits > 0 && d.engine.log_fsyncs > 0, "{kind}/{name}: commits fsync the log");
            assert!(d.engine.doublewrite_pages > 0, "{kind}/{name}: flushes go through the doublewrite buffer");
            let total: u64 = r.operations.iter().map(|o| o.ops).sum();
            assert_eq!(r.timeseries.iter().map(|b| b.ops).sum::<u64>(), total, "{kind}/{name}: the ops series counts every op");
            if name == "tpcc" {
                for t in ["new-order", "payment", "order-status", "delivery", "stock-level"] {
                    assert!(ops(&r, t) > 0, "{kind}: no {t} ran");
                }
                assert!(d.tpmc.unwrap() > 0.0);
            } else {
                assert_eq!(total, 6000, "{kind}: operationcount is exact");
            }
        }
    }
}

#[test]
fn runs_are_deterministic() {
    let a = run("d2fs", TPCC);
    let b = run("d2fs", TPCC);
    assert_eq!(a, b);
}

#[test]
fn concurrent_commits_share_log_fsyncs() {
    // A buffer pool holding the table: an update is CPU and its commit.
    let one = run("f2fs", &format!("{YCSB_TABLE}buffer_pool = \"256m\"\nthreads = 1\nworkload = \"update-only\"\n"));
    let many = run("f2fs", &format!("{YCSB_TABLE}buffer_pool = \"256m\"\nthreads = 16\nworkload = \"update-only\"\n"));
    let (e1, e16) = (&one.database.as_ref().unwrap().engine, &many.database.as_ref().unwrap().engine);
    // One thread: every commit is its own fsync (plus checkpoints').
    assert!(e1.log_fsyncs >= e1.commits, "{} fsyncs for {} commits", e1.log_fsyncs, e1.commits);
    // Sixteen: commits arriving during a flush are covered by the next one.
    assert!(e16.commits as f64 > 1.3 * e16.log_fsyncs as f64, "{} fsyncs for {} commits", e16.log_fsyncs, e16.commits);
}

#[test]
fn log_flush_policy_and_doublewrite_change_the_io_as_innodb_does() {
    let base = run("f2fs", &format!("{YCSB}threads = 4\n"));
    let lazy = run("f2fs", &format!("{YCSB}threads = 4\nflush_log_at_trx_commit = 2\n"));
    let no_dw = run("f2fs", &format!("{YCSB}threads = 4\ndoublewrite = false\n"));
    let e = |r: &RunReport| r.database.as_ref().unwrap().engine.clone();
    // =2: the log is written per commit but synced once a second.
    assert!(e(&lazy).log_fsyncs * 10 < e(&base).log_fsyncs, "{} vs {}", e(&lazy).log_fsyncs, e(&base).log_fsyncs);
    assert!(e(&lazy).log_writes >= e(&lazy).commits / 2);
    // Without the doublewrite buffer no page is written twice.
    assert_eq!(e(&no_dw).doublewrite_pages, 0);
    let written = |r: &RunReport| r.jobs[0].write.io_bytes;
    assert!(written(&no_dw) < written(&base));
}

#[test]
fn a_small_redo_log_forces_sync_flushes() {
    let r = run("f2fs", &format!("{YCSB_TABLE}threads = 4\nworkload = \"update-only\"\nlog_file_size = \"1m\"\nbuffer_pool = \"8m\"\nlru_scan_depth = 64\n"));
    let e = &r.database.as_ref().unwrap().engine;
    assert!(e.sync_flush_stalls > 0 && e.pages_flushed_sync > 0, "{e:?}");
    // The checkpoint age stays within the log (less a 10% margin).
    assert!(e.max_checkpoint_age_bytes < 2 * ((1 << 20) - 4096), "{e:?}");
}
