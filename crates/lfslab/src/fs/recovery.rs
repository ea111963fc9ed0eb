//! Crash consistency: what F2FS would recover after power loss at the
//! current instant, checked against what applications were promised.
//!
//! Recovery (fs/f2fs/recovery.c) mounts the last checkpoint and then rolls
//! forward: it walks the warm-node log written after the checkpoint and,
//! for every inode that has an fsync-marked dnode there, re-applies that
//! inode's post-checkpoint node blocks. Here the checkpoint image is the
//! NAT and node contents kept at each checkpoint, and the node log is every
//! node write since; roll-forward applies, in write order, the nodes of the
//! inodes fsync'd since the checkpoint.
//!
//! Promise checked: after a checkpoint or an fsync of a file returned, each
//! block of the file not written again since must read back exactly. Blocks
//! written after the last durability point may read old or new.
//!
//! D2FS (d2fs.txt §7): the checkpoint also stores the last migration record
//! the host had processed; recovery asks the device for the outstanding
//! records after it and redoes them, in order, on the recovered tree (a
//! record whose old LBA the tree no longer uses is skipped). Promised blocks
//! are then read by the device's block mapping alone, so a record that was
//! not redone shows up as a loss instead of being hidden by read-redirect.
//!
//! Assumption, stated in the report: the device loses nothing it accepted
//! (power-loss-protected write buffer), so a crash drops only host state:
//! the page cache, dirty nodes, and NAT/SIT changes since the checkpoint.

use super::node::{DnodeSlot, Nid, Node, NodeKind, NodeManager, NULL_ADDR};
use crate::nvme::MigrationRecord;
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::oracle::Fingerprint;
use crate::sim::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// Recovery bookkeeping, kept only when crash tracking is on.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RecoveryLog {
    cp_nat: Vec<u32>,
    cp_nodes: Vec<Option<Node>>,
    /// Node writes since the checkpoint, in order, with where each went.
    node_log: Vec<(Nid, Node, u32)>,
    /// Inodes fsync'd since the checkpoint.
    pub(crate) fsynced: BTreeSet<Nid>,
    /// Per file: content promised durable, and offsets written (or
    /// truncated: 0) since, with their latest content.
    pub(crate) durable: BTreeMap<Nid, (Vec<u32>, BTreeMap<u64, u32>)>,
    /// D2FS: last migration record reflected in the checkpoint.
    pub(crate) cp_record: u64,
}

/// How a D2FS recovery treats outstanding migration records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redo {
    /// Not a D2FS device: read through the device's normal read path.
    NotApplicable,
    /// Redo outstanding records, then read by the block mapping alone.
    Redo,
    /// Control: skip the redo (must lose remapped blocks).
    Skip,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashReport {
    pub files_checked: u64,
    /// D2FS: outstanding records redone (applied to the recovered tree).
    pub records_redone: u64,
    pub blocks_checked: u64,
    /// Promised blocks that recovery would not return.
    pub blocks_lost: u64,
    pub first_loss: Option<String>,
}

impl RecoveryLog {
    /// A checkpoint completed: it is the new image; every file's committed
    /// content is durable.
    pub fn on_checkpoint(&mut self, nm: &NodeManager, committed: &BTreeMap<Nid, Vec<u32>>) {
        let (nat, nodes) = nm.snapshot();
        self.cp_nat = nat;
        self.cp_nodes = nodes;
        self.node_log.clear();
        self.fsynced.clear();
        self.durable = committed.iter().map(|(&i, c)| (i, (c.clone(), BTreeMap::new()))).collect();
    }

    pub fn set_cp_record(&mut self, id: u64) {
        self.cp_record = id;
    }

    pub fn on_node_write(&mut self, nid: Nid, node: &Node, addr: u32) {
        self.node_log.push((nid, node.clone(), addr));
    }

    /// fsync of `ino` returned: its committed content is durable.
    pub fn on_fsync(&mut self, ino: Nid, committed: &[u32]) {
        self.fsynced.insert(ino);
        self.durable.insert(ino, (committed.to_vec(), BTreeMap::new()));
    }

    /// Offsets of `ino` truncated after its durability point.
    pub fn on_touch(&mut self, ino: Nid, from: u64, to: u64) {
        if let Some((d, touched)) = self.durable.get_mut(&ino) {
            let end = to.min(d.len() as u64);
            touched.extend((from..end).map(|o| (o, 0)));
        }
    }

    /// Block `off` of `ino` was written with `fp` after its durability point.
    pub fn on_write(&mut self, ino: Nid, off: u64, fp: u32) {
        if let Some((_, touched)) = self.durable.get_mut(&ino) {
            touched.insert(off, fp);
        }
    }

    /// The recovered node tree: checkpoint image + roll-forward.
    pub(crate) fn recovered(&self, roll_forward: bool) -> NodeManager {
        let mut nm = NodeManager::from_image(self.cp_nat.clone(), self.cp_nodes.clone());
        if roll_forward {
            for (nid, node, addr) in &self.node_log {
                if self.fsynced.contains(&node.ino) {
                    nm.restore(*nid, node.clone(), *addr);
                }
            }
        }
        nm
    }

    /// Roll-forward as a mount does it (`find_fsync_dnodes`): the node
    /// blocks written since the checkpoint are read back from the device in
    /// write order, and the walk stops at the first one that does not hold
    /// what was written there (the kernel stops where the chain's next
    /// block is not a valid node of this checkpoint). `fp` gives the
    /// fingerprint a node write left. Returns the tree and where it stopped.
    pub(crate) fn recovered_from<D: BlockDevice>(
        &self,
        dev: &mut D,
        at: SimTime,
        fp: impl Fn(Nid, u32) -> Fingerprint,
    ) -> (NodeManager, Option<(Nid, u32)>) {
        let mut nm = NodeManager::from_image(self.cp_nat.clone(), self.cp_nodes.clone());
        let mut buf = Vec::new();
        for (nid, node, addr) in &self.node_log {
            if !self.fsynced.contains(&node.ino) {
                continue;
            }
            dev.read(at, Lpn(*addr as u64), 1, &mut buf);
            if buf[0] != Some(fp(*nid, *addr)) {
                return (nm, Some((*nid, *addr)));
            }
            nm.restore(*nid, node.clone(), *addr);
        }
        (nm, None)
    }

    /// Check every promised block against what recovery would read.
    pub fn check<D: BlockDevice>(&self, dev: &mut D, at: SimTime, roll_forward: bool, redo: Redo) -> CrashReport {
        let mut nm = self.recovered(roll_forward);
        let mut r = CrashReport::default();
        if redo == Redo::Redo {
            let (n, redone) = redo_records(nm, &dev.records_after(self.cp_record));
            nm = n;
            r.records_redone = redone;
        }
        let mut buf = Vec::new();
        for (&ino, (promised, touched)) in &self.durable {
            r.files_checked += 1;
            for (off, &want) in promised.iter().enumerate() {
                if want == 0 || touched.contains_key(&(off as u64)) {
                    continue;
                }
                r.blocks_checked += 1;
                let addr = if nm.exists(ino) {
                    nm.probe(ino, off as u64).map(|s| nm.get_addr(s)).unwrap_or(NULL_ADDR)
                } else {
                    NULL_ADDR
                };
                let got = if addr == NULL_ADDR {
                    None
                } else if redo != Redo::NotApplicable {
                    dev.peek_direct(Lpn(addr as u64))
                } else {
                    dev.read(at, Lpn(addr as u64), 1, &mut buf);
                    buf[0]
                };
                if got != Some(Fingerprint(want)) {
                    r.blocks_lost += 1;
                    if r.first_loss.is_none() {
                        r.first_loss = Some(format!("inode {ino} block {off}: promised {want:#x}, recovered {got:?} at {addr}"));
                    }
                }
            }
        }
        r
    }
}

/// Apply outstanding migration records, in order, to a recovered tree.
pub(crate) fn redo_records(nm: NodeManager, records: &[MigrationRecord]) -> (NodeManager, u64) {
    #[derive(Clone, Copy)]
    enum Owner {
        Data(DnodeSlot),
        Node(Nid),
    }
    let (mut nat, mut nodes) = nm.snapshot();
    let mut rev: BTreeMap<u32, Owner> = BTreeMap::new();
    for (nid, node) in nodes.iter().enumerate() {
        let Some(node) = node else { continue };
        if nat[nid] != NULL_ADDR {
            rev.insert(nat[nid], Owner::Node(nid as Nid));
        }
        if node.kind != NodeKind::Indirect {
            for (ofs, &a) in node.slots.iter().enumerate() {
                if a != NULL_ADDR {
                    rev.insert(a, Owner::Data(DnodeSlot { nid: nid as Nid, ofs: ofs as u32 }));
                }
            }
        }
    }
    let mut redone = 0;
    for r in records {
        let Some(owner) = rev.remove(&(r.old.0 as u32)) else { continue };
        match owner {
            Owner::Data(s) => nodes[s.nid as usize].as_mut().expect("owner exists").slots[s.ofs as usize] = r.new.0 as u32,
            Owner::Node(n) => nat[n as usize] = r.new.0 as u32,
        }
        rev.insert(r.new.0 as u32, owner);
        redone += 1;
    }
    (NodeManager::from_image(nat, nodes), redone)
}
