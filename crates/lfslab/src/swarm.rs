//! The crash swarm: random workloads on random small stacks, power cuts,
//! remounts, and checks, in the way TigerBeetle's VOPR and FoundationDB's
//! simulation tests work. One seed gives one run, bit for bit.
//!
//! A run draws a geometry and settings for its design (capacity, section
//! size, page cache, discard policy, checkpoint cadence, D2FS upcall sizes
//! and handler batches, thread count), fills part of the volume, then runs
//! random file operations from several threads: create, write and
//! overwrite (buffered or O_DIRECT), append, truncate, fallocate, rename,
//! unlink (sometimes while open), fsync and fdatasync, reads, and the
//! filesystem's own background work. The power is cut at random points,
//! and at points aimed right after a call (or background tick) that ran FS
//! GC, a checkpoint or a discard, or in which D2FS's Coupled GC created
//! migration records (so the mount redoes them):
//! the filesystem is mounted again from what the device holds
//! (`F2fs::crash_remount`: checkpoint, roll-forward, D2FS redo;
//! `Ext4::crash_remount`: jbd2 replay, orphan cleanup), and the
//! workload goes on against the recovered state, and is cut again.
//!
//! A run fails when a mount loses a promised block or finds the tree
//! inconsistent, a read returns other data than the oracle expects, the
//! consistency checker objects, or anything panics. Crashes fall between
//! filesystem calls: a call runs whole at its start instant in lfslab's time
//! model, so "right after" is as close to "in the middle of" as crashes get:
//! what GC moved is not checkpointed yet, a discard went out before the
//! checkpoint that frees its blocks. Each crash's context is counted in the
//! result: whether FS GC, a checkpoint or a discard ran in the last call,
//! and whether the mount redid D2FS records.

use crate::compare::{Design, DESIGNS};
use crate::fs::{AnyFs, Ext4, F2fs, FsError, Ino, IoMode, MountReport, Vfs};
use crate::ftl::Ssd;
use crate::nvme::Partition;
use crate::oracle::{DataTag, Fingerprint};
use crate::scenario::Scenario;
use crate::sim::{mix64, SimDuration, SimRng, SimTime};
use std::collections::BTreeMap;

type Fs = AnyFs<Partition<Ssd>>;

/// Operations per seed unless asked otherwise.
pub const DEFAULT_OPS: u64 = 3_000;

/// Longest burst of scattered 4 KiB overwrites in one write operation.
const SCATTER_BURST: u64 = 128;

/// Files a run works on: this many names in each of the root and two directories.
const NAMES: usize = 6;
const DIRS: [&str; 2] = ["d0", "d1"];

/// What seeds did, summed over them as they are over a swarm.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SeedCounts {
    /// Operations done (fewer than asked when a seed failed).
    pub ops: u64,
    pub crashes: u64,
    /// Crashes right after a call (or background tick) that ran FS GC
    /// (foreground or background), a checkpoint or a discard, and crashes
    /// whose mount redid D2FS records.
    pub crashes_after_gc: u64,
    pub crashes_after_checkpoint: u64,
    pub crashes_after_discard: u64,
    pub crashes_with_upcalls: u64,
    pub promised_checked: u64,
    /// Blocks written since their last durability point that a mount
    /// returned with the new data (`MountReport::unsynced_visible`; RM-IPU's
    /// known window, and in-place updates).
    pub unsynced_visible: u64,
    pub rolled_forward: u64,
    pub records_redone: u64,
    pub orphans_evicted: u64,
    pub blocks_read_checked: u64,
    /// Over the whole run: FS GC rounds (foreground and background),
    /// device GC victims (D2FS: Coupled GC), checkpoints.
    pub fs_gc: u64,
    pub device_gc: u64,
    pub checkpoints: u64,
    /// D2FS: migration records Coupled GC created.
    pub records_created: u64,
    /// Calls that returned an error a workload may meet (ENOSPC, ENOENT, ...).
    pub call_errors: u64,
    /// Blocks the application wrote (FS counter, whole run).
    pub app_write_blocks: u64,
}

macro_rules! add_counts {
    ($a:expr, $b:expr, $($f:ident),*) => { $($a.$f += $b.$f;)* };
}

impl SeedCounts {
    pub fn add(&mut self, o: &SeedCounts) {
        add_counts!(self, o, ops, crashes, crashes_after_gc, crashes_after_checkpoint, crashes_after_discard,
            crashes_with_upcalls, promised_checked, unsynced_visible, rolled_forward, records_redone, orphans_evicted,
            blocks_read_checked, fs_gc, device_gc, checkpoints, records_created, call_errors, app_write_blocks);
    }
}

/// What one seed did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SeedResult {
    pub design: String,
    pub seed: u64,
    /// The drawn settings, one line.
    pub setup: String,
    /// The run's operation count (the reproducer's --ops).
    pub ops_limit: u64,
    #[serde(flatten)]
    pub counts: SeedCounts,
    pub failure: Option<String>,
}

impl SeedResult {
    /// The command that replays this seed (up to `ops` operations).
    pub fn reproducer(&self) -> String {
        format!("lfslab swarm --design {} --seed {} --ops {}", self.design, self.seed, self.ops_limit)
    }
}

/// The designs the swarm knows (every design `compare` runs).
pub fn designs() -> impl Iterator<Item = &'static str> {
    DESIGNS.iter().map(|d| d.name)
}

fn design(name: &str) -> Result<&'static Design, String> {
    DESIGNS.iter().find(|d| d.name == name).ok_or_else(|| {
        let valid: Vec<&str> = designs().collect();
        format!("--design: unknown design {name:?}; valid: {}", valid.join(", "))
    })
}

/// Draw a small stack for `design`: a scenario and the filesystem on it.
/// A draw mkfs or the device refuses (too few sections for the section
/// size, say) is drawn again.
fn build(design: &Design, rng: &mut SimRng) -> Result<(Fs, String, u64), String> {
    let mut last = String::new();
    for _ in 0..32 {
        match try_build(design, rng) {
            Ok(b) => return Ok(b),
            Err(e) => last = e,
        }
    }
    Err(format!("no valid stack drawn for {} in 32 tries; last: {last}", design.name))
}

fn try_build(design: &Design, rng: &mut SimRng) -> Result<(Fs, String, u64), String> {
    let d2fs = design.name == "d2fs";
    let gib = [0.25, 0.25, 0.5][rng.below(3) as usize];
    // 4 dies of 32 or 64 pages of 16 KiB: 2 or 4 MiB superblocks (zones,
    // D2FS sections), so a small device has enough of them.
    let pages = [32u32, 64][rng.below(2) as usize];
    let op = [0.1, 0.2][rng.below(2) as usize];
    let cache_mib = [2u64, 4, 16][rng.below(3) as usize];
    let kind = design.fs_section().kind.unwrap_or_default();
    let ext4 = kind == "ext4";
    let mut fs_lines = vec![format!("kind = {kind:?}")];
    if ext4 {
        fs_lines.push(format!("commit_interval_s = {}", [1.0, 5.0][rng.below(2) as usize]));
        fs_lines.push(format!("journal_mib = {}", [4, 16][rng.below(2) as usize]));
        fs_lines.push(format!("discard = {:?}", ["immediate", "off"][rng.below(2) as usize]));
    } else {
        fs_lines.push(format!("cp_interval_s = {}", [1.0, 5.0, 60.0][rng.below(3) as usize]));
        fs_lines.push(format!("idle_interval = {}", [0.05, 1.0][rng.below(2) as usize]));
    }
    if let Some(m) = design.fs_section().mode {
        fs_lines.push(format!("mode = {m:?}"));
    }
    if let Some(s) = design.fs_section().segs_per_sec {
        // Smaller sections than the design's keep GC busy on a small volume.
        let s = if s > 1 { [1u32, 2, 4][rng.below(3) as usize] } else { s };
        fs_lines.push(format!("segs_per_sec = {s}"));
    }
    if design.name == "f2fs-adaptive" {
        fs_lines.push(format!("discard = {:?}", ["idle-batched", "immediate", "off"][rng.below(3) as usize]));
    } else if let Some(d) = design.fs_section().discard {
        fs_lines.push(format!("discard = {d:?}"));
    }
    // Parallel GC engines: few collectors, so a small volume has room for
    // their streams; ScaleLFS's switches as the design sets them.
    let fsec = design.fs_section();
    if let Some(g) = &fsec.gc_engine {
        fs_lines.push(format!("gc_engine = {g:?}"));
    }
    if fsec.gc_engine.is_some() || kind == "scalelfs" {
        fs_lines.push(format!("gc_threads = {}", [2u32, 3, 4][rng.below(3) as usize]));
        fs_lines.push(format!("gc_batch_blocks = {}", [1u32, 16][rng.below(2) as usize]));
    }
    for (name, v) in [("svp", fsec.svp), ("dws", fsec.dws), ("lsu", fsec.lsu), ("cvs", fsec.cvs), ("dpb", fsec.dpb)] {
        if let Some(v) = v {
            fs_lines.push(format!("{name} = {v}"));
        }
    }
    if d2fs {
        fs_lines.push(format!("upcall_records = {}", [4, 16, 256][rng.below(3) as usize]));
        fs_lines.push(format!("vop_regular = {}", [1.0, 1.2, 1.4][rng.below(3) as usize]));
    }
    let text = format!(
        "name = \"swarm\"\n[device]\ncapacity_gib = {gib}\nchannels = 2\nchips_per_channel = 2\npages_per_block = {pages}\nop = {op}\n\
         [host]\npage_cache_mib = {cache_mib}\n[fs]\n{}\n\
         # The scenario gives the stack; the swarm drives it itself.\n[[job]]\nrw = \"randwrite\"\nsize = \"1m\"\n",
        fs_lines.join("\n")
    );
    let scenario = Scenario::from_toml_str(&text).map_err(|e| format!("swarm scenario for {}: {e}\n{text}", design.name))?;
    let f = scenario.fs.as_ref().expect("[fs] given");
    let mut cfg = f.config.clone();
    cfg.track_recovery = true;
    if let Some(d) = &mut cfg.d2fs {
        // Handler batches that do not divide the upcalls: crashes mid-upcall.
        d.upcall_batch = [0usize, 3, 7][rng.below(3) as usize];
    }
    let ssd = f.device(&scenario.ssd).map_err(|e| format!("swarm device: {e}"))?;
    let part = Partition::new(ssd, f.partition_blocks);
    let user = f.user_blocks;
    let fs = match ext4 {
        true => AnyFs::Ext4(Ext4::format(part, cfg).map_err(|e| format!("swarm mkfs: {e}"))?),
        false => AnyFs::F2fs(F2fs::format(part, cfg).map_err(|e| format!("swarm mkfs: {e}"))?),
    };
    let setup = format!("capacity {gib} GiB, {pages} pages per block, op {op}, page cache {cache_mib} MiB, [fs] {}", fs_lines.join(", "));
    Ok((fs, setup, user))
}

/// One simulated thread: its clock and the files it has open.
struct Thread {
    now: SimTime,
    open: Vec<Ino>,
}

struct Run {
    fs: Option<Fs>,
    rng: SimRng,
    threads: Vec<Thread>,
    dirs: Vec<Ino>,
    /// Blocks the workload may keep in files (a share of the user blocks).
    budget: u64,
    max_file: u64,
    /// Largest write in blocks: small writes fragment sections, so device
    /// GC (D2FS: Coupled GC, with migration records) has pages to move.
    max_write: u64,
    /// Few truncates and unlinks: files live long and fragment, so sections
    /// stay partly valid and GC (D2FS: Coupled GC) must move blocks.
    low_churn: bool,
    version: u64,
    result: SeedResult,
    next_bg: SimTime,
    /// What the last call (and background tick) did: a crash's context.
    last_call: Events,
    /// Aimed crashes left, and 1 in `aim_odds` eventful calls is cut.
    aimed_left: u64,
    aim_odds: u64,
    /// Aimed crashes left for calls that created migration records.
    record_aims_left: u64,
    /// Draws the aimed cuts, apart from the workload's stream, so aiming
    /// does not change what a seed's workload draws.
    aim_rng: SimRng,
}

/// Counters whose change across a call says what the call did.
#[derive(Clone, Copy, Default)]
struct Marks {
    fs_gc: u64,
    checkpoints: u64,
    discards: u64,
    records: u64,
}

/// What happened between two `Marks`.
#[derive(Clone, Copy, Default)]
struct Events {
    gc: bool,
    checkpoint: bool,
    discard: bool,
    records: bool,
}

impl Marks {
    fn of(fs: &Fs) -> Marks {
        let s = fs.stats();
        Marks {
            fs_gc: s.gc_fg_count + s.gc_bg_count,
            checkpoints: s.checkpoints,
            discards: s.discard_cmds,
            records: fs.dev().dev.coupled_stats().map_or(0, |c| c.records_created),
        }
    }

    fn since(self, before: Marks) -> Events {
        Events {
            gc: self.fs_gc > before.fs_gc,
            checkpoint: self.checkpoints > before.checkpoints,
            discard: self.discards > before.discards,
            records: self.records > before.records,
        }
    }
}

impl Events {
    fn any(self) -> bool {
        self.gc || self.checkpoint || self.discard || self.records
    }
}

fn is_workload_error(e: &FsError) -> bool {
    // What a random workload may run into: ENOSPC, a name taken or gone, an
    // inode unlinked by another thread.
    matches!(
        e,
        FsError::NoSpace | FsError::Exists(_) | FsError::NotFound(_) | FsError::NoSuchFile(_) | FsError::NotEmpty(_) | FsError::IsDir(_) | FsError::NotDir(_) | FsError::OutOfNodeIds | FsError::DirFull(_)
    )
}

impl Run {
    fn fs(&mut self) -> &mut Fs {
        self.fs.as_mut().expect("mounted")
    }

    fn data(&mut self, n: u64) -> Vec<Fingerprint> {
        self.version += 1;
        let tag = DataTag(mix64(self.result.seed ^ mix64(self.version)));
        (0..n).map(|i| tag.block(i)).collect()
    }

    /// Look up (creating it if asked) directory `d` of the namespace: the root or DIRS.
    fn setup_dirs(&mut self, t: SimTime) -> Result<SimTime, FsError> {
        let root = self.fs().root();
        self.dirs = vec![root];
        let mut t = t;
        for name in DIRS {
            let (found, t1) = self.fs().lookup(t, root, name)?;
            t = t1;
            let ino = match found {
                Some(i) => i,
                None => {
                    let (i, t2) = self.fs().mkdir(t, root, name)?;
                    t = t2;
                    i
                }
            };
            self.dirs.push(ino);
        }
        Ok(t)
    }

    fn pick_name(&mut self) -> (Ino, String) {
        let d = self.dirs[self.rng.below(self.dirs.len() as u64) as usize];
        (d, format!("f{}", self.rng.below(NAMES as u64)))
    }

    /// The file under a random name, created if absent (and asked).
    fn pick_file(&mut self, t: SimTime, create: bool) -> Result<Option<(Ino, SimTime)>, FsError> {
        let (d, name) = self.pick_name();
        let (found, t) = self.fs().lookup(t, d, &name)?;
        match (found, create) {
            (Some(i), _) => Ok(Some((i, t))),
            (None, true) => self.fs().create(t, d, &name).map(|(i, t)| Some((i, t))),
            (None, false) => Ok(None),
        }
    }

    fn used(&mut self) -> u64 {
        self.fs().total_file_blocks()
    }

    /// One random operation by thread `k`.
    fn step(&mut self, k: usize) -> Result<(), FsError> {
        let t = self.threads[k].now + SimDuration::from_us(1 + self.rng.below(200));
        let mut roll = self.rng.below(100);
        if self.low_churn && (64..=78).contains(&roll) && self.rng.below(32) != 0 {
            roll = 0; // most truncates, unlinks and renames become overwrites
        }
        let mode = if self.rng.below(3) == 0 { IoMode::Direct } else { IoMode::Buffered };
        let done = match roll {
            // write: mostly overwrites (GC's food), appends while under budget
            0..=39 => match self.pick_file(t, true)? {
                Some((ino, t)) => {
                    let size = self.fs().file_size_blocks(ino).unwrap_or(0);
                    let n = 1 + self.rng.below(self.max_write);
                    let grow = self.used() < self.budget;
                    if size > 0 && self.rng.below(2) == 0 {
                        // Scattered 4 KiB overwrites: they leave sections
                        // partly valid, so GC (D2FS: Coupled GC) moves blocks.
                        // A burst, as a database's page writes: its length
                        // does not follow max_write, so even seeds of small
                        // writes turn the volume over.
                        let mut t = t;
                        for _ in 0..1 + self.rng.below(SCATTER_BURST) {
                            let off = self.rng.below(size);
                            let data = self.data(1);
                            t = Vfs::write(self.fs(), t, ino, off, &data, mode)?;
                        }
                        t
                    } else {
                        // Appends refill the budget in up to 1 MiB, whatever max_write.
                        let n = if grow { 1 + self.rng.below(self.max_write.max(256)) } else { n };
                        let off = if size > 0 && !grow { self.rng.below(size) } else { size }.min(self.max_file - n);
                        let data = self.data(n);
                        Vfs::write(self.fs(), t, ino, off, &data, mode)?
                    }
                }
                None => t,
            },
            40..=52 => match self.pick_file(t, false)? {
                Some((ino, t)) => {
                    let datasync = self.rng.below(3) == 0;
                    Vfs::fsync(self.fs(), t, ino, datasync)?
                }
                None => t,
            },
            53..=63 => match self.pick_file(t, false)? {
                Some((ino, t)) => {
                    let size = self.fs().file_size_blocks(ino).unwrap_or(0);
                    if size == 0 {
                        t
                    } else {
                        let off = self.rng.below(size);
                        let n = 1 + self.rng.below((size - off).min(64));
                        self.result.counts.blocks_read_checked += n;
                        Vfs::read(self.fs(), t, ino, off, n, mode)?
                    }
                }
                None => t,
            },
            // truncate: usually the tail, sometimes to nothing
            64..=68 => match self.pick_file(t, false)? {
                Some((ino, t)) => {
                    let size = self.fs().file_size_blocks(ino).unwrap_or(0);
                    let to = if self.rng.below(10) == 0 { 0 } else { size.saturating_sub(self.rng.below(65)) };
                    self.fs().truncate(t, ino, to)?
                }
                None => t,
            },
            69..=70 => {
                let (d, name) = self.pick_name();
                self.fs().unlink(t, d, &name)?
            }
            71..=78 if self.rng.below(4) != 0 => match self.pick_file(t, false)? {
                // rename, mostly to a free name (over a file it deletes that file)
                Some((_, t)) => {
                    let (d, from) = self.pick_name();
                    let (d2, to) = self.pick_name();
                    match self.fs().lookup(t, d2, &to)? {
                        (Some(_), t) => t,
                        (None, t) => self.fs().rename(t, d, &from, d2, &to)?,
                    }
                }
                None => t,
            },
            71..=78 => {
                let (d, from) = self.pick_name();
                let (d2, to) = self.pick_name();
                self.fs().rename(t, d, &from, d2, &to)?
            }
            79..=81 => match self.pick_file(t, true)? {
                Some((ino, t)) => {
                    let size = self.fs().file_size_blocks(ino).unwrap_or(0);
                    let n = 1 + self.rng.below(16);
                    let off = size.min(self.max_file - n);
                    let keep = self.rng.below(2) == 0;
                    self.fs().fallocate(t, ino, off, n, keep)?
                }
                None => t,
            },
            82..=87 => {
                // open or close: unlink while open makes orphans.
                if let Some(ino) = self.threads[k].open.pop() {
                    self.fs().close(t, ino)?
                } else {
                    match self.pick_file(t, false)? {
                        Some((ino, t)) => {
                            let t = self.fs().open(t, ino)?;
                            self.threads[k].open.push(ino);
                            t
                        }
                        None => t,
                    }
                }
            }
            _ => {
                let (d, name) = self.pick_name();
                let (found, t) = self.fs().lookup(t, d, &name)?;
                match found {
                    Some(ino) => self.fs().stat(t, ino)?.1,
                    None => self.fs().create(t, d, &name)?.1,
                }
            }
        };
        self.threads[k].now = done.max(t);
        Ok(())
    }

    /// Cut the power at the latest thread clock and mount again.
    fn crash(&mut self) -> Result<(), String> {
        let at = self.threads.iter().map(|t| t.now).max().unwrap_or(SimTime::ZERO) + SimDuration::from_us(1);
        let fs = self.fs.take().expect("mounted");
        let (fs, rep) = fs.crash_remount(at)?;
        self.result.counts.crashes += 1;
        self.note_context(&rep);
        self.result.counts.promised_checked += rep.promised_checked;
        self.result.counts.unsynced_visible += rep.unsynced_visible;
        self.result.counts.rolled_forward += rep.rolled_forward;
        self.result.counts.records_redone += rep.records_redone;
        self.result.counts.orphans_evicted += rep.orphans_evicted;
        if !rep.errors.is_empty() {
            let stop = rep.roll_forward_stopped.as_deref().map(|s| format!(" (roll-forward stopped: {s})")).unwrap_or_default();
            return Err(format!("mount after crash {}{stop}: {}", self.result.counts.crashes, rep.errors.join("; ")));
        }
        self.fs = Some(fs);
        for th in &mut self.threads {
            th.now = at;
            // The processes died with the power: their descriptors are gone.
            th.open.clear();
        }
        self.last_call = Events::default();
        let t = self.setup_dirs(at).map_err(|e| format!("after crash {}: {e}", self.result.counts.crashes))?;
        for th in &mut self.threads {
            th.now = t;
        }
        Ok(())
    }

    fn note_context(&mut self, rep: &MountReport) {
        let e = self.last_call;
        let c = &mut self.result.counts;
        c.crashes_after_gc += e.gc as u64;
        c.crashes_after_checkpoint += e.checkpoint as u64;
        c.crashes_after_discard += e.discard as u64;
        if rep.records_redone > 0 {
            self.result.counts.crashes_with_upcalls += 1;
        }
    }
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Report panics only through the seed that hit them (with where they
/// were raised), not on standard error. For the `swarm` command.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|l| *l.borrow_mut() = Some(format!("panic: {info}")));
    }));
}

/// Run `seed` of `design` for up to `ops` operations (default `DEFAULT_OPS`) with
/// crashes along the way and one at the end.
pub fn run_seed(design_name: &str, seed: u64, ops: Option<u64>) -> Result<SeedResult, String> {
    let d = design(design_name)?;
    let mut rng = SimRng::new(seed).fork("swarm");
    let (fs, setup, user) = build(d, &mut rng)?;
    let ops = ops.unwrap_or(DEFAULT_OPS);
    let nthreads = 1 + rng.below(4) as usize;
    let aim_rng = SimRng::new(seed).fork("swarm-aim");
    let result = SeedResult { design: d.name.into(), seed, setup, ops_limit: ops, ..SeedResult::default() };
    let mut run = Run {
        fs: Some(fs),
        rng,
        threads: (0..nthreads).map(|_| Thread { now: SimTime::ZERO, open: Vec::new() }).collect(),
        dirs: Vec::new(),
        budget: 0,
        max_file: 0,
        max_write: 0,
        low_churn: false,
        version: 0,
        result,
        next_bg: SimTime::ZERO,
        last_call: Events::default(),
        aimed_left: 0,
        aim_odds: 1,
        record_aims_left: 4,
        aim_rng,
    };
    run.aimed_left = 1 + run.aim_rng.below(6);
    run.aim_odds = [4, 16, 64][run.aim_rng.below(3) as usize];
    // Most of the volume in files, so overwrites make the FS and the
    // device collect garbage.
    run.budget = user * (60 + run.rng.below(36)) / 100;
    run.max_write = [1, 4, 16, 64, 128][run.rng.below(5) as usize];
    run.low_churn = run.rng.below(2) == 0;
    run.max_file = (run.budget / (NAMES * (DIRS.len() + 1)) as u64).max(64) * 2;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drive(&mut run, ops)));
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(p) => Some(LAST_PANIC.with(|l| l.borrow_mut().take()).unwrap_or_else(|| {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            format!("panic: {}", msg.unwrap_or_default())
        })),
    };
    run.result.failure = failure;
    if let Some(fs) = &run.fs {
        let s = fs.stats();
        run.result.counts.fs_gc = s.gc_fg_count + s.gc_bg_count;
        run.result.counts.checkpoints = s.checkpoints;
        run.result.counts.app_write_blocks = s.app_write_blocks;
        run.result.counts.device_gc = fs.dev().dev.stats().gc_count;
        run.result.counts.records_created = fs.dev().dev.coupled_stats().map_or(0, |c| c.records_created);
    }
    Ok(run.result)
}

fn drive(run: &mut Run, ops: u64) -> Result<(), String> {
    let t = run.setup_dirs(SimTime::ZERO).map_err(|e| format!("setup: {e}"))?;
    let t = fill(run, t).map_err(|e| format!("fill: {e}"))?;
    for th in &mut run.threads {
        th.now = t;
    }
    // Crash points: a few, spread at random over the run.
    let mut crash_at: Vec<u64> = (0..1 + run.rng.below(4)).map(|_| run.rng.below(ops.max(1))).collect();
    crash_at.sort_unstable();
    let bg_every = SimDuration::from_ms(50);
    for i in 0..ops {
        let k = (0..run.threads.len()).min_by_key(|&k| (run.threads[k].now, k)).expect("threads");
        let before = Marks::of(run.fs());
        match run.step(k) {
            Ok(()) => {}
            Err(e) if is_workload_error(&e) => {
                run.result.counts.call_errors += 1;
                run.threads[k].now = run.threads[k].now + SimDuration::from_us(10);
            }
            Err(e) => return Err(format!("op {i}: {e}")),
        }
        run.result.counts.ops = i + 1;
        let now = run.threads[k].now;
        if now >= run.next_bg {
            run.fs().background(now).or_else(|e| if is_workload_error(&e) { Ok(()) } else { Err(format!("background at op {i}: {e}")) })?;
            run.next_bg = now + bg_every;
        }
        if run.fs().oracle().mismatches_count > 0 {
            return Err(format!("op {i}: a read returned other data than was written"));
        }
        run.last_call = Marks::of(run.fs()).since(before);
        // Two cuts at one point crash again right after a mount.
        let mut cuts = 0;
        while crash_at.first() == Some(&i) {
            crash_at.remove(0);
            cuts += 1;
        }
        // Aimed: right after GC moved blocks, a checkpoint, a discard or new
        // records. Calls that create records are rare (D2FS checkpoints in
        // most calls once its regular region runs short, spending the aimed
        // budget there), so they have a budget of their own and are cut one
        // time in two.
        if cuts == 0 && run.last_call.records && run.record_aims_left > 0 && run.aim_rng.below(2) == 0 {
            run.record_aims_left -= 1;
            cuts = 1;
        }
        if cuts == 0 && run.aimed_left > 0 && run.last_call.any() && run.aim_rng.below(run.aim_odds) == 0 {
            run.aimed_left -= 1;
            cuts = 1;
        }
        for _ in 0..cuts {
            run.crash()?;
        }
    }
    run.crash()?;
    run.fs().check_consistency().map_err(|e| format!("at the end: {e}"))?;
    // Read every file back on the last mount.
    let t = run.threads.iter().map(|t| t.now).max().unwrap_or(SimTime::ZERO);
    let files: Vec<(Ino, u64)> = {
        let fs = run.fs();
        fs.files().into_iter().filter_map(|i| fs.file_size_blocks(i).map(|s| (i, s))).collect()
    };
    for (ino, size) in files {
        if size > 0 && run.fs().stat(t, ino).is_ok_and(|(s, _)| !s.is_dir) {
            run.result.counts.blocks_read_checked += size;
            Vfs::read(run.fs(), t, ino, 0, size, IoMode::Direct).map_err(|e| format!("final read of inode {ino}: {e}"))?;
        }
    }
    if run.fs().oracle().mismatches_count > 0 {
        return Err("after the last mount: a read returned other data than was written".into());
    }
    Ok(())
}

/// Lay out every name's file at an equal share of the budget (O_DIRECT,
/// 1 MiB writes), as fio and filebench lay out their files first.
fn fill(run: &mut Run, mut t: SimTime) -> Result<SimTime, FsError> {
    let share = run.budget / (NAMES * run.dirs.len()) as u64;
    for d in run.dirs.clone() {
        for n in 0..NAMES {
            let name = format!("f{n}");
            let (ino, t1) = match run.fs().lookup(t, d, &name)? {
                (Some(i), t1) => (i, t1),
                (None, t1) => run.fs().create(t1, d, &name)?,
            };
            t = t1;
            let mut off = 0;
            while off < share {
                let k = (share - off).min(256);
                let data = run.data(k);
                t = Vfs::write(run.fs(), t, ino, off, &data, IoMode::Direct)?;
                off += k;
            }
        }
    }
    // Laid out and checkpointed, as `sync` after fio's layout: a crash
    // then starts from the full files rather than the format.
    run.fs().sync_fs(t)
}

/// Shrink a failing seed: the fewest operations (bisected) that still fail.
/// Crash points depend on the operation count, so this shortens the run
/// rather than cutting operations out of it.
pub fn shrink(design: &str, seed: u64, ops: u64) -> Result<SeedResult, String> {
    let mut best = run_seed(design, seed, Some(ops))?;
    if best.failure.is_none() {
        return Ok(best);
    }
    let (mut lo, mut hi) = (0u64, ops);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let r = run_seed(design, seed, Some(mid))?;
        if r.failure.is_some() {
            hi = mid;
            best = r;
        } else {
            lo = mid;
        }
    }
    Ok(best)
}

/// Totals over many seeds of one design.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SwarmSummary {
    pub design: String,
    pub seeds: u64,
    pub failed: u64,
    #[serde(flatten)]
    pub counts: SeedCounts,
    /// First failures, shrunk, with their reproducers.
    pub failures: Vec<String>,
}

impl SwarmSummary {
    pub fn add(&mut self, r: &SeedResult) {
        self.design = r.design.clone();
        self.seeds += 1;
        self.counts.add(&r.counts);
        if r.failure.is_some() {
            self.failed += 1;
        }
    }
}

/// Seeds `first..first + n` of `design`; each failure is shrunk once.
pub fn swarm(design_name: &str, first: u64, n: u64, ops: Option<u64>, mut on_seed: impl FnMut(&SeedResult)) -> Result<SwarmSummary, String> {
    design(design_name)?;
    let mut sum = SwarmSummary { design: design_name.into(), ..Default::default() };
    let mut shrunk = BTreeMap::new();
    for seed in first..first + n {
        let r = run_seed(design_name, seed, ops)?;
        sum.add(&r);
        on_seed(&r);
        if r.failure.is_some() && shrunk.len() < 3 {
            let s = shrink(design_name, seed, r.ops_limit)?;
            shrunk.insert(seed, format!("{} -- {}", s.reproducer(), s.failure.clone().unwrap_or_default().replace('\n', " ")));
        }
    }
    sum.failures = shrunk.into_values().collect();
    Ok(sum)
}

/// Per-design totals as JSON.
pub fn summaries_json(all: &[SwarmSummary]) -> String {
    serde_json::to_string_pretty(all).expect("summaries serialise")
}

