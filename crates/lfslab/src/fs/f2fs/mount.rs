//! Mount after a crash: the filesystem is rebuilt from what the device
//! holds, by the recovery path of fs/f2fs (`f2fs_fill_super` ->
//! `f2fs_recover_orphan_inodes`, `f2fs_recover_fsync_data`), then runs on.
//!
//! What the device holds is the last checkpoint (NAT, SIT with segment
//! types and current segments, SSA, orphan list, the directories' dentry
//! blocks and the inodes' sizes) and the node blocks written since. The
//! simulator keeps one fingerprint per block on flash, not the structures
//! themselves, so the checkpoint's structures are kept beside it
//! (`MountImage`, captured when each checkpoint completes) and every node
//! block the recovered tree names is read back from the device and must
//! carry the fingerprint its write gave it.
//!
//! Steps, in the kernel's order:
//! 1. The checkpoint's NAT and nodes, then roll-forward: the node blocks
//!    of inodes fsync'd since (`find_fsync_dnodes`, `do_recover_data`), with
//!    their sizes (`recover_inode`); an fsync'd inode created since the
//!    checkpoint gets its dentry back in its parent (`recover_dentry`,
//!    replacing a different inode under the same name).
//! 2. D2FS (d2fs.txt §7): outstanding migration records after the
//!    checkpointed one are redone in order.
//! 3. The SIT is the checkpoint's, adjusted to the recovered tree: blocks
//!    it no longer names are invalid, blocks roll-forward found are valid
//!    (`f2fs_replace_block`: an untyped segment becomes WARM data, or HOT
//!    for directories and the node log's type for nodes).
//! 4. Orphan inodes of the checkpoint are evicted (`f2fs_recover_orphan_inodes`).
//! 5. Zoned F2FS: a free section whose zone was written is reset, every
//!    other written zone is finished (`f2fs_check_write_pointer`,
//!    `fix_curseg_write_pointer`). Every log moves to a new section
//!    (`f2fs_allocate_new_section`), so nothing written after the checkpoint
//!    is overwritten.
//! 6. D2FS: main-area blocks the recovered SIT does not hold but the device
//!    maps are discarded, so Coupled GC does not carry the dead mount's
//!    garbage (lfslab's step: the paper does not say; plain F2FS leaves
//!    them, as the kernel does, to be overwritten on reuse).
//! 7. A checkpoint (`CP_RECOVERY`).
//!
//! Time: roll-forward's reads occupy the device, but the mount returns at
//! the end of its zone commands and the recovery checkpoint; reading the
//! checkpoint, NAT and SIT is not timed (simplified).
//!
//! The report checks every block an fsync or checkpoint promised against
//! the mounted tree, and the consistency checker and a namespace walk run
//! on the result.

use super::dir::Dir;
use super::*;
use crate::fs::recovery::redo_records;

/// An inode as a checkpoint or an fsync left it on the device.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct InodeImage {
    size_blocks: u64,
    parent: Ino,
    /// Its name in the parent (`i_name`), kept for `recover_dentry`.
    name: Option<Box<str>>,
    /// A directory's entries as its dentry blocks (or inline dentries) hold them.
    dir: Option<Box<Dir>>,
    /// In the checkpoint's orphan list.
    orphan: bool,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct CpImage {
    sm: SegmentManager,
    owner: crate::fs::ssa::SsaTable,
    files: BTreeMap<Ino, InodeImage>,
    cp_version: u64,
}

/// The last checkpoint and the inodes fsync'd since.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct MountImage {
    cp: CpImage,
    fsynced: BTreeMap<Ino, InodeImage>,
}

/// What a mount after a crash found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MountReport {
    /// Inodes in the mounted filesystem (root included).
    pub inodes: u64,
    /// Inodes whose fsync'd node blocks were rolled forward.
    pub rolled_forward: u64,
    /// Dentries re-created for fsync'd inodes new since the checkpoint.
    pub dentries_recovered: u64,
    pub orphans_evicted: u64,
    /// Roll-forward stopped early: the node block it could not read back.
    pub roll_forward_stopped: Option<String>,
    /// D2FS: outstanding migration records redone.
    pub records_redone: u64,
    /// Node blocks logged but no longer reachable from their inode (dropped).
    pub unreachable_nodes: u64,
    /// Zoned: zones reset (free but written) and finished (partly written).
    pub zones_reset: u64,
    pub zones_finished: u64,
    /// Prefree sections released before the logs restarted (none free).
    pub sections_released_early: u64,
    /// D2FS: Coupled GC rounds the mount asked for to find its logs sections.
    pub mount_cgc_rounds: u64,
    /// D2FS: blocks discarded because only the dead mount used them.
    pub blocks_trimmed: u64,
    /// Recovered data pointers whose block the device no longer maps (only
    /// allowed for blocks nobody was promised).
    pub unmapped_pointers: u64,
    pub promised_checked: u64,
    /// Promised blocks the mounted filesystem does not return.
    pub promised_lost: u64,
    /// Blocks written after their file's last durability point (never
    /// fsync'd) that the mount returns with the new data: a crash made
    /// un-synced writes visible. F2FS's out-of-place updates roll them back
    /// (but roll-forward replays every node block an fsync'd inode wrote
    /// since the checkpoint, later ones too); in-place updates (IPU) and
    /// RM-IPU's remaps do not roll back at all: the window
    /// rm-ipu.txt §3 names as RM-IPU's known inconsistency. Not an error.
    pub unsynced_visible: u64,
    /// Consistency failures: lost promises, bad node blocks, SIT/SSA or
    /// namespace errors. Empty when the mount is sound.
    pub errors: Vec<String>,
}

impl<D: BlockDevice> F2fs<D> {
    /// Where block `off` of `ino` lives on the device (None: a hole).
    pub fn block_address(&self, ino: Ino, off: u64) -> Option<u64> {
        let a = self.nm.probe(ino, off).map(|s| self.nm.get_addr(s))?;
        (a != NULL_ADDR).then_some(a as u64)
    }

    /// A checkpoint completed: it is what a mount would start from.
    pub(super) fn capture_mount_image(&mut self) {
        if self.recovery.is_none() {
            return;
        }
        let files = self
            .files
            .iter()
            .map(|(&ino, f)| {
                let im = InodeImage { size_blocks: f.size_blocks, parent: f.parent, name: None, dir: f.dir.clone(), orphan: f.orphan };
                (ino, im)
            })
            .collect();
        let cp = CpImage { sm: self.sm.clone(), owner: self.owner.clone(), files, cp_version: self.cp_version };
        self.mount_image = Some(Box::new(MountImage { cp, fsynced: BTreeMap::new() }));
    }

    /// fsync of `ino` returned: its inode block (size, parent, name) is on the device.
    pub(super) fn note_fsync_image(&mut self, ino: Ino) {
        let Some(img) = &mut self.mount_image else { return };
        let f = &self.files[&ino];
        let name = self.files.get(&f.parent).and_then(|p| p.dir.as_ref()).and_then(|d| d.name_of(ino)).map(Into::into);
        img.fsynced.insert(ino, InodeImage { size_blocks: f.size_blocks, parent: f.parent, name, dir: None, orphan: false });
    }

    /// Power is cut at `at`: everything in host memory is lost, the device
    /// keeps what it accepted. Mount again from the device and return the
    /// new filesystem, ready to run on. Err if crash recovery is not tracked.
    pub fn crash_remount(self, at: SimTime) -> Result<(Self, MountReport), String> {
        let F2fs { mut dev, cfg, layout, recovery, mount_image, stats, oracle, d2fs, root, .. } = self;
        let (Some(log), Some(img)) = (recovery, mount_image) else {
            return Err("crash recovery is not tracked (FsConfig::track_recovery)".into());
        };
        let mut rep = MountReport::default();
        // 1-2. Checkpoint + roll-forward, then the D2FS redo.
        let (mut nm, stop) = log.recovered_from(&mut dev, at, |nid, a| meta_fp(1, nid as u64, a as u64));
        if let Some((nid, a)) = stop {
            rep.roll_forward_stopped = Some(format!("node {nid} at block {a} is not on the device"));
        }
        let mut last_record = log.cp_record;
        if d2fs.is_some() {
            let records = dev.records_after(log.cp_record);
            last_record = records.last().map_or(last_record, |r| r.id);
            let (n, redone) = redo_records(nm, &records);
            nm = n;
            rep.records_redone = redone;
        }
        let (nat, nodes) = nm.snapshot();
        let nm = NodeManager::mount(nat, nodes, layout.max_nid.min(crate::fs::ssa::MAX_NID));
        let d2 = d2fs.map(|d| d2fs::D2fsState::remounted(d.gc_first_sec, last_record));
        let MountImage { cp, fsynced } = *img;
        let mut fs = Self::assemble(dev, cfg, layout, cp.sm, nm, root, d2);
        fs.owner = cp.owner;
        fs.cp_version = cp.cp_version;
        fs.stats = stats;
        fs.oracle = oracle;
        fs.last_cp = at;
        fs.last_req = at;
        fs.discard_ran = at;
        fs.gc_wake_at = at + SimDuration::from_ms(fs.gc_wait_ms);
        let mut orphans = Vec::new();
        for (&ino, im) in &cp.files {
            let mut f = FileState::new(im.parent, im.dir.clone());
            f.size_blocks = im.size_blocks;
            f.synced_size = im.size_blocks;
            f.created_since_cp = false;
            fs.files.insert(ino, f);
            if im.orphan {
                orphans.push(ino);
            }
        }
        let mut new_dentries = Vec::new();
        for &ino in &log.fsynced {
            // An fdatasync that left the inode block unwritten recovers nothing new.
            let Some(im) = fsynced.get(&ino).filter(|_| fs.nm.exists(ino)) else { continue };
            rep.rolled_forward += 1;
            match fs.files.get_mut(&ino) {
                Some(f) => {
                    f.size_blocks = im.size_blocks;
                    f.synced_size = im.size_blocks;
                }
                None => {
                    let mut f = FileState::new(im.parent, None);
                    f.size_blocks = im.size_blocks;
                    f.synced_size = im.size_blocks;
                    f.created_since_cp = false;
                    fs.files.insert(ino, f);
                    new_dentries.push((im.parent, im.name.clone(), ino));
                }
            }
        }
        // Nodes the log holds that no inode reaches any more.
        let mut reachable = BTreeSet::new();
        for &ino in fs.files.keys() {
            match fs.nm.nodes_of_checked(ino) {
                Ok(n) => reachable.extend(n),
                Err(nid) => return Err(format!("inode {ino}: node {nid} of its tree is not on the device")),
            }
        }
        let stray: Vec<Nid> = fs.nm.live_nids().filter(|n| !reachable.contains(n)).collect();
        for nid in stray {
            fs.nm.remove(nid);
            rep.unreachable_nodes += 1;
        }
        fs.mount_tree(at, &mut rep);
        // The promises, against the recovered tree, before it moves on
        // (orphans the checkpoint holds were unlinked durably: evicted below).
        fs.check_promises(&log, &mut rep);
        let mut t = at;
        // 5. Zones (and D2FS's block-mapped sections), then every log in a new section.
        if fs.cfg.zoned || fs.d2fs.is_some() {
            let (main, per_sec) = (fs.layout.main_blkaddr, fs.layout.blocks_per_sec());
            let regular = fs.d2fs.as_ref().map_or(fs.layout.main_sections, |d| d.gc_first_sec);
            for s in 0..regular {
                let z = Lpn(main + s as u64 * per_sec);
                if fs.cfg.zoned && fs.dev.peek_direct(z).is_none() {
                    continue;
                }
                if fs.cfg.zoned && fs.sm.section_is_free(s) {
                    t = t.max(fs.dev.reset_zone(at, z, per_sec as u32));
                    rep.zones_reset += 1;
                    fs.stats.zone_resets += 1;
                } else {
                    let done = fs.dev.finish_zone(at, z);
                    rep.zones_finished += (done > at) as u64;
                    t = t.max(done);
                }
            }
        }
        // 6. D2FS: the dead mount's garbage (before the logs move, so a
        // Coupled GC round the logs may need below does not carry it).
        if fs.d2fs.is_some() {
            let mut dead = Vec::new();
            for blk in fs.layout.main_blkaddr..fs.layout.blocks {
                if !fs.sm.is_valid(blk) && fs.dev.peek_direct(Lpn(blk)).is_some() {
                    dead.push(blk);
                }
            }
            rep.blocks_trimmed = dead.len() as u64;
            fs.discard_blocks(t, &mut dead);
        }
        if fs.sm.restart_logs().is_err() {
            // Every free section is taken: release the sections recovery
            // emptied (prefree) now rather than at the CP_RECOVERY
            // checkpoint, which needs the logs first. They hold no block
            // the recovered tree uses; a mount is atomic in lfslab's model.
            let keep = fs.d2fs_sections_to_keep();
            let freed = fs.sm.checkpoint(&keep, CpDiscards::Off).freed;
            rep.sections_released_early = freed.len() as u64;
            if fs.cfg.zoned {
                let (main, per_sec) = (fs.layout.main_blkaddr, fs.layout.blocks_per_sec());
                for s in freed {
                    t = t.max(fs.dev.reset_zone(at, Lpn(main + s as u64 * per_sec), per_sec as u32));
                    rep.zones_reset += 1;
                    fs.stats.zone_resets += 1;
                }
            }
            if fs.sm.restart_logs().is_err() {
                t = fs.mount_free_section_fault(t, &mut rep)?;
            }
        }
        // 4. recover_dentry, then the orphans.
        for (parent, name, ino) in new_dentries {
            let Some(name) = name.filter(|_| fs.is_dir(parent)) else {
                rep.errors.push(format!("fsync'd inode {ino}: parent {parent} or its name is not on the device"));
                continue;
            };
            let change = match fs.dir_mut(parent).lookup(&name) {
                Some(other) => {
                    let (_, c) = fs.dir_mut(parent).replace(&name, ino).expect("looked up");
                    orphans.push(other);
                    Some(c)
                }
                None => fs.dir_mut(parent).add(&name, ino),
            };
            match change {
                Some(c) => fs.dentry_changed(parent, c),
                None => rep.errors.push(format!("directory {parent} has no room for recovered '{name}'")),
            }
            rep.dentries_recovered += 1;
        }
        for ino in orphans {
            if let Some(f) = fs.files.get_mut(&ino) {
                f.orphan = true;
                fs.orphans += 1;
                t = fs.evict(t, ino).map_err(|e| format!("evicting orphan {ino}: {e}"))?;
                rep.orphans_evicted += 1;
            }
        }
        // 7. CP_RECOVERY.
        t = fs.checkpoint(t);
        fs.last_cp = t;
        if let Err(e) = fs.check_consistency() {
            rep.errors.push(format!("after recovery: {e}"));
        }
        fs.check_namespace(&mut rep);
        rep.inodes = fs.files.len() as u64;
        Ok((fs, rep))
    }

    /// D2FS at mount, with every free section taken: the free-section fault
    /// of normal running (`d2fs_balance`, d2fs.txt §6.1) without its
    /// checkpoint, which needs the logs. The host asks the device for Coupled
    /// GC rounds, applies the upcalls' records and releases the regular
    /// sections they empty. Until CP_RECOVERY the records stay outstanding on
    /// the device (completed only by a checkpoint), so a crash in here redoes
    /// them at the next mount. Plain F2FS never gets here: the checkpoint's
    /// reserve keeps free sections for its logs.
    fn mount_free_section_fault(&mut self, at: SimTime, rep: &mut MountReport) -> Result<SimTime, String> {
        const NO_ROOM: &str = "no free section left for the logs after recovery";
        if self.d2fs.is_none() {
            return Err(NO_ROOM.into());
        }
        self.stats.free_section_faults += 1;
        let mut t = at;
        // Bounded as d2fs_balance is: each round frees a section or makes the device reclaim one block.
        for _ in 0..64 * self.layout.main_sections {
            t = match self.dev.reclaim(t) {
                Some(done) => done,
                None => return Err(format!("{NO_ROOM} (the device has nothing to reclaim)")),
            };
            rep.mount_cgc_rounds += 1;
            t = self.await_upcall_handler(t);
            let keep = self.d2fs_sections_to_keep();
            rep.sections_released_early += self.sm.checkpoint(&keep, CpDiscards::Off).freed.len() as u64;
            if self.sm.restart_logs().is_ok() {
                return Ok(t);
            }
        }
        Err(NO_ROOM.into())
    }

    /// Step 3 and the oracle: the SIT and SSA follow the recovered tree,
    /// node blocks are read back, file contents are what the device holds.
    fn mount_tree(&mut self, at: SimTime, rep: &mut MountReport) {
        let mut live: BTreeMap<u64, (crate::fs::ssa::SsaEntry, LogType)> = BTreeMap::new();
        let inos: Vec<Ino> = self.files.keys().copied().collect();
        let gc_first = self.d2fs.as_ref().map(|d| d.gc_first_sec);
        for &ino in &inos {
            let is_dir = self.is_dir(ino);
            let size = self.files[&ino].size_blocks;
            let mut expected = vec![0u32; size as usize];
            let mut used = 0;
            for nid in self.nm.nodes_of(ino) {
                let a = self.nm.nat_addr(nid);
                if a == NULL_ADDR {
                    rep.errors.push(format!("node {nid} of inode {ino} has no block on the device"));
                    continue;
                }
                // A node CGC moved into the GC region keeps the fingerprint of
                // where the host wrote it; those are vouched for by the redo.
                let moved = gc_first.is_some_and(|g| self.layout.sec_of_seg(self.layout.segno_of(a as u64)) >= g);
                if !moved && self.dev.peek_direct(Lpn(a as u64)) != Some(meta_fp(1, nid as u64, a as u64)) {
                    rep.errors.push(format!("node {nid} of inode {ino}: block {a} does not hold it (holds {:?})", self.dev.peek_direct(Lpn(a as u64))));
                }
                let log = self.node_log(nid);
                if live.insert(a as u64, (crate::fs::ssa::SsaEntry::node(nid), log)).is_some() {
                    rep.errors.push(format!("block {a} has two owners (node {nid})"));
                }
                let node = self.nm.node(nid);
                if node.kind == NodeKind::Indirect {
                    continue;
                }
                let start = node.start_off;
                let slots: Vec<(u32, u32)> =
                    node.slots.iter().enumerate().filter(|(_, &a)| a != NULL_ADDR).map(|(i, &a)| (i as u32, a)).collect();
                for (ofs, a) in slots {
                    let off = start + ofs as u64;
                    if off >= size {
                        // Beyond i_size: truncated before the crash.
                        self.nm.set_addr(DnodeSlot { nid, ofs }, NULL_ADDR);
                        continue;
                    }
                    let log = if is_dir { LogType::HotData } else { LogType::WarmData };
                    if live.insert(a as u64, (crate::fs::ssa::SsaEntry::data(DnodeSlot { nid, ofs }), log)).is_some() {
                        rep.errors.push(format!("block {a} has two owners (inode {ino} block {off})"));
                    }
                    used += 1;
                    match self.dev.peek_direct(Lpn(a as u64)) {
                        Some(fp) => expected[off as usize] = fp.0,
                        None => rep.unmapped_pointers += 1,
                    }
                }
            }
            self.used_blocks += used;
            let f = self.files.get_mut(&ino).expect("listed");
            f.committed = expected.clone();
            f.expected = expected;
        }
        for blk in self.sm.valid_blocks() {
            if !live.contains_key(&blk) {
                self.sm.invalidate_undiscarded(blk);
            }
        }
        for (&blk, &(own, log)) in &live {
            if blk < self.layout.main_blkaddr || blk >= self.layout.blocks {
                rep.errors.push(format!("block {blk} is outside the main area"));
                continue;
            }
            if !self.sm.is_valid(blk) {
                self.sm.recover_block(blk, log, at);
            }
            let i = self.main_index(blk);
            self.owner.set(i, own);
        }
    }

    /// Every block promised by a checkpoint or an fsync, read by the mounted
    /// tree; and every block written since its file's durability point that
    /// the mount returns with that newer content (`unsynced_visible`).
    fn check_promises(&mut self, log: &super::super::recovery::RecoveryLog, rep: &mut MountReport) {
        for (&ino, (promised, touched)) in &log.durable {
            let live = self.files.contains_key(&ino);
            let read = |fs: &Self, off: u64| {
                let addr = if live { fs.nm.probe(ino, off).map(|s| fs.nm.get_addr(s)).unwrap_or(NULL_ADDR) } else { NULL_ADDR };
                ((addr != NULL_ADDR).then(|| fs.dev.peek_direct(Lpn(addr as u64))).flatten(), addr)
            };
            for (off, &want) in promised.iter().enumerate() {
                if want == 0 || touched.contains_key(&(off as u64)) {
                    continue;
                }
                rep.promised_checked += 1;
                let (got, addr) = read(self, off as u64);
                if got != Some(Fingerprint(want)) {
                    rep.promised_lost += 1;
                    if rep.promised_lost <= 3 {
                        rep.errors.push(format!("inode {ino} block {off}: promised {want:#x}, recovered {got:?} at {addr}"));
                    }
                }
            }
            for (&off, &new) in touched {
                let old = promised.get(off as usize).copied().unwrap_or(0);
                if new != 0 && new != old && read(self, off).0 == Some(Fingerprint(new)) {
                    rep.unsynced_visible += 1;
                }
            }
        }
    }

    /// Every inode but the root is linked exactly once, from a directory
    /// that is itself reachable; every dentry names a live inode.
    fn check_namespace(&self, rep: &mut MountReport) {
        let mut links: BTreeMap<Ino, u32> = BTreeMap::new();
        let mut stack = vec![self.root];
        while let Some(d) = stack.pop() {
            let Some(dir) = self.files.get(&d).and_then(|f| f.dir.as_ref()) else { continue };
            for (name, ino) in dir.entries() {
                match self.files.get(&ino) {
                    None => rep.errors.push(format!("directory {d}: '{name}' names inode {ino}, which does not exist")),
                    Some(f) => {
                        *links.entry(ino).or_default() += 1;
                        if f.dir.is_some() {
                            stack.push(ino);
                        }
                    }
                }
            }
        }
        for &ino in self.files.keys() {
            let n = links.get(&ino).copied().unwrap_or(0);
            if ino != self.root && n != 1 && !self.files[&ino].orphan {
                let f = &self.files[&ino];
                rep.errors.push(format!("inode {ino} (parent {}, {} blocks) is linked {n} times", f.parent, f.size_blocks));
            }
        }
    }
}
