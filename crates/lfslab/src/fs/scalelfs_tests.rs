//! The parallel GC engines (F2FS-M, P-GC, ScaleLFS's DGC and its ablation
//! steps) on a tiny F2FS: data and consistency across rounds, crash
//! promises, and the locks each step of Table 3 removes.

use super::config::{GcEngineConfig, GcEngineKind};
use super::f2fs_tests::{content, ssd, stress_with};
use super::*;
use crate::sim::{SimDuration, SimTime};

fn engine(kind: GcEngineKind, threads: u32, on: bool) -> GcEngineConfig {
    GcEngineConfig {
        kind,
        threads,
        svp: on,
        dws: on,
        lsu: on,
        cvs: on,
        dpb: on,
        victim_scan_ns_per_segment: 50,
        ..GcEngineConfig::default()
    }
}

fn lfs(e: GcEngineConfig) -> FsConfig {
    FsConfig { mode: FsMode::Lfs, bg_gc: false, gc_engine: e, ..FsConfig::default() }
}

#[test]
fn every_engine_keeps_data_and_consistency_across_foreground_gc() {
    let engines = [
        engine(GcEngineKind::Multi, 3, true),
        engine(GcEngineKind::Pgc, 4, false),
        engine(GcEngineKind::Dgc, 4, true),
        engine(GcEngineKind::Dgc, 4, false),
    ];
    for e in engines {
        // Both check every read against the oracle and the SIT/NAT/SSA:
        // churn fills the volume so foreground GC runs; stress adds
        // namespace operations, truncates and checkpoints.
        let fs = churn(e.clone());
        assert!(fs.stats().gc_fg_count > 0, "{:?}: no foreground GC ran", e.kind);
        stress_with(7, lfs(e), 4_000, |_, _, _| {});
    }
}

#[test]
fn dedicated_collectors_keep_every_fsync_promise_across_a_crash() {
    let mut checked = 0;
    for on in [true, false] {
        let fs = churn_with(engine(GcEngineKind::Dgc, 4, on), true, |fs, t, n| {
            if n % 4_000 == 3_999 {
                let r = fs.crash_check(t, true).expect("tracking is on");
                assert_eq!(r.blocks_lost, 0, "op {n}: {:?}", r.first_loss);
                checked += r.blocks_checked;
            }
        });
        assert!(fs.stats().gc_fg_count > 0);
    }
    assert!(checked > 50_000, "crash checks covered {checked} promised blocks");
}

/// Files written at random, then overwritten until foreground GC has run
/// a while: the collectors' lock use and parallelism.
fn churn(e: GcEngineConfig) -> F2fs<crate::ftl::Ssd> {
    churn_with(e, false, |_, _, _| {})
}

/// `churn` with an fsync of the written file every 64 writes and
/// `hook(fs, now, write index)` after each write.
fn churn_with(e: GcEngineConfig, track_recovery: bool, mut hook: impl FnMut(&mut F2fs<crate::ftl::Ssd>, SimTime, u64)) -> F2fs<crate::ftl::Ssd> {
    let mut cfg = lfs(e);
    cfg.track_recovery = track_recovery;
    cfg.page_cache_pages = 1024;
    cfg.bg_gc = false;
    let mut fs = F2fs::format(ssd(256), cfg).unwrap();
    let mut t = SimTime::ZERO;
    let root = fs.root();
    let files: Vec<Ino> = (0..8)
        .map(|i| {
            let (ino, t2) = fs.create(t, root, &format!("f{i}")).unwrap();
            t = t2;
            ino
        })
        .collect();
    let per_file = 4_000u64;
    for (i, &ino) in files.iter().enumerate() {
        t = fs.write(t, ino, 0, &content(i as u64 + 1, per_file as usize)).unwrap();
    }
    let mut x = 12345u64;
    for n in 0..60_000u64 {
        x = crate::sim::mix64(x.wrapping_add(n));
        let ino = files[(x % files.len() as u64) as usize];
        let off = (x >> 8) % per_file;
        t = fs.write(t, ino, off, &content(1_000 + n, 1)).unwrap();
        if track_recovery && n % 64 == 63 {
            t = fs.fsync(t, ino).unwrap();
        }
        t = t + SimDuration(1_000);
        hook(&mut fs, t, n);
    }
    fs.check_consistency().unwrap();
    assert_eq!(fs.oracle().mismatches_count, 0);
    fs
}

fn lock(fs: &F2fs<crate::ftl::Ssd>, name: &str) -> crate::host::LockStats {
    fs.gc_lock_table().0.into_iter().find(|(n, _)| n.starts_with(name)).unwrap().1
}

#[test]
fn spgc_collectors_wait_on_i_gc_rwsem_and_svp_removes_it() {
    let spgc = churn(engine(GcEngineKind::Dgc, 4, false));
    let g = spgc.gc_engine_stats().clone();
    assert!(spgc.stats().gc_fg_count > 0);
    let rw = lock(&spgc, "i_gc_rwsem");
    assert!(rw.contended > 0 && rw.wait_ns > 0, "file-level locks of shared files should collide: {rw:?}");
    assert!(lock(&spgc, "sentry_lock").acquisitions > 0 && lock(&spgc, "seglist_lock").acquisitions > 0);
    assert!(lock(&spgc, "curseg_mutex").acquisitions > 0);
    assert!(g.worker_busy_ns > g.round_ns, "four collectors should overlap: busy {} ns over {} ns of rounds", g.worker_busy_ns, g.round_ns);
    let full = churn(engine(GcEngineKind::Dgc, 4, true));
    for name in ["i_gc_rwsem", "sentry_lock", "seglist_lock"] {
        assert_eq!(lock(&full, name).acquisitions, 0, "ScaleLFS takes no {name}");
    }
    assert!(full.gc_engine_stats().svp_reservations > 0);
}

#[test]
fn parallel_rounds_are_deterministic() {
    let a = churn(engine(GcEngineKind::Dgc, 3, false));
    let b = churn(engine(GcEngineKind::Dgc, 3, false));
    assert_eq!(a.stats(), b.stats());
    assert_eq!(a.gc_lock_table(), b.gc_lock_table());
}

/// A writer's SSR victim search costs what GC's scan does per segment,
/// under `seglist_lock` inside its log's `curseg_mutex`
/// (`f2fs_allocate_data_block` -> `get_ssr_segment` -> `f2fs_get_victim`);
/// with no scan cost (every design but ScaleLFS's scenarios) it is free.
#[test]
fn ssr_victim_searches_are_charged_to_the_writer() {
    let run = |ns: u64| {
        let e = GcEngineConfig { victim_scan_ns_per_segment: ns, ..GcEngineConfig::default() };
        let cfg = FsConfig { mode: FsMode::Adaptive, ipu_policy: IpuPolicy(0), gc_engine: e, ..FsConfig::default() };
        stress_with(3, cfg, 6_000, |_, _, _| {})
    };
    let free = run(0);
    let charged = run(50);
    assert!(free.stats().ssr_blocks > 0, "the workload must recycle slack space");
    assert!(free.gc_engine_stats().ssr_scanned_segments > 0);
    assert_eq!(lock(&free, "seglist_lock").acquisitions, 0, "a free search takes no time under the lock");
    let seglist = lock(&charged, "seglist_lock");
    assert!(seglist.acquisitions > 0);
    let st = charged.gc_engine_stats();
    assert_eq!(seglist.hold_ns, 50 * (st.ssr_scanned_segments + st.scanned_segments));
}

/// Writers that arrive during a round (O_DIRECT in LFS mode allocates
/// before it balances) meet the collectors where each block's move stood
/// at their instant (`move_log.rs`): with LSU a block replaced between the
/// victim's bitmap scan and its read is a false-positive GC read, and a
/// writer at the round's start or after its end meets nothing.
#[test]
fn writers_during_a_round_meet_the_collectors_at_their_instant() {
    let run = |on: bool, place: fn(SimTime, SimTime) -> SimTime| {
        let mut last = (SimTime::ZERO, SimTime::ZERO);
        let fs = churn_with(engine(GcEngineKind::Dgc, 4, on), false, |fs, _, n| {
            let round = fs.fg_round;
            if round == last || round.0 >= round.1 {
                return;
            }
            last = round;
            // Another thread's writes, one block each, at one instant.
            let x = place(round.0, round.1);
            let root = fs.root();
            let inos: Vec<Ino> = (0..8).map(|i| fs.lookup(x, root, &format!("f{i}")).unwrap().0.unwrap()).collect();
            for k in 0..64u64 {
                let ino = inos[(k % 8) as usize];
                let off = crate::sim::mix64(n * 64 + k) % 4_000;
                fs.write(x, ino, off, &content(900_000 + n * 64 + k, 1)).unwrap();
            }
        });
        fs.gc_engine_stats().clone()
    };
    let inside = |from: SimTime, until: SimTime| from + SimDuration((until - from).ns() / 3);
    let full = run(true, inside);
    assert!(full.writers_in_rounds > 0);
    assert!(full.false_positive_reads > 0, "LSU: {full:?}");
    assert!(full.skipped_writes >= full.false_positive_reads);
    let spgc = run(false, inside);
    assert!(spgc.writers_in_rounds > 0);
    assert_eq!(spgc.false_positive_reads, 0, "without LSU the read phase re-checks the bitmap: {spgc:?}");
    assert_eq!(spgc.svp_conflicts, 0);
    assert!(spgc.stale_moves + spgc.skipped_writes > 0, "{spgc:?}");
    let after = run(true, |_, until| until + SimDuration(1));
    assert_eq!(after.writers_in_rounds, 0);
    assert_eq!(after.false_positive_reads + after.skipped_writes + after.stale_moves + after.svp_conflicts, 0);
}
