//! ext4 after a power cut: what jbd2's recovery (fs/jbd2/recovery.c:
//! jbd2_journal_recover, replaying every committed transaction) and the
//! orphan cleanup at mount (ext4_orphan_cleanup) leave, checked against
//! what fsync promised.
//!
//! The journal's view is kept as each inode's image at the last commit that
//! changed it (its size, extents, extent-tree blocks, directory entries,
//! orphan flag): replaying the log writes exactly that metadata in place.
//! Ordered mode wrote the data an allocation points at before the commit,
//! so a recovered extent points at data on the device; in-place overwrites
//! are on the device whether or not anyone fsync'd them (counted as
//! `unsynced_visible`, as for F2FS's IPU). The device is assumed to lose
//! nothing it accepted (power-loss-protected buffer), as for F2FS.
//!
//! Simplified: recovery's I/O (reading the log, writing the metadata in
//! place) takes no simulated time.

use super::*;
use std::collections::BTreeSet;

/// What the mount found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ext4MountReport {
    pub inodes: u64,
    pub orphans_evicted: u64,
    pub promised_checked: u64,
    pub promised_lost: u64,
    /// Blocks written after their file's last fsync that the mount returns
    /// with the new data (in-place overwrites). Not an error.
    pub unsynced_visible: u64,
    pub errors: Vec<String>,
}

/// Crash-recovery bookkeeping, kept when `track_recovery` is on.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Ext4Recovery {
    /// Inodes whose metadata the running transaction changes.
    tx_inodes: BTreeSet<Ino>,
    /// Each inode as of the last commit that changed it (no oracle).
    committed: BTreeMap<Ino, Inode>,
    /// Per file: the content an fsync (or sync_fs) promised, and the
    /// offsets written or truncated since (with the latest content, 0 for
    /// truncated).
    durable: BTreeMap<Ino, (Vec<u32>, BTreeMap<u64, u32>)>,
}

impl Ext4Recovery {
    /// The root as mkfs committed it.
    pub(super) fn formatted(root: Ino, image: &Inode) -> Self {
        let mut r = Ext4Recovery::default();
        r.committed.insert(root, image.clone());
        r
    }
}

impl<D: BlockDevice> Ext4<D> {
    /// The running transaction changed `ino`'s metadata.
    pub(super) fn note_tx_inode(&mut self, ino: Ino) {
        if let Some(r) = &mut self.recovery {
            r.tx_inodes.insert(ino);
        }
    }

    /// A commit completed: its inodes' images are what a mount replays.
    pub(super) fn note_commit(&mut self) {
        let Some(r) = &mut self.recovery else { return };
        for ino in std::mem::take(&mut r.tx_inodes) {
            match self.inodes.get(&ino) {
                Some(f) => {
                    r.committed.insert(ino, Inode { expected: Vec::new(), ..f.clone() });
                }
                None => {
                    r.committed.remove(&ino);
                }
            }
        }
    }

    /// `ino` is gone: its promises with it.
    pub(super) fn note_evicted(&mut self, ino: Ino) {
        if let Some(r) = &mut self.recovery {
            r.durable.remove(&ino);
            r.tx_inodes.insert(ino);
        }
    }

    /// fsync of `ino` returned: its content is durable.
    pub(super) fn note_durable(&mut self, ino: Ino) {
        let Some(r) = &mut self.recovery else { return };
        if let Some(f) = self.inodes.get(&ino) {
            r.durable.insert(ino, (f.expected.clone(), BTreeMap::new()));
        }
    }

    /// Block `off` of `ino` changed (fp) or was truncated (0) after its promise.
    pub(super) fn note_written(&mut self, ino: Ino, off: u64, fp: u32) {
        if let Some((_, t)) = self.recovery.as_mut().and_then(|r| r.durable.get_mut(&ino)) {
            t.insert(off, fp);
        }
    }

    /// Power is cut at `at`: mount again from what the device and the
    /// journal hold, evict the orphans, check every promise. Err if crash
    /// recovery is not tracked.
    pub fn crash_remount(self, at: SimTime) -> Result<(Self, Ext4MountReport), String> {
        let Ext4 { dev, cfg, opts, layout, root, stats, oracle, recovery, .. } = self;
        let Some(rec) = recovery else {
            return Err("crash recovery is not tracked (FsConfig::track_recovery)".into());
        };
        let mut rep = Ext4MountReport::default();
        let mut fs = Ext4::empty(dev, cfg, opts, layout, stats, oracle);
        // Replay: every inode as its last commit left it.
        for (&ino, img) in &rec.committed {
            let mut f = img.clone();
            f.opens = 0;
            let mut expected = vec![0u32; f.size_blocks as usize];
            for (lblk, e) in f.extents.iter() {
                for k in 0..e.len {
                    let o = lblk + k;
                    let content = if e.unwritten { Some(UNWRITTEN) } else { fs.dev.peek_direct(Lpn(e.pblk + k)).map(|p| p.0) };
                    if let (Some(c), true) = (content, (o as usize) < expected.len()) {
                        expected[o as usize] = c;
                    }
                }
                if !fs.take_recovered(e.pblk, e.len) {
                    rep.errors.push(format!("inode {ino}: extent at block {} is claimed twice", e.pblk));
                }
            }
            for &b in &f.tree {
                if !fs.take_recovered(b, 1) {
                    rep.errors.push(format!("inode {ino}: extent-tree block {b} is claimed twice"));
                }
            }
            fs.used_blocks += expected.iter().filter(|&&e| e != 0).count() as u64
                + f.tree.len() as u64
                + f.dir.as_ref().map_or(0, |d| d.blocks());
            f.expected = if f.dir.is_some() { Vec::new() } else { expected };
            if ino != root {
                fs.set_inode_bit(ino, true);
            }
            fs.inodes.insert(ino, f);
        }
        // Namespace: every entry names a recovered inode; every inode but
        // the root and orphans has exactly one entry.
        let mut links: BTreeMap<Ino, u32> = BTreeMap::new();
        for (&d, f) in &fs.inodes {
            let Some(dir) = &f.dir else { continue };
            for (name, ino) in dir.entries() {
                if !fs.inodes.contains_key(&ino) {
                    rep.errors.push(format!("directory {d}: '{name}' names inode {ino}, which is not on the device"));
                }
                *links.entry(ino).or_default() += 1;
            }
        }
        let mut orphans = Vec::new();
        for (&ino, f) in &fs.inodes {
            let n = links.get(&ino).copied().unwrap_or(0);
            match (ino == root, f.orphan, n) {
                (true, _, 0) | (false, false, 1) => {}
                (false, true, 0) => orphans.push(ino),
                _ => rep.errors.push(format!("inode {ino} has {n} directory entries (orphan: {})", f.orphan)),
            }
        }
        // The promises.
        for (&ino, (promised, touched)) in &rec.durable {
            for (off, &want) in promised.iter().enumerate() {
                if want == 0 || want == UNWRITTEN || touched.contains_key(&(off as u64)) {
                    continue;
                }
                rep.promised_checked += 1;
                let got = fs.block_address(ino, off as u64).and_then(|a| fs.dev.peek_direct(Lpn(a)));
                if got != Some(Fingerprint(want)) {
                    rep.promised_lost += 1;
                    if rep.promised_lost <= 3 {
                        rep.errors.push(format!("inode {ino} block {off}: promised {want:#x}, recovered {got:?}"));
                    }
                }
            }
            for (&off, &new) in touched {
                let old = promised.get(off as usize).copied().unwrap_or(0);
                let got = fs.block_address(ino, off).and_then(|a| fs.dev.peek_direct(Lpn(a)));
                if new != 0 && new != old && got == Some(Fingerprint(new)) {
                    rep.unsynced_visible += 1;
                }
            }
        }
        // ext4_orphan_cleanup, then a clean journal from here on.
        let t = at;
        for ino in orphans {
            fs.inodes.get_mut(&ino).expect("listed").orphan = false;
            fs.evict(t, ino).map_err(|e| format!("evicting orphan {ino}: {e}"))?;
            rep.orphans_evicted += 1;
        }
        let mut fresh = Ext4Recovery::default();
        for (&ino, f) in &fs.inodes {
            fresh.committed.insert(ino, Inode { expected: Vec::new(), ..f.clone() });
            if f.dir.is_none() {
                fresh.durable.insert(ino, (f.expected.clone(), BTreeMap::new()));
            }
        }
        fs.recovery = Some(Box::new(fresh));
        if let Err(e) = fs.check_consistency() {
            rep.errors.push(format!("after recovery: {e}"));
        }
        rep.inodes = fs.inodes.len() as u64;
        Ok((fs, rep))
    }

    /// Claim a recovered run; false if any of it is not free.
    fn take_recovered(&mut self, s: u64, l: u64) -> bool {
        let ok = self.alloc.is_free_run(s, l);
        if ok {
            self.alloc.take(s, l);
        }
        ok
    }
}
