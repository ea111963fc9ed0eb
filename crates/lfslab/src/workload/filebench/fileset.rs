//! A filebench fileset on a filesystem: a directory tree of numbered
//! entries (filebench names them `%08d`), each with a size drawn once, of
//! which some exist at any time; threads pick entries uniformly among the
//! eligible ones (filebench `fileset_pick`).

use super::FilesetSpec;
use crate::fs::{FsError, Ino, Vfs};
use crate::sim::{mix64, SimRng, SimTime};
use crate::workload::fs_target::write_sequentially;
use crate::workload::{Phase, Progress, ProgressTick};

pub(super) const BLOCK: u64 = 4096;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Entry {
    pub dir: Ino,
    pub size_bytes: u64,
    /// The entry's inode while it exists.
    pub ino: Option<Ino>,
}

/// Entries split into existing and not-existing, each pickable in O(1).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct PickSet {
    items: Vec<u32>,
}

impl PickSet {
    fn pick(&self, rng: &mut SimRng) -> Option<u32> {
        (!self.items.is_empty()).then(|| self.items[rng.below(self.items.len() as u64) as usize])
    }
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Fileset {
    pub(super) entries: Vec<Entry>,
    /// Position of each entry in its pick set.
    pos: Vec<u32>,
    exists: PickSet,
    absent: PickSet,
}

pub(super) fn entry_name(i: u32) -> String {
    format!("{:08}", i + 1)
}

/// Gamma(shape k, scale theta) by Marsaglia and Tsang (k >= 1; k < 1 boosted).
fn gamma(rng: &mut SimRng, k: f64, theta: f64) -> f64 {
    if k < 1.0 {
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        return gamma(rng, k + 1.0, theta) * u.powf(1.0 / k);
    }
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // A standard normal by Box-Muller.
        let (u1, u2) = (rng.next_f64().max(f64::MIN_POSITIVE), rng.next_f64());
        let x = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v * theta;
        }
    }
}

impl Fileset {
    fn move_to(&mut self, i: u32, exists: bool) {
        let (from, to) = if exists { (&mut self.absent, &mut self.exists) } else { (&mut self.exists, &mut self.absent) };
        let p = self.pos[i as usize] as usize;
        debug_assert_eq!(from.items[p], i, "entry {i} is not where its position says");
        let last = from.items.pop().expect("entry is in its set");
        if last != i {
            from.items[p] = last;
            self.pos[last as usize] = p as u32;
        }
        self.pos[i as usize] = to.items.len() as u32;
        to.items.push(i);
    }

    pub(super) fn pick_existing(&self, rng: &mut SimRng) -> Option<u32> {
        self.exists.pick(rng)
    }
    pub(super) fn pick_absent(&self, rng: &mut SimRng) -> Option<u32> {
        self.absent.pick(rng)
    }
    pub(super) fn created(&mut self, i: u32, ino: Ino) {
        self.entries[i as usize].ino = Some(ino);
        self.move_to(i, true);
    }
    pub(super) fn deleted(&mut self, i: u32) {
        self.entries[i as usize].ino = None;
        self.move_to(i, false);
    }
    pub fn existing(&self) -> usize {
        self.exists.items.len()
    }
}

fn blocks_of(bytes: u64) -> u64 {
    bytes.div_ceil(BLOCK)
}

/// Build the fileset's directory tree under the root and create and write
/// the preallocated entries (filebench `fileset_createset`): balanced, with
/// at most `dirwidth` entries per directory.
pub fn populate<V: Vfs>(
    fs: &mut V,
    spec: &FilesetSpec,
    rng: &SimRng,
    start: SimTime,
    progress: Option<&Progress>,
) -> Result<(Fileset, SimTime), FsError> {
    let mut r = rng.fork(&format!("fileset-{}", spec.name));
    let mut t = start;
    let root = fs.root();
    let (top, t2) = fs.mkdir(t, root, &spec.name)?;
    t = t2;
    // Directories per level, leaves first, until one level fits in the top.
    let n = spec.entries;
    let mut counts = vec![n.div_ceil(spec.dirwidth)];
    while *counts.last().expect("non-empty") > spec.dirwidth {
        let up = counts.last().expect("non-empty").div_ceil(spec.dirwidth);
        counts.push(up);
    }
    let mut parents = vec![top];
    if counts != [1] {
        // Top down: directory i of a level lives in parent i / dirwidth.
        for &count in counts.iter().rev() {
            let mut level = Vec::with_capacity(count as usize);
            for i in 0..count {
                let (d, t2) = fs.mkdir(t, parents[(i / spec.dirwidth) as usize], &entry_name(i as u32))?;
                t = t2;
                level.push(d);
            }
            parents = level;
        }
    }
    let leaves = parents;
    let mut entries = Vec::with_capacity(n as usize);
    for i in 0..n {
        let size = if spec.gamma > 0.0 {
            gamma(&mut r, spec.gamma, spec.mean_size as f64 / spec.gamma).round() as u64
        } else {
            spec.mean_size
        };
        entries.push(Entry { dir: leaves[(i / spec.dirwidth) as usize], size_bytes: size, ino: None });
    }
    let mut set = Fileset { pos: (0..n as u32).collect(), absent: PickSet { items: (0..n as u32).collect() }, exists: PickSet::default(), entries };
    let total: u64 = set.entries.iter().map(|e| blocks_of(e.size_bytes)).sum::<u64>() * spec.prealloc_pct as u64 / 100;
    let mut tag = mix64(r.next_u64());
    let mut laid = 0u64;
    for i in 0..n as u32 {
        if r.below(100) >= spec.prealloc_pct as u64 {
            continue;
        }
        let e = set.entries[i as usize].clone();
        let (ino, t2) = fs.create(t, e.dir, &entry_name(i))?;
        t = t2;
        t = write_sequentially(fs, ino, 0..blocks_of(e.size_bytes), &mut tag, t, |k| {
            laid += k;
            if let Some(p) = progress.filter(|_| laid % (1 << 14) < k) {
                p(&ProgressTick { phase: Phase::Layout, done: laid as f64, total: total as f64, ios: laid });
            }
        })?;
        set.created(i, ino);
    }
    Ok((set, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_sizes_have_the_asked_mean() {
        let mut r = SimRng::new(3);
        let n = 200_000;
        let mean = (0..n).map(|_| gamma(&mut r, 1.5, 131_072.0 / 1.5)).sum::<f64>() / n as f64;
        assert!((mean / 131_072.0 - 1.0).abs() < 0.01, "mean {mean}");
    }

    #[test]
    fn pick_sets_move_entries_between_states() {
        let mut s = Fileset {
            entries: vec![Entry { dir: 0, size_bytes: 1, ino: None }; 4],
            pos: (0..4).collect(),
            exists: PickSet::default(),
            absent: PickSet { items: (0..4).collect() },
        };
        s.created(2, 10);
        s.created(0, 11);
        assert_eq!(s.existing(), 2);
        s.deleted(2);
        assert_eq!(s.exists.items, vec![0]);
        let mut absent = s.absent.items.clone();
        absent.sort();
        assert_eq!(absent, vec![1, 2, 3]);
        let mut r = SimRng::new(1);
        assert_eq!(s.pick_existing(&mut r), Some(0));
    }
}
