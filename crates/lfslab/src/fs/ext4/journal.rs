//! jbd2 bookkeeping for ext4's ordered mode (fs/jbd2/transaction.c,
//! commit.c, checkpoint.c): which metadata blocks the running transaction
//! holds, where the circular log's head and tail are, and which committed
//! blocks still wait to be written in place (the checkpoint list).
//!
//! The I/O itself (commit, checkpoint) is issued by `Ext4`, which owns the
//! device; this module decides what to write.

use crate::sim::SimTime;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Block tags per descriptor block: (4096 - 12-byte header - 4-byte tail
/// checksum) / 16-byte journal_block_tag3_t (csum v3, the default with
/// metadata_csum), less one for the first tag's 16-byte UUID.
pub const TAGS_PER_DESCRIPTOR: u64 = 254;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Journal {
    /// The log area; its first block is the journal superblock.
    pub start: u64,
    pub len: u64,
    /// Next log block (offset in 1..len).
    head: u64,
    /// Log blocks between tail and head.
    used: u64,
    /// Log blocks each committed transaction took, oldest first.
    usage: VecDeque<(u64, u64)>,
    /// The running transaction.
    pub tid: u64,
    pub running: BTreeSet<u64>,
    /// When the running transaction began (t_start): it commits
    /// commit_interval later (t_expires).
    pub running_since: Option<SimTime>,
    /// Ordered mode: when the data the running transaction's allocations
    /// point at is written (the commit waits for it).
    pub ordered_done: SimTime,
    /// When the last commit completes; the next one starts after it.
    pub commit_done: SimTime,
    /// Highest committed tid.
    pub committed: u64,
    /// Committed metadata not yet written in place: block -> tid.
    checkpoint: BTreeMap<u64, u64>,
    /// Per committed tid: its commit instant and the blocks it logged
    /// (stale entries, re-logged by a later tid, are skipped).
    tx_blocks: BTreeMap<u64, (SimTime, Vec<u64>)>,
    /// Blocks freed in the running transaction: reusable only after it
    /// commits (ext4_free_blocks defers them to the commit callback).
    pub freed: Vec<(u64, u64)>,
}

/// What a commit writes: the log runs and the checkpointed metadata.
pub struct CommitPlan {
    pub tid: u64,
    /// Metadata blocks logged, in block order.
    pub blocks: Vec<u64>,
    /// (log block, count) runs for descriptors + copies (the log may wrap).
    pub log_runs: Vec<(u64, u64)>,
    /// Where the commit block goes.
    pub commit_block: u64,
}

impl Journal {
    pub fn new(start: u64, len: u64) -> Self {
        Journal {
            start,
            len,
            head: 1,
            used: 0,
            usage: VecDeque::new(),
            tid: 1,
            running: BTreeSet::new(),
            running_since: None,
            ordered_done: SimTime::ZERO,
            commit_done: SimTime::ZERO,
            committed: 0,
            checkpoint: BTreeMap::new(),
            tx_blocks: BTreeMap::new(),
            freed: Vec::new(),
        }
    }

    /// j_max_transaction_buffers: a quarter of the log (jbd2_journal_get_max_txn_bufs).
    pub fn max_transaction(&self) -> u64 {
        ((self.len - 1) / 4).max(1)
    }

    /// jbd2_log_space_left.
    pub fn space_left(&self) -> u64 {
        self.len - 1 - self.used
    }

    /// Log blocks a commit of `n` metadata blocks takes: descriptors,
    /// copies and the commit block.
    pub fn commit_blocks(n: u64) -> u64 {
        n.div_ceil(TAGS_PER_DESCRIPTOR) + n + 1
    }

    pub fn dirty(&mut self, blk: u64, now: SimTime) {
        self.running.insert(blk);
        self.running_since.get_or_insert(now);
    }

    pub fn has_work(&self) -> bool {
        !self.running.is_empty() || !self.freed.is_empty()
    }

    /// Place the running transaction in the log and close it.
    pub fn plan_commit(&mut self) -> CommitPlan {
        let blocks: Vec<u64> = std::mem::take(&mut self.running).into_iter().collect();
        let n = blocks.len() as u64;
        let total = Self::commit_blocks(n);
        assert!(total <= self.space_left(), "jbd2: commit of {total} blocks with {} left (checkpoint first)", self.space_left());
        let mut runs = Vec::new();
        let mut left = total - 1;
        let mut pos = self.head;
        while left > 0 {
            let k = left.min(self.len - pos);
            runs.push((self.start + pos, k));
            left -= k;
            pos += k;
            if pos == self.len {
                pos = 1;
            }
        }
        let commit_block = self.start + pos;
        pos += 1;
        if pos == self.len {
            pos = 1;
        }
        self.head = pos;
        self.used += total;
        let tid = self.tid;
        self.usage.push_back((tid, total));
        self.tid += 1;
        self.running_since = None;
        CommitPlan { tid, blocks, log_runs: runs, commit_block }
    }

    /// The commit of `plan` completed at `at`: its blocks join the checkpoint list.
    pub fn committed(&mut self, plan: &CommitPlan, at: SimTime) {
        for &b in &plan.blocks {
            self.checkpoint.insert(b, plan.tid);
        }
        self.tx_blocks.insert(plan.tid, (at, plan.blocks.clone()));
        self.committed = plan.tid;
        self.commit_done = at;
    }

    /// Live (not re-logged, not yet written) blocks of the oldest
    /// transaction on the checkpoint list, removed from it; None when empty.
    pub fn take_oldest(&mut self) -> Option<(u64, SimTime, Vec<u64>)> {
        let (tid, (at, blocks)) = self.tx_blocks.pop_first()?;
        let live = blocks.into_iter().filter(|b| self.checkpoint.get(b) == Some(&tid)).collect::<Vec<_>>();
        for b in &live {
            self.checkpoint.remove(b);
        }
        Some((tid, at, live))
    }

    /// Commit instant of the oldest transaction still on the checkpoint list.
    pub fn oldest_commit(&self) -> Option<SimTime> {
        self.tx_blocks.first_key_value().map(|(_, (at, _))| *at)
    }

    /// Log blocks the tail could release: transactions before the oldest
    /// one still on the checkpoint list (jbd2_journal_get_log_tail).
    pub fn reclaimable(&self) -> u64 {
        let first_live = self.tx_blocks.keys().next().copied().unwrap_or(u64::MAX);
        self.usage.iter().take_while(|&&(tid, _)| tid < first_live).map(|&(_, n)| n).sum()
    }

    /// Move the tail past every fully checkpointed transaction
    /// (jbd2_update_log_tail); returns the blocks freed.
    pub fn advance_tail(&mut self) -> u64 {
        let first_live = self.tx_blocks.keys().next().copied().unwrap_or(u64::MAX);
        let mut freed = 0;
        while let Some(&(tid, n)) = self.usage.front() {
            if tid >= first_live {
                break;
            }
            self.usage.pop_front();
            freed += n;
        }
        self.used -= freed;
        freed
    }

    /// A metadata block was freed (jbd2_journal_forget): it leaves the
    /// running transaction and the checkpoint list, so no stale copy is
    /// ever written over whatever reuses the block.
    pub fn forget(&mut self, blk: u64) {
        self.running.remove(&blk);
        self.checkpoint.remove(&blk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_logs_descriptors_copies_and_a_commit_block_then_wraps() {
        let mut j = Journal::new(1000, 11);
        for b in [5, 9, 7] {
            j.dirty(b, SimTime::ZERO);
        }
        let p = j.plan_commit();
        assert_eq!(p.blocks, vec![5, 7, 9]);
        assert_eq!(p.log_runs, vec![(1001, 4)]);
        assert_eq!(p.commit_block, 1005);
        j.committed(&p, SimTime(10));
        assert_eq!(j.space_left(), 5);
        // Nothing is reclaimable while block 5, 7, 9 wait for their checkpoint.
        assert_eq!(j.reclaimable(), 0);
        j.dirty(7, SimTime(20));
        let p2 = j.plan_commit();
        assert_eq!(p2.log_runs, vec![(1006, 2)]);
        assert_eq!(p2.commit_block, 1008);
        j.committed(&p2, SimTime(30));
        let (tid, _, live) = j.take_oldest().unwrap();
        // Block 7 was re-logged by tid 2: only 5 and 9 are written for tid 1.
        assert_eq!((tid, live), (1, vec![5, 9]));
        assert_eq!(j.reclaimable(), 5);
        assert_eq!(j.advance_tail(), 5);
        for b in 0..4 {
            j.dirty(100 + b, SimTime(40));
        }
        let p3 = j.plan_commit();
        // 6 log blocks from offset 9: 9, 10, then wrap to 1..
        assert_eq!(p3.log_runs, vec![(1009, 2), (1001, 3)]);
        assert_eq!(p3.commit_block, 1004);
    }
}
