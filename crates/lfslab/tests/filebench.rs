//! Filebench personalities end to end on every filesystem design: the data
//! checks hold, the flowops do what filebench's do, runs are deterministic.

use lfslab::engine;
use lfslab::scenario::Scenario;

fn scenario(kind: &str, personality: &str, extra: &str) -> Scenario {
    let text = format!(
        "seed = 3\n[device]\npreset = \"femu\"\ncapacity_gib = 2\nchannels = 4\npages_per_block = 64\n[fs]\nkind = \"{kind}\"\n\
         [filebench]\npersonality = \"{personality}\"\nnfiles = 300\nnthreads = 6\nruntime = 1\n{extra}"
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{kind}/{personality}: {e}"))
}

fn ops(r: &lfslab::metrics::RunReport, flowop: &str) -> u64 {
    r.flowops.iter().filter(|o| o.flowop == flowop).map(|o| o.ops).sum()
}

#[test]
fn every_personality_runs_on_every_design_with_data_checked() {
    for kind in ["f2fs", "zf2fs", "iplfs", "d2fs"] {
        for p in ["fileserver", "varmail", "webserver"] {
            let r = engine::run(scenario(kind, p, "filesize = \"64k\"\n")).unwrap_or_else(|e| panic!("{kind}/{p}: {e}"));
            assert_eq!(r.oracle.mismatches_count, 0, "{kind}/{p}");
            assert!(r.oracle.blocks_checked_count > 0, "{kind}/{p}: reads were checked");
            let total: u64 = r.flowops.iter().map(|o| o.ops).sum();
            assert!(total > 1_000, "{kind}/{p}: only {total} flowops");
            // Every flowop of the loop ran (each thread goes round it many times).
            for o in &r.flowops {
                assert!(o.ops > 0, "{kind}/{p}: {} never ran", o.name);
            }
        }
    }
}

#[test]
fn flowops_do_what_filebench_does() {
    let r = engine::run(scenario("f2fs", "varmail", "")).unwrap();
    // Two fsyncs per loop, reported in the sync section too.
    assert_eq!(ops(&r, "fsync"), r.jobs[0].sync.total_ios);
    let loops = r.flowops[0].ops;
    assert!(ops(&r, "fsync").abs_diff(2 * loops) <= 6 * 2, "fsyncs {} for {loops} loops", ops(&r, "fsync"));
    // Deletes and creates alternate, so the fileset neither fills nor empties.
    assert_eq!(r.flowops.iter().map(|o| o.skipped).sum::<u64>(), 0);
    let fs = r.fs.as_ref().unwrap();
    assert!(fs.counters.node_write_blocks > 0, "fsync writes the new inodes");

    // webserver reads ten files per append: reads dominate.
    let w = engine::run(scenario("f2fs", "webserver", "")).unwrap();
    // A thread stops anywhere in its loop: up to ten reads of 6 threads past the last append.
    let (reads, appends) = (ops(&w, "readwholefile"), ops(&w, "appendfilerand"));
    assert!(reads >= 10 * appends && reads - 10 * appends <= 60, "{reads} reads, {appends} appends");
    assert!(w.jobs[0].read.total_ios > w.jobs[0].write.total_ios);
}

#[test]
fn filebench_runs_are_deterministic_and_seeded() {
    let a = engine::run(scenario("d2fs", "fileserver", "")).unwrap().to_json();
    let b = engine::run(scenario("d2fs", "fileserver", "")).unwrap().to_json();
    assert_eq!(a, b);
    let mut s = scenario("d2fs", "fileserver", "");
    s.seed = 4;
    let c = engine::run(s).unwrap().to_json();
    assert_ne!(a, c);
}

#[test]
fn compare_scales_the_fileset_with_the_device() {
    use lfslab::compare::{designs_by_name, scenario_for};
    let f: lfslab::scenario::ScenarioFile =
        toml::from_str(lfslab::scenario::builtin("d2fs-fileserver").unwrap()).unwrap();
    let d = designs_by_name(&["f2fs".to_string()]).unwrap()[0];
    let half = scenario_for(&f, d, 0.5, std::path::Path::new(".")).unwrap();
    let fb = half.filebench.as_ref().unwrap();
    assert_eq!(fb.filesets[0].entries, 1406);
    assert_eq!(fb.runtime.as_secs_f64(), 12.5);
}

fn oltp(kind: &str, extra: &str) -> Scenario {
    let text = format!(
        "seed = 3\n[device]\npreset = \"femu\"\ncapacity_gib = 2\nchannels = 4\npages_per_block = 64\n[fs]\nkind = \"{kind}\"\n\
         [filebench]\npersonality = \"oltp\"\nfilesize = \"8m\"\nnshadows = 40\nndbwriters = 4\nruntime = 2\n{extra}"
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{kind}/oltp: {e}"))
}

#[test]
fn oltp_couples_its_threads_by_semaphores_as_filebench_does() {
    for kind in ["f2fs", "zf2fs", "iplfs", "d2fs"] {
        let r = engine::run(oltp(kind, "")).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.oracle.mismatches_count, 0, "{kind}");
        assert!(r.oracle.blocks_checked_count > 0, "{kind}: the shadows' reads were checked");
        for o in &r.flowops {
            assert!(o.ops > 0, "{kind}: {} never ran", o.name);
        }
        let by_name = |n: &str| r.flowops.iter().find(|o| o.name == n).unwrap().ops;
        let posts = by_name("shadow-post-lg");
        // The log writer passes its semblock once per 3200 shadow posts; each
        // database writer (every post reaches each) once per 1000.
        assert_eq!(by_name("lg-block"), posts / 3200, "{kind}: {posts} posts");
        let dbwr_rounds = by_name("dbwr-block") / 4;
        assert!(dbwr_rounds.abs_diff(posts / 1000) <= 1, "{kind}: {dbwr_rounds} rounds for {posts} posts");
        // A pass of a database writer is 100 writes (iters), each counted as
        // filebench counts them, and each synced (dsync).
        let writes = by_name("dbwrite-a");
        assert_eq!(writes % 100, 0);
        assert!(writes / 100 >= by_name("dbwr-block"), "{kind}: a writer writes before it blocks");
        assert_eq!(r.jobs[0].sync.total_ios, 0, "{kind}: dsync writes are not fsync calls");
        assert!(r.jobs[0].write.total_ios >= writes);
    }
    let a = engine::run(oltp("d2fs", "")).unwrap();
    let b = engine::run(oltp("d2fs", "")).unwrap();
    assert_eq!(a, b, "oltp runs are deterministic");
}

/// ScaleLFS's dedicated collectors move many sections per round before the
/// checkpoint that ends it writes the nodes they dirtied: at 97% full, past
/// the paper's size, rounds used to leave no room for those nodes and the
/// checkpoint panicked (scale 6, 270 s in). The round now keeps room for them.
#[test]
fn scalelfs_rounds_leave_room_for_the_checkpoints_nodes() {
    use lfslab::compare::{designs_by_name, scenario_for};
    let f: lfslab::scenario::ScenarioFile = toml::from_str(lfslab::scenario::builtin("scalelfs-oltp").unwrap()).unwrap();
    let d = designs_by_name(&["scalelfs".to_string()]).unwrap()[0];
    let mut s = scenario_for(&f, d, 6.0, std::path::Path::new(".")).unwrap();
    s.filebench.as_mut().unwrap().runtime = lfslab::sim::SimDuration::from_secs_f64(270.0);
    let r = engine::run(s).unwrap_or_else(|e| panic!("scalelfs-oltp at scale 6: {e}"));
    assert_eq!(r.oracle.mismatches_count, 0);
    let gc = r.gc.as_ref().expect("a GC report");
    assert!(gc.stats.rounds > 0, "collectors ran rounds");
}
