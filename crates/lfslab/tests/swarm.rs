//! The crash swarm's CI batch: every design, random workloads with power
//! cuts and remounts (`lfslab swarm`); a benchmark-sized run is in
//! docs/robustness.md.

use lfslab::swarm::{designs, run_seed, swarm};

/// Seeds per design in CI (about a second each on two cores).
const SEEDS: u64 = 16;

#[test]
fn every_design_survives_its_crash_batch() {
    for d in designs() {
        let sum = swarm(d, 1, SEEDS, None, |r| {
            assert!(r.failure.is_none(), "{} -- {}\n  setup: {}", r.reproducer(), r.failure.as_deref().unwrap_or(""), r.setup);
        })
        .unwrap();
        assert_eq!(sum.failed, 0, "{d}: {:?}", sum.failures);
        assert!(sum.counts.crashes >= SEEDS, "{d}: only {} crashes", sum.counts.crashes);
        assert!(sum.counts.promised_checked > 10_000, "{d}: only {} promised blocks checked", sum.counts.promised_checked);
        assert!(sum.counts.crashes_after_checkpoint > 0 && sum.counts.checkpoints > 0, "{d}: no crash after a checkpoint");
        assert!(sum.counts.blocks_read_checked > 10_000, "{d}: only {} blocks read back", sum.counts.blocks_read_checked);
        // Garbage collection happens where the design has it.
        match d {
            "d2fs" => assert!(
                sum.counts.records_created > 0 && sum.counts.crashes_with_upcalls > 0,
                "d2fs: no crash left migration records to redo ({} created)",
                sum.counts.records_created
            ),
            "iplfs" | "f2fs-adaptive" => assert!(sum.counts.device_gc > 0, "{d}: the device never collected"),
            "zf2fs" | "f2fs" => assert!(sum.counts.fs_gc > 0 && sum.counts.crashes_after_gc > 0, "{d}: no crash after FS GC"),
            _ => {}
        }
    }
}

#[test]
fn a_seed_replays_bit_for_bit() {
    for d in ["f2fs-adaptive", "d2fs"] {
        let a = run_seed(d, 7, Some(800)).unwrap();
        let b = run_seed(d, 7, Some(800)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a.setup, run_seed(d, 8, Some(800)).unwrap().setup, "{d}: the seed should draw the setup");
    }
}

#[test]
fn unknown_design_is_an_error() {
    let e = run_seed("ext5", 1, Some(10)).unwrap_err();
    assert!(e.contains("--design") && e.contains("f2fs"), "{e}");
}

/// Seeds that failed once in a long run (docs/robustness.md), kept so the
/// fixes stay. D2FS 4408 took a free-section fault with no free section
/// left, so the fault's checkpoint had nowhere to write its dirty nodes.
/// D2FS 4003 then ran out of space in a writeback, which dropped the dirty
/// pages it had not written yet: a later read returned older data (the
/// page cache's `redirty` test keeps that fix).
#[test]
fn seeds_the_long_swarm_caught_stay_fixed() {
    for (d, seed) in [("d2fs", 4408)] {
        let r = run_seed(d, seed, None).unwrap();
        assert!(r.failure.is_none(), "{} -- {}", r.reproducer(), r.failure.as_deref().unwrap_or(""));
    }
}
