//! F2FS node tree and NAT (fs/f2fs/node.c, include/linux/f2fs_fs.h).
//!
//! An inode holds 923 direct data addresses and 5 node ids: two direct
//! nodes, two indirect nodes and one double-indirect node. A direct node
//! holds 1018 data addresses; an indirect node 1018 node ids. The NAT maps
//! each node id to the block address of its latest copy; every node write
//! goes to a new address, so every data-pointer change dirties a node, and
//! every node write dirties a NAT entry.

use std::collections::BTreeSet;

pub type Nid = u32;

/// Direct addresses in an inode (DEF_ADDRS_PER_INODE).
pub const ADDRS_PER_INODE: u64 = 923;
/// Addresses (or nids) per direct (indirect) node (DEF_ADDRS_PER_BLOCK / NIDS_PER_BLOCK).
pub const ADDRS_PER_BLOCK: u64 = 1018;
/// Node ids kept in an inode (i_nid[5]).
pub const NIDS_PER_INODE: usize = 5;

/// Block address meaning "no block".
pub const NULL_ADDR: u32 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NodeKind {
    Inode,
    Direct,
    Indirect,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    /// Inode this node belongs to.
    pub ino: Nid,
    /// Data block addresses (inode: 923, direct: 1018) or child nids (indirect: 1018).
    pub slots: Vec<u32>,
    /// Inode only: i_nid[5].
    pub nids: [Nid; NIDS_PER_INODE],
    /// File block offset of slot 0 (inode and direct nodes), so GC can map
    /// an SSA entry (nid, ofs) back to a file page.
    pub start_off: u64,
}

/// Where a file block's address lives: node `nid`, slot `ofs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DnodeSlot {
    pub nid: Nid,
    pub ofs: u32,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct NodeManager {
    /// NAT: nid -> block address of the node (NULL_ADDR: never written).
    nat: Vec<u32>,
    nodes: Vec<Option<Node>>,
    free_nids: BTreeSet<Nid>,
    /// Nids freed since the checkpoint: reusable only after the next one, as
    /// `add_free_nid` refuses a nid whose NAT entry is not checkpointed (a
    /// roll-forward must never find another inode's nodes under it).
    freed_since_cp: Vec<Nid>,
    next_nid: Nid,
    max_nid: Nid,
    dirty: super::id_set::IdSet,
    /// Inodes whose own block addresses or node pointers (i_nid) changed
    /// since the inode block was written: fdatasync must write it (its page
    /// is dirty in the kernel: set_nid dirties it, and f2fs_fsync_node_pages
    /// writes every dirty dnode page of the inode, the inode's included),
    /// while a size- or time-only change can wait.
    inode_addrs_dirty: super::id_set::IdSet,
    dirty_nat: super::id_set::IdSet,
    live: u64,
}

/// The node path to file block `off`: (index in inode's i_nid or None for
/// the inode itself, then child indices below it).
fn path_of(off: u64) -> Option<(Option<usize>, [u32; 2], usize, u32)> {
    let a = ADDRS_PER_BLOCK;
    if off < ADDRS_PER_INODE {
        return Some((None, [0; 2], 0, off as u32));
    }
    let mut o = off - ADDRS_PER_INODE;
    if o < 2 * a {
        return Some((Some((o / a) as usize), [0; 2], 0, (o % a) as u32));
    }
    o -= 2 * a;
    if o < 2 * a * a {
        let k = o / (a * a);
        let r = o % (a * a);
        return Some((Some(2 + k as usize), [(r / a) as u32, 0], 1, (r % a) as u32));
    }
    o -= 2 * a * a;
    if o < a * a * a {
        return Some((Some(4), [(o / (a * a)) as u32, ((o / a) % a) as u32], 2, (o % a) as u32));
    }
    None
}

/// Largest file size in blocks the node tree can address.
pub const MAX_FILE_BLOCKS: u64 = ADDRS_PER_INODE + 2 * ADDRS_PER_BLOCK + 2 * ADDRS_PER_BLOCK * ADDRS_PER_BLOCK
    + ADDRS_PER_BLOCK * ADDRS_PER_BLOCK * ADDRS_PER_BLOCK;

impl NodeManager {
    pub fn new(max_nid: Nid) -> Self {
        // nid 0 is invalid; 1..=2 are reserved (node/meta inodes) as in F2FS; root is 3.
        NodeManager {
            nat: vec![NULL_ADDR; 4],
            nodes: vec![None, None, None, None],
            free_nids: BTreeSet::new(),
            freed_since_cp: Vec::new(),
            next_nid: 4,
            max_nid,
            dirty: Default::default(),
            inode_addrs_dirty: Default::default(),
            dirty_nat: Default::default(),
            live: 0,
        }
    }

    fn alloc_nid(&mut self) -> Option<Nid> {
        if let Some(n) = self.free_nids.pop_first() {
            return Some(n);
        }
        if self.next_nid >= self.max_nid {
            return None;
        }
        let n = self.next_nid;
        self.next_nid += 1;
        self.nat.push(NULL_ADDR);
        self.nodes.push(None);
        Some(n)
    }

    fn new_node(&mut self, kind: NodeKind, ino: Option<Nid>, start_off: u64) -> Option<Nid> {
        let nid = self.alloc_nid()?;
        let n = match kind {
            NodeKind::Inode => ADDRS_PER_INODE,
            _ => ADDRS_PER_BLOCK,
        } as usize;
        self.nodes[nid as usize] =
            Some(Node { kind, ino: ino.unwrap_or(nid), slots: vec![NULL_ADDR; n], nids: [0; NIDS_PER_INODE], start_off });
        self.dirty.insert(nid);
        self.live += 1;
        Some(nid)
    }

    /// Nodes in existence (each takes one block once written).
    pub fn live_count(&self) -> u64 {
        self.live
    }

    pub fn new_inode(&mut self) -> Option<Nid> {
        self.new_node(NodeKind::Inode, None, 0)
    }

    pub fn node(&self, nid: Nid) -> &Node {
        self.nodes[nid as usize].as_ref().unwrap_or_else(|| panic!("node {nid} does not exist"))
    }

    fn node_mut(&mut self, nid: Nid) -> &mut Node {
        self.nodes[nid as usize].as_mut().unwrap_or_else(|| panic!("node {nid} does not exist"))
    }

    pub fn exists(&self, nid: Nid) -> bool {
        self.nodes.get(nid as usize).is_some_and(|n| n.is_some())
    }

    /// The node slot holding block `off` of inode `ino`; with `alloc`, missing
    /// nodes on the path are created (and dirtied). None: beyond the tree, or
    /// absent without `alloc`, or out of node ids.
    pub fn dnode_slot(&mut self, ino: Nid, off: u64, alloc: bool) -> Option<DnodeSlot> {
        let (top, idx, depth, ofs) = path_of(off)?;
        let Some(top) = top else { return Some(DnodeSlot { nid: ino, ofs }) };
        let mut nid = self.node(ino).nids[top];
        if nid == 0 {
            if !alloc {
                return None;
            }
            let kind = if depth == 0 { NodeKind::Direct } else { NodeKind::Indirect };
            nid = self.new_node(kind, Some(ino), off - ofs as u64)?;
            self.node_mut(ino).nids[top] = nid;
            self.dirty.insert(ino);
            self.inode_addrs_dirty.insert(ino);
        }
        for level in 0..depth {
            let child_kind = if level + 1 == depth { NodeKind::Direct } else { NodeKind::Indirect };
            let i = idx[level] as usize;
            let mut child = self.node(nid).slots[i];
            if child == 0 {
                if !alloc {
                    return None;
                }
                child = self.new_node(child_kind, Some(ino), off - ofs as u64)?;
                self.node_mut(nid).slots[i] = child;
                self.dirty.insert(nid);
            }
            nid = child;
        }
        Some(DnodeSlot { nid, ofs })
    }

    /// The NAT and node contents, for a checkpoint image.
    pub fn snapshot(&self) -> (Vec<u32>, Vec<Option<Node>>) {
        (self.nat.clone(), self.nodes.clone())
    }

    /// A read-only node manager rebuilt from an image (recovery).
    pub fn from_image(nat: Vec<u32>, nodes: Vec<Option<Node>>) -> Self {
        let live = nodes.iter().flatten().count() as u64;
        NodeManager {
            next_nid: nodes.len() as Nid,
            max_nid: Nid::MAX,
            nat,
            nodes,
            free_nids: BTreeSet::new(),
            freed_since_cp: Vec::new(),
            dirty: Default::default(),
            inode_addrs_dirty: Default::default(),
            dirty_nat: Default::default(),
            live,
        }
    }

    /// The node manager a mount builds from the recovered NAT and nodes:
    /// nids with no node are free (`f2fs_build_free_nids` scans the NAT).
    pub fn mount(nat: Vec<u32>, nodes: Vec<Option<Node>>, max_nid: Nid) -> Self {
        let live = nodes.iter().flatten().count() as u64;
        let free_nids = (4..nodes.len() as Nid).filter(|&n| nodes[n as usize].is_none()).collect();
        NodeManager {
            next_nid: nodes.len() as Nid,
            max_nid,
            nat,
            nodes,
            free_nids,
            freed_since_cp: Vec::new(),
            dirty: Default::default(),
            inode_addrs_dirty: Default::default(),
            dirty_nat: Default::default(),
            live,
        }
    }

    /// Nids with a node, in order.
    pub fn live_nids(&self) -> impl Iterator<Item = Nid> + '_ {
        self.nodes.iter().enumerate().filter(|(_, n)| n.is_some()).map(|(i, _)| i as Nid)
    }

    /// Replace (or create) a node's content, as roll-forward does.
    /// `addr` is where the log holds it (NULL_ADDR: keep the NAT's).
    pub fn restore(&mut self, nid: Nid, node: Node, addr: u32) {
        while self.nodes.len() <= nid as usize {
            self.nodes.push(None);
            self.nat.push(NULL_ADDR);
        }
        self.nodes[nid as usize] = Some(node);
        if addr != NULL_ADDR {
            self.nat[nid as usize] = addr;
        }
    }

    /// `dnode_slot` without allocation, for read-only callers.
    pub fn probe(&self, ino: Nid, off: u64) -> Option<DnodeSlot> {
        let (top, idx, depth, ofs) = path_of(off)?;
        let Some(top) = top else { return Some(DnodeSlot { nid: ino, ofs }) };
        let mut nid = self.node(ino).nids[top];
        for &i in idx.iter().take(depth) {
            if nid == 0 {
                return None;
            }
            nid = self.node(nid).slots[i as usize];
        }
        (nid != 0).then_some(DnodeSlot { nid, ofs })
    }

    pub fn dirty_nat_count(&self) -> usize {
        self.dirty_nat.len()
    }

    pub fn get_addr(&self, slot: DnodeSlot) -> u32 {
        self.node(slot.nid).slots[slot.ofs as usize]
    }

    /// Point a data slot at `addr`, dirtying its node; returns the old address.
    /// Hint that `slot` is set soon, in two stages a few calls apart: 0
    /// fetches the node's entry, 1 (the entry cached by then) the address
    /// itself. Never changes results.
    #[inline]
    pub fn prefetch_slot(&self, slot: DnodeSlot, stage: u8) {
        if stage == 0 {
            crate::prefetch::prefetch(&self.nodes, slot.nid as usize);
        } else if let Some(Some(n)) = self.nodes.get(slot.nid as usize) {
            crate::prefetch::prefetch(&n.slots, slot.ofs as usize);
        }
    }

    pub fn set_addr(&mut self, slot: DnodeSlot, addr: u32) -> u32 {
        let n = self.node_mut(slot.nid);
        let old = std::mem::replace(&mut n.slots[slot.ofs as usize], addr);
        if n.kind == NodeKind::Inode && old != addr {
            self.inode_addrs_dirty.insert(slot.nid);
        }
        self.dirty.insert(slot.nid);
        old
    }

    /// The inode's own block addresses changed since it was last written.
    pub fn inode_addrs_dirty(&self, ino: Nid) -> bool {
        self.inode_addrs_dirty.contains(ino)
    }

    pub fn mark_dirty(&mut self, nid: Nid) {
        assert!(self.exists(nid), "dirtying absent node {nid}");
        self.dirty.insert(nid);
    }

    pub fn dirty_count(&self) -> usize {
        self.dirty.len()
    }

    /// Dirty nodes of inode `ino` (for fsync), in nid order.
    pub fn dirty_of(&self, ino: Nid) -> Vec<Nid> {
        self.dirty.sorted().into_iter().filter(|&n| self.node(n).ino == ino).collect()
    }

    /// All dirty nodes, in nid order, cleared.
    pub fn take_dirty(&mut self) -> Vec<Nid> {
        self.inode_addrs_dirty.take_sorted();
        self.dirty.take_sorted()
    }

    pub fn clear_dirty(&mut self, nid: Nid) {
        self.dirty.remove(nid);
        self.inode_addrs_dirty.remove(nid);
    }

    pub fn nat_addr(&self, nid: Nid) -> u32 {
        self.nat[nid as usize]
    }

    /// Record a node's new location; returns the previous one.
    pub fn set_nat(&mut self, nid: Nid, addr: u32) -> u32 {
        self.dirty_nat.insert(nid);
        std::mem::replace(&mut self.nat[nid as usize], addr)
    }

    /// Dirty NAT entries since the last checkpoint, cleared.
    pub fn take_dirty_nat(&mut self) -> Vec<Nid> {
        self.dirty_nat.take_sorted()
    }

    /// Every node of inode `ino`: the inode and all nodes below it.
    pub fn nodes_of(&self, ino: Nid) -> Vec<Nid> {
        let mut out = vec![ino];
        let mut stack: Vec<(Nid, bool)> = self.node(ino).nids.iter().enumerate().filter(|(_, &n)| n != 0).map(|(_, &n)| (n, true)).collect();
        while let Some((nid, _)) = stack.pop() {
            out.push(nid);
            let n = self.node(nid);
            if n.kind == NodeKind::Indirect {
                stack.extend(n.slots.iter().filter(|&&c| c != 0).map(|&c| (c, true)));
            }
        }
        out
    }

    /// `nodes_of` for a tree read from a device, which may name a node that
    /// is not there: Err(that nid).
    pub fn nodes_of_checked(&self, ino: Nid) -> Result<Vec<Nid>, Nid> {
        let mut out = Vec::new();
        let mut stack = vec![ino];
        while let Some(nid) = stack.pop() {
            let Some(n) = self.nodes.get(nid as usize).and_then(|n| n.as_ref()) else { return Err(nid) };
            out.push(nid);
            if n.kind == NodeKind::Inode {
                stack.extend(n.nids.iter().filter(|&&c| c != 0));
            } else if n.kind == NodeKind::Indirect {
                stack.extend(n.slots.iter().filter(|&&c| c != 0));
            }
        }
        Ok(out)
    }

    /// Remove a node (truncate/unlink); its nid returns to the free list.
    pub fn remove(&mut self, nid: Nid) {
        assert!(self.nodes[nid as usize].take().is_some(), "removing absent node {nid}");
        self.live -= 1;
        self.dirty.remove(nid);
        self.inode_addrs_dirty.remove(nid);
        self.set_nat(nid, NULL_ADDR);
        self.freed_since_cp.push(nid);
    }

    /// A checkpoint persisted the NAT: nids freed before it are free again.
    pub fn checkpoint_done(&mut self) {
        self.free_nids.extend(self.freed_since_cp.drain(..));
    }

    /// Detach child `child` from whatever points at it in inode `ino`'s tree.
    pub fn unlink_child(&mut self, ino: Nid, child: Nid) {
        for p in self.nodes_of(ino) {
            let n = self.node_mut(p);
            let mut hit = false;
            for x in n.nids.iter_mut() {
                if *x == child {
                    *x = 0;
                    hit = true;
                }
            }
            if n.kind == NodeKind::Indirect {
                for x in n.slots.iter_mut() {
                    if *x == child {
                        *x = 0;
                        hit = true;
                    }
                }
            }
            if hit {
                self.dirty.insert(p);
                if p == ino {
                    self.inode_addrs_dirty.insert(ino);
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cover_each_level() {
        assert_eq!(path_of(0), Some((None, [0, 0], 0, 0)));
        assert_eq!(path_of(922), Some((None, [0, 0], 0, 922)));
        assert_eq!(path_of(923), Some((Some(0), [0, 0], 0, 0)));
        assert_eq!(path_of(923 + 1018), Some((Some(1), [0, 0], 0, 0)));
        assert_eq!(path_of(923 + 2036), Some((Some(2), [0, 0], 1, 0)));
        assert_eq!(path_of(923 + 2036 + 1018 * 1018 + 1019), Some((Some(3), [1, 0], 1, 1)));
        assert!(path_of(MAX_FILE_BLOCKS - 1).is_some());
        assert!(path_of(MAX_FILE_BLOCKS).is_none());
    }

    #[test]
    fn allocating_a_deep_block_creates_the_path() {
        let mut m = NodeManager::new(1000);
        let ino = m.new_inode().unwrap();
        let off = 923 + 2036 + 5000;
        assert_eq!(m.dnode_slot(ino, off, false), None);
        let s = m.dnode_slot(ino, off, true).unwrap();
        // inode + indirect + direct
        assert_eq!(m.nodes_of(ino).len(), 3);
        assert_eq!(m.set_addr(s, 77), NULL_ADDR);
        assert_eq!(m.get_addr(m.probe(ino, off).unwrap()), 77);
        assert_eq!(m.dirty_of(ino).len(), 3);
        assert_eq!(m.take_dirty().len(), 3);
        assert_eq!(m.dirty_count(), 0);
    }

    #[test]
    fn removed_nids_are_reused_after_a_checkpoint() {
        let mut m = NodeManager::new(1000);
        let a = m.new_inode().unwrap();
        m.remove(a);
        // add_free_nid: not before the NAT entry is checkpointed.
        let b = m.new_inode().unwrap();
        assert_ne!(b, a);
        m.checkpoint_done();
        assert_eq!(m.new_inode(), Some(a));
    }
}
