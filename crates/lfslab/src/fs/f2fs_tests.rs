//! F2FS tests on a tiny simulated SSD: the data oracle across GC, SSR, IPU
//! and checkpoints; consistency of SIT/NAT/SSA; determinism.

use super::*;
use crate::ftl::{FtlConfig, Ssd, SsdConfig};
use crate::nand::{Geometry, Preset};
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{SimDuration, SimRng, SimTime};

pub(super) fn ssd(capacity_mib: u64) -> Ssd {
    let geometry = Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 0,
        pages_per_block: 64,
        page_bytes: 4096,
    };
    let mut geometry = geometry;
    let logical = capacity_mib << 8;
    geometry.blocks_per_plane = crate::nand::blocks_for_capacity(&geometry, logical * 4096, 0.15);
    Ssd::new(ssd_config(geometry, logical)).unwrap()
}

/// A FEMU-timed device config with greedy GC, shared with the D2FS tests.
pub(super) fn ssd_config(geometry: Geometry, logical_pages: u64) -> SsdConfig {
    SsdConfig {
        geometry,
        timing: Preset::Femu.timing(),
        logical_pages,
        ftl: FtlConfig {
            mapping: "page".into(),
            victim_policy: "greedy".into(),
            gc_threshold_superblocks: 2,
            gc_background_superblocks: 0,
            write_buffer_slots: 64,
            streams: 1,
            map_segment_blocks: crate::ftl::interval_mapping::MIN_SEGMENT_BLOCKS,
            remap_entry_ns: 100,
        },
    }
}

pub(super) fn content(tag: u64, n: usize) -> Vec<Fingerprint> {
    (0..n as u64).map(|i| DataTag(tag).block(i)).collect()
}

/// Random file operations; returns the filesystem for inspection.
fn stress(seed: u64, cfg: FsConfig, ops: usize) -> F2fs<Ssd> {
    stress_with(seed, cfg, ops, |_, _, _| {})
}

/// `stress`, calling `hook(fs, now, op index)` after every operation.
pub(super) fn stress_with(seed: u64, mut cfg: FsConfig, ops: usize, hook: impl FnMut(&mut F2fs<Ssd>, SimTime, usize)) -> F2fs<Ssd> {
    // A small cache, so eviction and dirty throttling happen.
    cfg.page_cache_pages = 2048;
    stress_on(seed, F2fs::format(ssd(128), cfg).unwrap(), ops, hook)
}

/// Random file operations on a formatted `fs`, checking data and consistency.
pub(super) fn stress_on(seed: u64, mut fs: F2fs<Ssd>, ops: usize, mut hook: impl FnMut(&mut F2fs<Ssd>, SimTime, usize)) -> F2fs<Ssd> {
    let mut rng = SimRng::new(seed);
    let mut t = SimTime::ZERO;
    // (directory, name, inode) of each live file; files go in the root or one subdirectory.
    let mut files: Vec<(Ino, String, Ino)> = Vec::new();
    let root = fs.root();
    let (sub, t0) = fs.mkdir(t, root, "sub").unwrap();
    t = t0;
    let max_off = 2_500u64;
    for n in 0..ops {
        let r = rng.below(100);
        if files.is_empty() || (r < 4 && files.len() < 6) {
            let dir = if rng.below(2) == 0 { root } else { sub };
            let name = format!("f{n}");
            let (ino, t2) = fs.create(t, dir, &name).unwrap();
            files.push((dir, name, ino));
            t = t2;
            continue;
        }
        let k = rng.below(files.len() as u64) as usize;
        let ino = files[k].2;
        t = match r {
            0..=44 => {
                let len = 1 + rng.below(32) as usize;
                let off = rng.below(max_off);
                fs.write(t, ino, off, &content(n as u64 + 1, len)).unwrap()
            }
            45..=64 => {
                let len = 1 + rng.below(32) as usize;
                let off = rng.below(max_off);
                fs.write_buffered(t, ino, off, &content(n as u64 + 1, len)).unwrap()
            }
            65..=74 => {
                let off = rng.below(max_off);
                fs.read(t, ino, off, 1 + rng.below(64)).unwrap()
            }
            75..=84 => {
                let off = rng.below(max_off);
                fs.read_buffered(t, ino, off, 1 + rng.below(64)).unwrap()
            }
            85..=89 => fs.fsync(t, ino).unwrap(),
            90..=92 => {
                let size = fs.file_size_blocks(ino).unwrap();
                fs.truncate(t, ino, size / 2).unwrap()
            }
            93 if files.len() > 1 => {
                let (dir, name, _) = files.remove(k);
                if rng.below(2) == 0 {
                    fs.unlink(t, dir, &name).unwrap()
                } else {
                    // Unlinked while open: an orphan until closed, readable meanwhile.
                    let t = fs.open(t, ino).unwrap();
                    let t = fs.unlink(t, dir, &name).unwrap();
                    let t = fs.read(t, ino, 0, 8).unwrap();
                    fs.close(t, ino).unwrap()
                }
            }
            94 => fs.checkpoint(t),
            95 => fs.flusher(t + SimDuration::from_secs(1)).unwrap(),
            96 => {
                // Rename to the other directory, sometimes over another file.
                let (dir, name, _) = files[k].clone();
                let to_dir = if dir == root { sub } else { root };
                let over = files.iter().position(|f| f.0 == to_dir);
                let to = match over.filter(|_| rng.below(4) == 0) {
                    Some(j) => files[j].1.clone(),
                    None => format!("r{n}"),
                };
                let t = fs.rename(t, dir, &name, to_dir, &to).unwrap();
                files.retain(|f| !(f.0 == to_dir && f.1 == to));
                let k = files.iter().position(|f| f.2 == ino).unwrap();
                files[k] = (to_dir, to, ino);
                t
            }
            97 => {
                let off = rng.below(max_off);
                fs.fallocate(t, ino, off, 1 + rng.below(16), rng.below(2) == 0).unwrap()
            }
            _ => fs.on_idle(t + SimDuration::from_secs(1)).unwrap(),
        };
        if n % 500 == 0 {
            fs.check_consistency().unwrap_or_else(|e| panic!("seed {seed} op {n}: {e}"));
        }
        hook(&mut fs, t, n);
    }
    for &(_, _, ino) in &files {
        let size = fs.file_size_blocks(ino).unwrap();
        t = fs.read(t, ino, 0, size).unwrap();
    }
    fs.check_consistency().unwrap_or_else(|e| panic!("seed {seed} at end: {e}"));
    assert_eq!(fs.oracle().mismatches_count, 0, "seed {seed}: stale data read");
    fs
}

#[test]
fn lfs_mode_survives_gc_and_checkpoints() {
    let mut fg_gcs = 0;
    for seed in 0..4 {
        let cfg = FsConfig { mode: FsMode::Lfs, ..FsConfig::default() };
        let fs = stress(seed, cfg, 12_000);
        let s = fs.stats();
        fg_gcs += s.gc_fg_count;
        assert!(s.checkpoints > 0);
        assert_eq!(s.ipu_blocks, 0, "LFS mode never writes in place");
        assert_eq!(s.ssr_blocks, 0, "LFS mode never recycles slack space");
    }
    assert!(fg_gcs > 0, "the tiny FS should run out of free sections in some runs");
}

#[test]
fn adaptive_mode_uses_ssr_and_ipu() {
    for seed in 0..4 {
        let cfg = FsConfig { mode: FsMode::Adaptive, ipu_policy: IpuPolicy(IpuPolicy::SSR_UTIL), min_ipu_util: 10, ..FsConfig::default() };
        let fs = stress(seed, cfg, 6_000);
        let s = fs.stats();
        assert!(s.ssr_blocks > 0 || s.ipu_blocks > 0, "seed {seed}: adaptive mode never left LFS: {s:?}");
    }
}

#[test]
fn crash_recovery_keeps_every_fsync_and_checkpoint_promise() {
    let (mut checked, mut lost_without_roll_forward) = (0, 0);
    for seed in 0..4 {
        for (mode, discard) in [(FsMode::Lfs, DiscardPolicy::IdleBatched), (FsMode::Adaptive, DiscardPolicy::IdleBatched), (FsMode::Lfs, DiscardPolicy::Immediate)] {
            // Adaptive mode also updates in place (IPU) and recycles slack
            // space; immediate discard trims every released run at checkpoint
            // and must never trim a block a roll-forward needs.
            let cfg = FsConfig {
                mode,
                discard,
                ipu_policy: IpuPolicy(IpuPolicy::SSR_UTIL),
                min_ipu_util: 10,
                track_recovery: true,
                ..FsConfig::default()
            };
            stress_with(seed, cfg, 3_000, |fs, t, n| {
                if n % 97 == 0 {
                    let r = fs.crash_check(t, true).expect("tracking is on");
                    assert_eq!(r.blocks_lost, 0, "seed {seed} {mode:?} op {n}: {:?}", r.first_loss);
                    checked += r.blocks_checked;
                    lost_without_roll_forward += fs.crash_check(t, false).unwrap().blocks_lost;
                }
            });
        }
    }
    eprintln!("crash checks: {checked} promised blocks intact; checkpoint-only recovery would lose {lost_without_roll_forward}");
    assert!(checked > 10_000, "crash checks covered {checked} promised blocks");
    // Control: the checkpoint alone loses what was fsync'd after it, so the
    // check can see a loss, and roll-forward is what prevents it.
    assert!(lost_without_roll_forward > 0, "checkpoint-only recovery should lose fsync'd data");
}

/// Control for the mount's check: a device that lost a promised block
/// (discarded behind the filesystem's back) makes the mount report it.
#[test]
fn remount_reports_a_promised_block_the_device_lost() {
    let cfg = FsConfig { track_recovery: true, page_cache_pages: 2048, ..FsConfig::default() };
    let mut fs = F2fs::format(ssd(128), cfg).unwrap();
    let (ino, t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let t = fs.write(t, ino, 0, &content(1, 64)).unwrap();
    let t = fs.fsync(t, ino).unwrap();
    let (mut fs, rep) = fs.crash_remount(t).unwrap();
    assert!(rep.errors.is_empty() && rep.rolled_forward == 1 && rep.dentries_recovered == 1, "{rep:?}");
    assert_eq!(rep.promised_checked, 64);
    let ino = fs.lookup(t, fs.root(), "f").unwrap().0.expect("fsync'd file recovered by name");
    let addr = fs.block_address(ino, 3).expect("block 3 is mapped");
    crate::nvme::BlockDevice::discard(&mut fs.dev, t, crate::nand::Lpn(addr), 1);
    let (_, rep) = fs.crash_remount(t + SimDuration(1)).unwrap();
    assert_eq!(rep.promised_lost, 1, "{rep:?}");
    assert!(rep.errors.iter().any(|e| e.contains("block 3")), "{:?}", rep.errors);
}

/// fdatasync of a write into a hole past the inode's own addresses, with
/// the size unchanged: the new direct node hangs off the inode's i_nid, so
/// the inode block is written too (f2fs_fsync_node_pages writes the inode's
/// dirty page; set_nid dirtied it). Found by `lfslab swarm --design rmipu
/// --seed 20`: without it the mount has the dnode but no path to it.
#[test]
fn fdatasync_into_a_hole_keeps_the_new_direct_node_reachable() {
    let cfg = FsConfig { track_recovery: true, page_cache_pages: 2048, ..FsConfig::default() };
    let mut fs = F2fs::format(ssd(128), cfg).unwrap();
    let (ino, t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let t = fs.write(t, ino, 0, &content(1, 8)).unwrap();
    let t = fs.truncate(t, ino, 1000).unwrap();
    let t = fs.fsync(t, ino).unwrap();
    let t = fs.checkpoint(t);
    let t = fs.write(t, ino, 950, &content(2, 4)).unwrap();
    let t = fs.fdatasync(t, ino).unwrap();
    let (fs, rep) = fs.crash_remount(t).unwrap();
    assert!(rep.errors.is_empty(), "{rep:?}");
    assert!(rep.promised_checked >= 12, "{rep:?}");
    assert!(fs.block_address(ino, 951).is_some(), "block 951 must be reachable after the mount");
}

#[test]
fn same_seed_same_state() {
    let a = stress(9, FsConfig::default(), 2_000);
    let b = stress(9, FsConfig::default(), 2_000);
    assert_eq!(a.stats(), b.stats());
    assert_eq!(a.dev.stats(), b.dev.stats());
}

#[test]
fn random_updates_fragment_a_sequential_read() {
    let mut fs = F2fs::format(ssd(128), FsConfig { mode: FsMode::Lfs, ..FsConfig::default() }).unwrap();
    let (ino, mut t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let blocks = 4096u64;
    for chunk in 0..blocks / 256 {
        t = fs.write(t, ino, chunk * 256, &content(chunk + 1, 256)).unwrap();
    }
    let before = fs.stats().clone();
    t = fs.read(t, ino, 0, blocks).unwrap();
    let seq_kib = (fs.stats().app_read_cmd_blocks - before.app_read_cmd_blocks) as f64 * 4.0
        / (fs.stats().app_read_cmds - before.app_read_cmds) as f64;
    let mut rng = SimRng::new(1);
    for i in 0..1024 {
        t = fs.write(t, ino, rng.below(blocks), &content(10_000 + i, 1)).unwrap();
    }
    let before = fs.stats().clone();
    fs.read(t, ino, 0, blocks).unwrap();
    let frag_kib = (fs.stats().app_read_cmd_blocks - before.app_read_cmd_blocks) as f64 * 4.0
        / (fs.stats().app_read_cmds - before.app_read_cmds) as f64;
    assert!(seq_kib >= 512.0, "fresh file reads in large requests: {seq_kib} KiB");
    assert!(frag_kib < seq_kib / 4.0, "after random updates requests shrink: {frag_kib} vs {seq_kib} KiB");
    assert_eq!(fs.oracle().mismatches_count, 0);
}

/// An LFS-mode F2FS with a file of 70% of its user blocks, overwritten
/// directly at random until the last write leaves it short of free sections
/// (the next balance collects). Returns the file, its blocks, the time, and
/// the generator for more offsets.
fn short_of_free_sections(seed: u64) -> (F2fs<Ssd>, Ino, u64, SimTime, SimRng) {
    let mut fs = F2fs::format(ssd(128), FsConfig { mode: FsMode::Lfs, ..FsConfig::default() }).unwrap();
    let (ino, mut t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    let blocks = fs.layout().user_blocks * 7 / 10 / 256 * 256;
    for chunk in 0..blocks / 256 {
        t = fs.write(t, ino, chunk * 256, &content(chunk + 1, 256)).unwrap();
    }
    let mut rng = SimRng::new(seed);
    let mut n = 0;
    while !fs.not_enough_free_secs() {
        t = fs.write(t, ino, rng.below(blocks), &content(100_000 + n, 1)).unwrap();
        n += 1;
        assert!(n < 1_000_000, "never short of free sections");
    }
    (fs, ino, blocks, t, rng)
}

/// Short of free sections, a whole-block buffered overwrite runs
/// foreground GC before it reaches the page cache: `f2fs_preallocate_blocks`
/// -> `f2fs_map_blocks(F2FS_GET_BLOCK_PRE_AIO)` -> `f2fs_balance_fs`.
#[test]
fn a_buffered_overwrite_short_of_space_runs_gc() {
    let (mut fs, ino, blocks, t, mut rng) = short_of_free_sections(3);
    let gcs = fs.stats().gc_fg_count;
    fs.write_buffered(t, ino, rng.below(blocks), &content(1, 1)).unwrap();
    assert!(fs.stats().gc_fg_count > gcs, "an overwrite did not balance");
    assert!(!fs.not_enough_free_secs());
}

/// A second thread that balances while a foreground round runs sleeps on
/// gc_lock until the round ends: the sections come back only at its
/// checkpoint (`f2fs_balance_fs`, Linux 6.0).
#[test]
fn a_writer_inside_a_gc_round_waits_for_its_end() {
    let (mut fs, ino, blocks, t, mut rng) = short_of_free_sections(5);
    // Thread A runs the round; thread B arrives 1 us after it starts.
    let gcs = fs.stats().gc_fg_count;
    fs.balance_fs(t).unwrap();
    let (from, until) = fs.fg_round;
    assert!(fs.stats().gc_fg_count > gcs && from >= t && until > from + SimDuration::from_us(1));
    // The state is the round's end: enough free sections, yet B, inside
    // the round's span, must not see them before its checkpoint.
    assert!(!fs.not_enough_free_secs());
    let (gcs, stalled) = (fs.stats().gc_fg_count, fs.stats().fg_gc_stall_ns);
    let b_at = from + SimDuration::from_us(1);
    let b = fs.balance_fs(b_at).unwrap();
    assert_eq!(b, until, "B went on inside the round [{from}, {until})");
    assert_eq!(fs.stats().fg_gc_stall_ns - stalled, (until - b_at).ns());
    assert_eq!(fs.stats().gc_fg_count, gcs, "B collected again");
    // A writer after every round waits only for a round of its own.
    let c_at = fs.fg_round.1 + SimDuration::from_ms(1);
    let gcs = fs.stats().gc_fg_count;
    let c = fs.write(c_at, ino, rng.below(blocks), &content(3, 1)).unwrap();
    assert!(c < c_at + SimDuration::from_ms(1) || fs.stats().gc_fg_count > gcs, "C waited {c} without collecting");
}

/// The flusher is a thread of its own (`fs::flusher`): a kupdate pass whose
/// chunks need foreground GC yields at each round, so a writer that comes
/// just after the pass began waits for the round in progress, not for every
/// round the pass runs (a pass simulated whole at its start booked them all
/// on gc_lock and cp_rwsem before the writer).
#[test]
fn a_writer_waits_for_the_flushers_gc_round_not_its_whole_pass() {
    use crate::fs::vfs::{IoMode, Vfs};
    let (mut fs, ino, blocks, mut t, mut rng) = short_of_free_sections(11);
    // 4096 dirty pages: under the background threshold (6553), so only
    // kupdate writes them.
    for k in 0..4096 {
        t = Vfs::write(&mut fs, t, ino, rng.below(blocks), &content(200_000 + k, 1), IoMode::Buffered).unwrap();
    }
    assert!(fs.flush.is_idle());
    let gcs = fs.stats().gc_fg_count;
    let t0 = t + SimDuration::from_secs(31);
    fs.flusher(t0).unwrap();
    assert!(!fs.flush.is_idle(), "the pass never blocked in foreground GC");
    let w_at = t0 + SimDuration::from_us(1);
    let w = Vfs::write(&mut fs, w_at, ino, rng.below(blocks), &content(9, 1), IoMode::Buffered).unwrap();
    fs.flusher_catch_up(t0 + SimDuration::from_secs(1000)).unwrap();
    assert!(fs.flush.is_idle());
    let (rounds, pass_end) = (fs.stats().gc_fg_count - gcs, fs.fg_round.1);
    assert!(rounds >= 3, "the pass ran {rounds} foreground rounds");
    assert!(w < pass_end, "the writer at {w_at} went on at {w}, after the pass's last round ended ({pass_end})");
    // Only the writer's page, dirtied after the pass took its count, is left.
    assert!(fs.dirty_and_writeback(pass_end + SimDuration::from_secs(1)).0 <= 1, "kupdate left pages dirty");
    fs.check_consistency().unwrap();
}

/// The flusher is one thread: a pass of many chunks that never meets
/// foreground GC runs them one after another on its own clock, so it never
/// queues on its own curseg_mutex hold (its chunks once all started at the
/// pass's instant and waited on each other).
#[test]
fn the_flusher_never_waits_on_its_own_curseg_hold() {
    use crate::fs::vfs::{IoMode, Vfs};
    let mut fs = F2fs::format(ssd(128), FsConfig::default()).unwrap();
    let root = Vfs::root(&fs);
    let (ino, mut t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    // 4096 pages, every other block: 8 chunks of 512 for kupdate.
    for k in 0..4096 {
        t = Vfs::write(&mut fs, t, ino, 2 * k, &content(k + 1, 1), IoMode::Buffered).unwrap();
    }
    let before = fs.lock_stats().curseg_warm_data;
    fs.flusher(t + SimDuration::from_secs(31)).unwrap();
    fs.flusher_catch_up(t + SimDuration::from_secs(60)).unwrap();
    let after = fs.lock_stats().curseg_warm_data;
    assert_eq!(fs.stats().gc_fg_count, 0);
    assert!(after.acquisitions >= before.acquisitions + 8, "{} chunks", after.acquisitions - before.acquisitions);
    assert_eq!(after.wait_ns, before.wait_ns, "the flusher waited on its own curseg hold");
    assert_eq!(fs.dirty_and_writeback(t + SimDuration::from_secs(60)).0, 0);
}

#[test]
fn errors_are_results() {
    let mut fs = F2fs::format(ssd(128), FsConfig::default()).unwrap();
    assert_eq!(fs.write(SimTime::ZERO, 999, 0, &content(1, 1)), Err(FsError::NoSuchFile(999)));
    let (ino, t) = fs.create(SimTime::ZERO, fs.root(), "f").unwrap();
    assert!(matches!(fs.write(t, ino, super::node::MAX_FILE_BLOCKS, &content(1, 1)), Err(FsError::TooLarge { .. })));
}

#[derive(Clone, Debug)]
enum FsOp {
    Create,
    Write { file: usize, off: u64, len: usize, buffered: bool },
    Read { file: usize, off: u64, len: u64, buffered: bool },
    Fsync { file: usize, data_only: bool },
    Truncate { file: usize, keep_pct: u64 },
    Unlink { file: usize },
    Checkpoint,
    Flusher,
    Idle,
}

fn fs_op() -> impl proptest::strategy::Strategy<Value = FsOp> {
    use proptest::prelude::*;
    prop_oneof![
        1 => Just(FsOp::Create),
        12 => (0..4usize, 0..4000u64, 1..128usize, any::<bool>())
            .prop_map(|(file, off, len, buffered)| FsOp::Write { file, off, len, buffered }),
        4 => (0..4usize, 0..4000u64, 1..128u64, any::<bool>())
            .prop_map(|(file, off, len, buffered)| FsOp::Read { file, off, len, buffered }),
        2 => (0..4usize, any::<bool>()).prop_map(|(file, data_only)| FsOp::Fsync { file, data_only }),
        1 => (0..4usize, 0..100u64).prop_map(|(file, keep_pct)| FsOp::Truncate { file, keep_pct }),
        1 => (0..4usize).prop_map(|file| FsOp::Unlink { file }),
        1 => Just(FsOp::Checkpoint),
        1 => Just(FsOp::Flusher),
        1 => Just(FsOp::Idle),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]

    /// Weighted random file operations on a tiny F2FS (128 MiB, so foreground
    /// GC and checkpoints run): every read returns the last write and the
    /// SIT/NAT/SSA stay consistent, in both modes.
    #[test]
    fn fs_ops_keep_data_and_consistency(
        ops in proptest::collection::vec(fs_op(), 100..400),
        lfs in proptest::prelude::any::<bool>(),
    ) {
        let mode = if lfs { FsMode::Lfs } else { FsMode::Adaptive };
        let cfg = FsConfig { mode, ipu_policy: IpuPolicy(IpuPolicy::SSR_UTIL), min_ipu_util: 50, page_cache_pages: 1024, ..FsConfig::default() };
        let mut fs = F2fs::format(ssd(128), cfg).unwrap();
        let mut t = SimTime::ZERO;
        let mut files: Vec<Ino> = Vec::new();
        let root = fs.root();
        for (n, op) in ops.iter().enumerate() {
            let pick = |files: &Vec<Ino>, i: usize| files.get(i % files.len().max(1)).copied();
            t = match *op {
                FsOp::Create => {
                    let (ino, t2) = fs.create(t, root, &format!("f{n}")).unwrap();
                    files.push(ino);
                    t2
                }
                FsOp::Write { file, off, len, buffered } => {
                    let r = match pick(&files, file) {
                        Some(ino) if buffered => fs.write_buffered(t, ino, off, &content(n as u64 + 1, len)),
                        Some(ino) => fs.write(t, ino, off, &content(n as u64 + 1, len)),
                        None => Ok(t),
                    };
                    match r {
                        Ok(t2) => t2,
                        // A full filesystem refuses new blocks before changing anything.
                        Err(FsError::NoSpace) => t,
                        Err(e) => panic!("{e}"),
                    }
                }
                FsOp::Read { file, off, len, buffered } => match pick(&files, file) {
                    Some(ino) if buffered => fs.read_buffered(t, ino, off, len).unwrap(),
                    Some(ino) => fs.read(t, ino, off, len).unwrap(),
                    None => t,
                },
                FsOp::Fsync { file, data_only } => match pick(&files, file) {
                    Some(ino) if data_only => fs.fdatasync(t, ino).unwrap(),
                    Some(ino) => fs.fsync(t, ino).unwrap(),
                    None => t,
                },
                FsOp::Truncate { file, keep_pct } => match pick(&files, file) {
                    Some(ino) => {
                        let size = fs.file_size_blocks(ino).unwrap();
                        fs.truncate(t, ino, size * keep_pct / 100).unwrap()
                    }
                    None => t,
                },
                FsOp::Unlink { file } => match pick(&files, file) {
                    Some(ino) => {
                        files.retain(|&f| f != ino);
                        let name = (0..n).map(|i| format!("f{i}")).find(|nm| fs.lookup(t, root, nm).unwrap().0 == Some(ino)).unwrap();
                        fs.unlink(t, root, &name).unwrap()
                    }
                    None => t,
                },
                FsOp::Checkpoint => fs.checkpoint(t),
                FsOp::Flusher => fs.flusher(t + SimDuration::from_secs(31)).unwrap(),
                FsOp::Idle => fs.on_idle(t + SimDuration::from_secs(61)).unwrap(),
            };
        }
        for &ino in &files {
            let size = fs.file_size_blocks(ino).unwrap();
            t = fs.read(t, ino, 0, size).unwrap();
        }
        proptest::prop_assert!(fs.check_consistency().is_ok(), "{:?}", fs.check_consistency());
        proptest::prop_assert_eq!(fs.oracle().mismatches_count, 0);
    }
}

/// The flusher's writeback goes on from where its last pass stopped
/// (range-cyclic, `f2fs_write_cache_pages` from `writeback_index`): a
/// second pass writes the next pages of the file, not its first ones again
/// after they were dirtied anew.
#[test]
fn writeback_resumes_where_the_last_pass_stopped() {
    use crate::fs::vfs::Vfs;
    let mut fs = F2fs::format(ssd(128), FsConfig::default()).unwrap();
    let root = Vfs::root(&fs);
    let (ino, mut t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    t = fs.write_buffered(t, ino, 0, &content(1, 64)).unwrap();
    t = fs.writeback(t, 16).unwrap();
    assert!((0..16).all(|o| fs.block_state(ino, o) == (true, false)));
    assert_eq!(fs.block_state(ino, 16), (false, true));
    // Page 0 is dirty again; the next pass still starts after page 15.
    t = fs.write_buffered(t, ino, 0, &content(2, 1)).unwrap();
    fs.writeback(t, 16).unwrap();
    assert!((16..32).all(|o| fs.block_state(ino, o) == (true, false)), "the second pass went back to offset 0");
    assert_eq!(fs.block_state(ino, 0), (true, true));
    assert_eq!(fs.block_state(ino, 32), (false, true));
}

/// A checkpoint takes cp_rwsem once the writers have placed their pages,
/// not once the device has written them: f2fs_do_write_data_page drops
/// f2fs_lock_op before the I/O completes. Its cache flush still waits for
/// them.
#[test]
fn a_checkpoint_does_not_wait_on_cp_rwsem_for_data_in_flight() {
    use crate::fs::vfs::Vfs;
    let mut fs = F2fs::format(ssd(128), FsConfig::default()).unwrap();
    let root = Vfs::root(&fs);
    let (ino, t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    let t = fs.write_buffered(t, ino, 0, &content(1, 2048)).unwrap();
    let done = fs.writeback(t, 2048).unwrap();
    assert!(done > t, "the writeback takes device time");
    let before = fs.lock_stats().cp_rwsem_write.wait_ns;
    let end = fs.checkpoint(t);
    let waited = fs.lock_stats().cp_rwsem_write.wait_ns - before;
    assert!(waited * 10 < (done - t).ns(), "cp_rwsem waited {waited} ns of the {} ns the writes take", (done - t).ns());
    assert!(end >= done, "the checkpoint's flush waits for the writes");
}

/// IO-less dirty throttling (balance_dirty_pages since Linux 3.2): a writer
/// that dirties pages faster than the device writes them sleeps while dirty
/// plus under-writeback pages are above the setpoint, a pause at a time, so
/// it never runs past the dirty limit; it writes nothing back itself.
#[test]
fn a_writer_ahead_of_the_device_sleeps_until_writeback_completes() {
    use crate::fs::vfs::Vfs;
    let cfg = FsConfig { page_cache_pages: 1000, writeback_on_threshold: true, ..FsConfig::default() };
    // setpoint = ((100 + 200) / 2 + 200) / 2 = 175 pages, limit 200.
    let mut fs = F2fs::format(ssd(128), cfg).unwrap();
    let root = Vfs::root(&fs);
    let (ino, mut t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    let mut slept = 0;
    for off in 0..4000 {
        let start = t;
        t = fs.write_buffered(t, ino, off, &content(off, 1)).unwrap();
        let (dirty, writeback) = fs.dirty_and_writeback(t);
        assert!(dirty + writeback < 200, "write {off}: {dirty} dirty + {writeback} under writeback");
        assert!(t - start <= crate::host::MAX_PAUSE.mul(2), "write {off} slept {} ns", (t - start).ns());
        if t - start > crate::sim::SimDuration::from_us(50) {
            slept += 1;
        }
    }
    assert!(slept > 0, "the writer never waited for the device");
}

/// f2fs_balance_fs_bg's checkpoint triggers are the background threads'
/// (the GC thread, node writeback): a writer that leaves more dirty node
/// pages than `excess_dirty_threshold` does not checkpoint in its own
/// write (its f2fs_balance_fs calls f2fs_balance_fs_bg only on excess
/// cached NAT entries); the next background look does.
#[test]
fn a_writer_leaves_the_dirty_node_checkpoint_to_the_background() {
    use crate::fs::vfs::Vfs;
    let mut cfg = FsConfig::default();
    cfg.tuning.dirty_nodes_pages = 4;
    let mut fs = F2fs::format(ssd(128), cfg).unwrap();
    let root = Vfs::root(&fs);
    let (ino, mut t) = fs.create(SimTime::ZERO, root, "f").unwrap();
    let before = fs.stats().checkpoints;
    // One block in each of 8 direct nodes: 8 dirty node pages, over 4.
    for k in 0..8u64 {
        t = fs.write(t, ino, 1000 * k + 2000, &content(k, 1)).unwrap();
    }
    assert_eq!(fs.stats().checkpoints, before, "the writer checkpointed itself");
    fs.on_idle(t).unwrap();
    assert_eq!(fs.stats().checkpoints, before + 1, "the background look checkpoints");
}
