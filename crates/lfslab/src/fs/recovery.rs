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
//! Assumption, stated in the report: the device loses nothing it accepted
//! (power-loss-protected write buffer), so a crash drops only host state:
//! the page cache, dirty nodes, and NAT/SIT changes since the checkpoint.

use super::node::{Nid, Node, NodeManager, NULL_ADDR};
use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::oracle::Fingerprint;
use crate::sim::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// Recovery bookkeeping, kept only when crash tracking is on.
#[derive(Clone, Debug, Default)]
pub struct RecoveryLog {
    cp_nat: Vec<u32>,
    cp_nodes: Vec<Option<Node>>,
    /// Node writes since the checkpoint, in order.
    node_log: Vec<(Nid, Node)>,
    /// Inodes fsync'd since the checkpoint.
    fsynced: BTreeSet<Nid>,
    /// Per file: content promised durable, and offsets written since.
    durable: BTreeMap<Nid, (Vec<u64>, BTreeSet<u64>)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashReport {
    pub files_checked: u64,
    pub blocks_checked: u64,
    /// Promised blocks that recovery would not return.
    pub blocks_lost: u64,
    pub first_loss: Option<String>,
}

impl RecoveryLog {
    /// A checkpoint completed: it is the new image; every file's committed
    /// content is durable.
    pub fn on_checkpoint(&mut self, nm: &NodeManager, committed: &BTreeMap<Nid, Vec<u64>>) {
        let (nat, nodes) = nm.snapshot();
        self.cp_nat = nat;
        self.cp_nodes = nodes;
        self.node_log.clear();
        self.fsynced.clear();
        self.durable = committed.iter().map(|(&i, c)| (i, (c.clone(), BTreeSet::new()))).collect();
    }

    pub fn on_node_write(&mut self, nid: Nid, node: &Node) {
        self.node_log.push((nid, node.clone()));
    }

    /// fsync of `ino` returned: its committed content is durable.
    pub fn on_fsync(&mut self, ino: Nid, committed: &[u64]) {
        self.fsynced.insert(ino);
        self.durable.insert(ino, (committed.to_vec(), BTreeSet::new()));
    }

    /// Offsets of `ino` written (or truncated) after its durability point.
    pub fn on_touch(&mut self, ino: Nid, from: u64, to: u64) {
        if let Some((d, touched)) = self.durable.get_mut(&ino) {
            let end = to.min(d.len() as u64);
            touched.extend(from..end);
        }
    }

    /// The recovered node tree: checkpoint image + roll-forward.
    fn recovered(&self, roll_forward: bool) -> NodeManager {
        let mut nm = NodeManager::from_image(self.cp_nat.clone(), self.cp_nodes.clone());
        if roll_forward {
            for (nid, node) in &self.node_log {
                if self.fsynced.contains(&node.ino) {
                    nm.restore(*nid, node.clone());
                }
            }
        }
        nm
    }

    /// Check every promised block against what recovery would read.
    pub fn check<D: BlockDevice>(&self, dev: &mut D, at: SimTime, roll_forward: bool) -> CrashReport {
        let nm = self.recovered(roll_forward);
        let mut r = CrashReport::default();
        let mut buf = Vec::new();
        for (&ino, (promised, touched)) in &self.durable {
            r.files_checked += 1;
            for (off, &want) in promised.iter().enumerate() {
                if want == 0 || touched.contains(&(off as u64)) {
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
