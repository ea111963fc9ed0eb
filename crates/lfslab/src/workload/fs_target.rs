//! A filesystem as a driver target: each clone owns its files; fio's layout
//! step creates and writes them before the measured phase.

use super::driver::{IoTarget, Op, OpKind, Phase, Progress, ProgressTick};
use super::job::JobSpec;
use crate::fs::{FsError, Ino, IoMode, Vfs};
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{mix64, SimDuration, SimRng, SimTime};
use std::collections::BTreeMap;

/// Files of every clone, in clone order.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct FileSet {
    files: Vec<Vec<Ino>>,
}

/// Blocks to lay out for each file of a job: `filesize`, or for a replayed
/// iolog each file's extent in the log.
pub fn file_sizes(job: &JobSpec) -> Vec<u64> {
    match &job.iolog {
        Some(log) => log.file_extent_blocks.clone(),
        None => vec![job.file_blocks; job.nrfiles as usize],
    }
}

/// fio's layout step: create each clone's files and write them sequentially
/// (128 KiB direct writes). Returns when the last write completes.
/// Report `done` of `total` every 2^14 units.
fn tick(progress: Option<&Progress>, phase: Phase, done: u64, total: u64) {
    if let Some(p) = progress.filter(|_| done % (1 << 14) == 0) {
        p(&ProgressTick { phase, done: done as f64, total: total as f64, ios: done });
    }
}

pub fn layout_files<V: Vfs>(
    fs: &mut V,
    jobs: &[JobSpec],
    rng: &SimRng,
    start: SimTime,
    progress: Option<&Progress>,
) -> Result<(FileSet, SimTime), FsError> {
    let total: u64 = jobs.iter().map(|j| file_sizes(j).iter().sum::<u64>() * j.numjobs as u64).sum();
    let mut laid = 0u64;
    let mut t = start;
    let mut files = Vec::new();
    let mut named: BTreeMap<&str, Ino> = BTreeMap::new();
    let mut tag = mix64(rng.fork("layout").next_u64());
    let root = fs.root();
    for job in jobs {
        for clone in 0..job.numjobs {
            let mut mine = Vec::new();
            for (fileno, blocks) in file_sizes(job).into_iter().enumerate() {
                let existing = job.filename.as_deref().and_then(|n| named.get(n).copied());
                let ino = match existing {
                    Some(ino) => ino,
                    None => {
                        // fio's default file name: jobname.jobnum.filenum.
                        let name = match job.filename.as_deref() {
                            Some(n) => n.to_string(),
                            None => format!("{}.{clone}.{fileno}", job.name),
                        };
                        let (ino, t2) = fs.create(t, root, &name)?;
                        t = t2;
                        if let Some(n) = job.filename.as_deref() {
                            named.insert(n, ino);
                        }
                        ino
                    }
                };
                // Lay out what is missing (a shared file grows to its largest user).
                let (st, t2) = fs.stat(t, ino)?;
                t = t2;
                if job.layout_fallocate {
                    if blocks > st.size_blocks {
                        t = fs.fallocate(t, ino, st.size_blocks, blocks - st.size_blocks, false)?;
                        laid += blocks - st.size_blocks;
                        tick(progress, Phase::Layout, laid, total);
                    }
                    mine.push(ino);
                    continue;
                }
                t = write_sequentially(fs, ino, st.size_blocks..blocks, &mut tag, t, |_| {
                    laid += 1;
                    tick(progress, Phase::Layout, laid * 32, total);
                })?;
                mine.push(ino);
            }
            files.push(mine);
        }
    }
    Ok((FileSet { files }, t))
}

/// Write blocks `range` of `ino` in order as fio's layout does (128 KiB
/// O_DIRECT writes, a fresh data tag each); `chunk` hears each write's size.
pub(crate) fn write_sequentially<V: Vfs>(
    fs: &mut V,
    ino: Ino,
    range: std::ops::Range<u64>,
    tag: &mut u64,
    start: SimTime,
    mut chunk: impl FnMut(u64),
) -> Result<SimTime, FsError> {
    let (mut t, mut off) = (start, range.start);
    while off < range.end {
        let n = 32.min(range.end - off);
        *tag = tag.wrapping_add(1);
        let data: Vec<Fingerprint> = (0..n).map(|i| DataTag(*tag).block(i)).collect();
        t = fs.write(t, ino, off, &data, IoMode::Direct)?;
        off += n;
        chunk(n);
    }
    Ok(t)
}

/// Random 4 KiB overwrites of all laid-out files, `multiple` x their size.
pub fn age_files<V: Vfs>(
    fs: &mut V,
    set: &FileSet,
    multiple: f64,
    rng: &SimRng,
    start: SimTime,
    progress: Option<&Progress>,
) -> Result<SimTime, FsError> {
    let mut inos: Vec<Ino> = set.files.iter().flatten().copied().collect();
    inos.sort_unstable();
    inos.dedup();
    let mut all: Vec<(Ino, u64)> = Vec::with_capacity(inos.len());
    for i in inos {
        all.push((i, fs.stat(start, i)?.0.size_blocks));
    }
    let total: u64 = all.iter().map(|f| f.1).sum();
    let mut r = rng.fork("age");
    let mut t = start;
    let n = (total as f64 * multiple).round() as u64;
    for k in 0..n {
        let mut x = r.below(total.max(1));
        let (ino, off) = all
            .iter()
            .find_map(|&(i, s)| if x < s { Some((i, x)) } else { x -= s; None })
            .expect("x < total");
        t = fs.write(t, ino, off, &[DataTag(mix64(k ^ 0xA6E)).block(off)], IoMode::Direct)?;
        tick(progress, Phase::Aging, k + 1, n);
    }
    Ok(t)
}

pub struct FsTarget<'a, V: Vfs> {
    pub fs: &'a mut V,
    pub files: &'a FileSet,
    /// Per clone: O_DIRECT or buffered.
    pub direct: Vec<bool>,
    /// A write's block contents, kept between writes (an allocation and a
    /// free per write were 3 to 4% of a full-stack run's samples).
    pub data: Vec<Fingerprint>,
}

impl<V: Vfs> IoTarget for FsTarget<'_, V> {
    type Error = FsError;

    fn issue(&mut self, clone: usize, op: &Op, at: SimTime) -> Result<SimTime, FsError> {
        let ino = self.files.files[clone][op.file as usize];
        let mode = if self.direct[clone] { IoMode::Direct } else { IoMode::Buffered };
        match op.kind {
            OpKind::Read => self.fs.read(at, ino, op.off, op.blocks as u64, mode),
            OpKind::Write => {
                self.data.clear();
                self.data.extend((0..op.blocks as u64).map(|i| DataTag(op.tag).block(i)));
                self.fs.write(at, ino, op.off, &self.data, mode)
            }
            OpKind::Sync => self.fs.fsync(at, ino, false),
            OpKind::Datasync => self.fs.fsync(at, ino, true),
            OpKind::Trim => Err(FsError::Unsupported("trim (hole punching) on files")),
        }
    }

    /// The second stage (the dirty bitmap's word) reads nothing the first
    /// fetched, so the first-stage hints go four at a time: at paper size
    /// 0.93 of the wall time for IPLFS and 0.92 for D2FS (docs/performance.md).
    const HINT_BATCH: usize = 4;

    /// Buffered I/O: fetch the page-cache entries and oracle slots of the
    /// clone's upcoming operations ahead of them.
    fn hint(&mut self, clone: usize, soon: &Op, later: &[Op]) {
        if self.direct[clone] {
            return;
        }
        let files = &self.files.files[clone];
        for op in later {
            if let Some(&ino) = files.get(op.file as usize) {
                self.fs.prefetch(ino, op.off, 0);
            }
        }
        if let Some(&ino) = files.get(soon.file as usize) {
            self.fs.prefetch(ino, soon.off, 1);
        }
    }

    fn tick(&mut self, now: SimTime) -> Result<(), FsError> {
        self.fs.background(now)
    }

    fn cpu(&mut self, at: SimTime, d: SimDuration) -> SimTime {
        self.fs.host_cpu(at, d)
    }
}
