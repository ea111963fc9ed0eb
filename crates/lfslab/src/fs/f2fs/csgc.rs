//! CSGC's host offloader (csgc.txt §3.1-3.2) as F2FS's GC of data segments
//! on an sFTL device: per victim segment, one migrate request.
//!
//! 1. Prepare (host): scan the segment's validity bitmap, pre-allocate the
//!    destinations from the cold data log (F2FS GC's own destination) in
//!    one go, gather each valid block's reverse index (its SSA entry,
//!    already in memory: "the cache hit ratio is high and the fetch cost is
//!    negligible", footnote 5). SIT marks the destinations valid and the
//!    sources invalid now. Cost `req_ns + prep_ns_per_block x valid`.
//! 2. Migrate (device): `BlockDevice::migrate`; no data crosses PCIe.
//! 3. Synchronise (host): the completion's index updates repoint the dnodes
//!    (`set_addr`, which dirties the node pages for the next checkpoint, as
//!    F2FS GC's `move_data_block` leaves them). Cost `sync_ns_per_block x valid`.
//!
//! Pipelined GC (§3.2, Fig. 2): the segments of a section are one batch;
//! up to `pipeline_depth` requests are in flight, so the host prepares
//! segment j+1 (and synchronises segment j-1) while the device migrates
//! segment j. With depth 1 each segment waits for the previous one.
//!
//! Crash safety: a power cut after a migrate's completion and before the
//! host has applied its updates and checkpointed loses nothing. The last
//! checkpoint's dnodes still point at the source blocks, and the source
//! section is reset only after a checkpoint has made the new addresses
//! durable (it stays prefree until then), so recovery finds the old
//! copies. An fsync after the GC writes dnodes naming the destinations,
//! which the device holds by then (programmed, or in its power-loss-
//! protected buffer). In lfslab a migrate and the application of its
//! updates happen in one call, so a cut lands before or after both; the
//! test `a_power_cut_after_migration_before_the_checkpoint_loses_nothing`
//! cuts in the window before the checkpoint.
//!
//! Stated simplifications: node segments keep F2FS's own path (node pages
//! are in host memory; a node block's content names its address in lfslab,
//! so it is rewritten, not copied); the chunk allocator of §3.2 is not a
//! separate switch, because lfslab's GC allocates serially, so the
//! destinations of a segment are one contiguous run per log segment anyway.

use super::F2fs;
use crate::fs::node::Nid;
use crate::fs::ssa::SsaEntry;
use crate::fs::segment::LogType;
use crate::fs::FsError;
use crate::nand::Lpn;
use crate::nvme::{BlockDevice, MigrateRequest};
use crate::sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::VecDeque;

/// The offloader's switches and host costs (csgc.txt §3.2; the costs are
/// assumptions: the paper gives none).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CsgcConfig {
    /// Offload data-segment migration to the device (false: F2FS's own GC
    /// over the sFTL device, to isolate sFTL's gain).
    pub offload: bool,
    /// Requests in flight per section (2: the paper's two-stage pipeline).
    pub pipeline_depth: u32,
    /// Piggyback the reverse index on the request (false: the executor
    /// reads each distinct dnode block from flash).
    pub piggyback: bool,
    /// Host CPU per request, per valid block prepared, per update applied (ns).
    pub req_ns: u64,
    pub prep_ns_per_block: u64,
    pub sync_ns_per_block: u64,
}

impl Default for CsgcConfig {
    fn default() -> Self {
        CsgcConfig { offload: true, pipeline_depth: 2, piggyback: true, req_ns: 5_000, prep_ns_per_block: 300, sync_ns_per_block: 500 }
    }
}

impl<D: BlockDevice> F2fs<D> {
    /// Whether data segments are migrated by the device.
    pub(super) fn offloads_gc(&self) -> bool {
        self.cfg.csgc.as_ref().is_some_and(|c| c.offload)
    }

    /// Offload the migration of data segments `segs` (one section's),
    /// starting at `at`; returns when the last update is applied.
    pub(super) fn offload_segments(&mut self, at: SimTime, segs: &[u32]) -> Result<SimTime, FsError> {
        let cfg = self.cfg.csgc.clone().expect("csgc");
        let mut host = at;
        let mut inflight: VecDeque<(SimTime, u64)> = VecDeque::new();
        for &segno in segs {
            if inflight.len() >= cfg.pipeline_depth as usize {
                host = self.offload_sync(host, inflight.pop_front().expect("in flight"), &cfg);
            }
            let seg_start = self.layout.seg_start(segno);
            let blocks: Vec<u64> = self.sm.valid_blocks_of(segno).collect();
            if blocks.is_empty() {
                continue;
            }
            let n = blocks.len() as u64;
            let prepared = host + SimDuration(cfg.req_ns + cfg.prep_ns_per_block * n);
            self.stats.offload_prep_ns += (prepared - host).ns();
            host = prepared;
            let mut valid = [0u64; 8];
            let mut dest: Vec<(Lpn, u32)> = Vec::new();
            let mut rev_index = Vec::with_capacity(blocks.len());
            let mut olds = Vec::with_capacity(blocks.len());
            let mut nodes: Vec<Nid> = Vec::new();
            let mut failed = None;
            for &old in &blocks {
                let new = match self.alloc(LogType::ColdData, host) {
                    Ok(b) => b,
                    Err(e) => {
                        // Migrate what was prepared, so no block is left behind.
                        failed = Some(e);
                        break;
                    }
                };
                let k = (old - seg_start) as u32;
                valid[(k / 64) as usize] |= 1 << (k % 64);
                let own = self.owner.get(self.main_index(old));
                match dest.last_mut() {
                    Some((s, c)) if s.0 + *c as u64 == new => *c += 1,
                    _ => dest.push((Lpn(new), 1)),
                }
                self.sm.invalidate(old);
                let i = self.main_index(new);
                self.owner.set(i, own);
                rev_index.push(own.wire());
                olds.push(old);
                nodes.push(own.nid());
            }
            // Without piggybacking, the executor fetches the dnode blocks itself.
            let index_blocks = if cfg.piggyback {
                Vec::new()
            } else {
                nodes.sort_unstable();
                nodes.dedup();
                nodes.iter().map(|&nid| Lpn(self.nm.nat_addr(nid) as u64)).collect()
            };
            let n = olds.len() as u64;
            if n == 0 {
                return Err(failed.expect("no block prepared only on failure"));
            }
            let req = MigrateRequest { segment: Lpn(seg_start), valid, dest, rev_index, index_blocks, stream: 0 };
            let (done, result) = self
                .dev
                .migrate(host, &req)
                .unwrap_or_else(|s| panic!("migrate of segment {segno} ({n} valid blocks) rejected by the device: {s:?}"));
            self.io_busy_until = self.io_busy_until.max(done);
            // The piggybacked updates repoint the dnodes (applied here; timed at sync).
            for ((own, new), old) in result.updates.into_iter().zip(olds) {
                let slot = SsaEntry::from_wire(own).slot().expect("a data segment holds data blocks");
                let prev = self.nm.set_addr(slot, new.0 as u32);
                assert_eq!(prev as u64, old, "migrate update for {slot:?}: the dnode pointed at {prev}, the request moved {old}");
            }
            self.stats.offload_requests += 1;
            self.stats.gc_moved_data_blocks += n;
            self.stats.data_write_blocks += n;
            inflight.push_back((done, n));
            if let Some(e) = failed {
                while let Some(r) = inflight.pop_front() {
                    host = self.offload_sync(host, r, &cfg);
                }
                return Err(e);
            }
        }
        while let Some(r) = inflight.pop_front() {
            host = self.offload_sync(host, r, &cfg);
        }
        Ok(host)
    }

    /// Collect one victim section now, without the checkpoint foreground GC
    /// takes after it: the window between a migrate's completion and the
    /// checkpoint that makes its updates durable, for the crash tests.
    #[cfg(test)]
    pub(crate) fn collect_greedy_victim_for_test(&mut self, at: SimTime) -> Option<SimTime> {
        use crate::fs::victim::SectionVictim;
        let cands = self.sm.victim_candidates();
        let victim = crate::fs::victim::Greedy.select(&cands, &mut Default::default(), self.layout.blocks_per_sec())?;
        Some(self.gc_section(at, victim).expect("test volume has room"))
    }

    /// Wait for a request's completion and apply its updates.
    fn offload_sync(&mut self, host: SimTime, (done, n): (SimTime, u64), cfg: &CsgcConfig) -> SimTime {
        let start = host.max(done);
        self.stats.offload_wait_ns += (start - host).ns();
        let end = start + SimDuration(cfg.sync_ns_per_block * n);
        self.stats.offload_sync_ns += (end - start).ns();
        end
    }
}
