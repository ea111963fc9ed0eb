//! CSGC's device side (csgc.txt §3.1-3.3): the sFTL personality's executor
//! of offloaded migrations, on a computational SSD.
//!
//! sFTL itself is the block-mapped main area of `coupled.rs` with
//! `MainArea::Sftl`: the OPU partition (F2FS's main area) is mapped
//! directly, a section to one superblock, with no device GC ("the offloaded
//! FS-level GC replaces the original FTL-level GC"); the IPU partition (the
//! metadata area) keeps the page mapping and its own GC. This file adds the
//! migrate command and the controller's compute:
//!
//! * an NVMe core that takes each command (`nvme_cmd_ns`), and
//!   `executor_cores` cores that run requests, one each at a time, for
//!   `exec_req_ns` plus `exec_block_ns` per valid block (bitmap scan and the
//!   index update in device DRAM), §4: "one controller core to handle NVMe
//!   requests, another for flash emulation and internal data transfer
//!   scheduling, and the remaining two for CSGC executor";
//! * asynchronous transfers (§3.1): block i's flash read is submitted as
//!   soon as the executor has prepared it, while it prepares block i+1, so
//!   a request ends at the later of its compute chain and its flash chain;
//! * the coalescing scheduler (§3.1) on the flash-scheduling core: reads of
//!   consecutive source blocks within a window of `coalesce_window` queued
//!   tasks are merged into one submitted operation, which pays
//!   `flash_op_ns` once. Programs are submitted per program unit.
//!
//! Functionally each valid block's content is copied from its slot to the
//! slot of its destination LBA (the OPU partition's direct mapping); the
//! source keeps its data until the host resets its section, and the
//! completion returns each reverse-index entry with its new LBA. Simplifications, stated: the paper gives no executor
//! costs, window size or wire format (see `CsdConfig` and `nvme::migrate`);
//! merging saves scheduler time only, since consecutive blocks of a section
//! stripe over different dies and are read in parallel anyway.

use super::Ssd;
use crate::ftl::config::ConfigError;
use crate::nand::{Lpn, SLOT_BYTES};
use crate::nvme::{MigrateRequest, MigrateResult, Status, SEGMENT_BLOCKS};
use crate::sim::{SimDuration, SimTime};
use serde::Serialize;

/// The computational SSD's controller (csgc.txt §4: a quad-core Cortex-A53).
/// Every cost is an assumption: the paper gives none.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CsdConfig {
    /// Cores running the executor (paper: 2).
    pub executor_cores: u32,
    /// NVMe core time to take one command, ns.
    pub nvme_cmd_ns: u64,
    /// Executor time per request (parse, bitmap scan setup), ns.
    pub exec_req_ns: u64,
    /// Executor time per valid block (locate, submit, index update), ns.
    pub exec_block_ns: u64,
    /// Flash-scheduling core time per submitted flash operation, ns.
    pub flash_op_ns: u64,
    /// Coalescing window: queued transfer tasks merged into one operation (1 = none).
    pub coalesce_window: u32,
}

impl Default for CsdConfig {
    fn default() -> Self {
        CsdConfig { executor_cores: 2, nvme_cmd_ns: 2_000, exec_req_ns: 10_000, exec_block_ns: 1_000, flash_op_ns: 1_000, coalesce_window: 8 }
    }
}

impl CsdConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let e = |field: &str, v: u64, reason: &str| ConfigError { field: field.into(), value: v.to_string(), reason: reason.into() };
        if self.executor_cores == 0 || self.executor_cores > 64 {
            return Err(e("csd.executor_cores", self.executor_cores as u64, "must be 1..=64"));
        }
        if self.coalesce_window == 0 || self.coalesce_window > SEGMENT_BLOCKS {
            return Err(e("csd.coalesce_window", self.coalesce_window as u64, "must be 1..=512 (a segment's blocks)"));
        }
        Ok(())
    }
}

/// What the executor did (counters; `since` subtracts them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CsdStats {
    pub requests: u64,
    pub blocks_migrated: u64,
    /// Flash read operations submitted (after coalescing), and the block reads they carried.
    pub read_ops: u64,
    pub block_reads: u64,
    /// Index blocks read from flash because the reverse index was not piggybacked.
    pub index_block_reads: u64,
    /// Program units the migrations completed.
    pub program_ops: u64,
    /// Descriptor bytes over PCIe: requests and completions.
    pub pcie_bytes: u64,
    /// Sum over requests of arrival to completion, ns.
    pub request_ns: u64,
    /// Executor-core busy time, ns.
    pub executor_busy_ns: u64,
}

impl CsdStats {
    pub fn since(&self, e: &CsdStats) -> CsdStats {
        CsdStats {
            requests: self.requests - e.requests,
            blocks_migrated: self.blocks_migrated - e.blocks_migrated,
            read_ops: self.read_ops - e.read_ops,
            block_reads: self.block_reads - e.block_reads,
            index_block_reads: self.index_block_reads - e.index_block_reads,
            program_ops: self.program_ops - e.program_ops,
            pcie_bytes: self.pcie_bytes - e.pcie_bytes,
            request_ns: self.request_ns - e.request_ns,
            executor_busy_ns: self.executor_busy_ns - e.executor_busy_ns,
        }
    }
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(super) struct Executor {
    cfg: CsdConfig,
    nvme_free: SimTime,
    cores: Vec<SimTime>,
    sched_free: SimTime,
    stats: CsdStats,
}

impl Executor {
    pub(super) fn new(cfg: CsdConfig) -> Self {
        Executor { nvme_free: SimTime::ZERO, cores: vec![SimTime::ZERO; cfg.executor_cores as usize], sched_free: SimTime::ZERO, stats: CsdStats::default(), cfg }
    }
}

impl Ssd {
    /// Give this sFTL device its CSGC executor.
    pub fn with_executor(mut self, cfg: CsdConfig) -> Result<Ssd, ConfigError> {
        cfg.validate()?;
        if !self.coupled.as_deref().is_some_and(|c| c.cfg.personality == super::MainArea::Sftl) {
            return Err(ConfigError { field: "csd".into(), value: "(set)".into(), reason: "only an sFTL device runs the CSGC executor".into() });
        }
        self.coupled.as_deref_mut().expect("sftl").exec = Some(Box::new(Executor::new(cfg)));
        Ok(self)
    }

    pub fn csd_stats(&self) -> Option<CsdStats> {
        self.coupled.as_deref().and_then(|c| c.exec.as_ref()).map(|e| e.stats.clone())
    }

    /// Check a request against the device's state; the host's view must
    /// agree with the device's on every block it names.
    fn check_migrate(&self, req: &MigrateRequest) -> Result<(), Status> {
        let c = self.c();
        let n = req.valid_count() as usize;
        let dest: u64 = req.dest.iter().map(|&(_, k)| k as u64).sum();
        if req.rev_index.len() != n || dest != n as u64 || n == 0 {
            return Err(Status::InvalidField);
        }
        let main = c.cfg.main_start;
        if req.segment.0 < main || !(req.segment.0 - main).is_multiple_of(SEGMENT_BLOCKS as u64) {
            return Err(Status::InvalidField);
        }
        if req.dest.iter().any(|&(s, k)| s.0 < main || s.0 + k as u64 > self.capacity) {
            return Err(Status::LbaOutOfRange);
        }
        for k in req.valid_offsets() {
            if self.resolve_main(Lpn(req.segment.0 + k as u64)).0.is_none() {
                return Err(Status::InvalidField);
            }
        }
        Ok(())
    }

    /// Execute one migrate arriving at `at` (csgc.txt §3.1-3.2); see the module doc.
    pub fn migrate(&mut self, at: SimTime, req: &MigrateRequest) -> Result<(SimTime, MigrateResult), Status> {
        if self.coupled.as_deref().is_none_or(|c| c.exec.is_none()) {
            return Err(Status::InvalidOpcode);
        }
        self.check_migrate(req)?;
        let at = self.fw_start(at);
        let arrive = at + SimDuration(self.timing.pcie_xfer_ns(req.request_bytes()));
        let mut exec = self.cm().exec.take().expect("checked");
        let cfg = exec.cfg.clone();
        exec.nvme_free = exec.nvme_free.max(arrive) + SimDuration(cfg.nvme_cmd_ns);
        let core = (0..exec.cores.len()).min_by_key(|&i| (exec.cores[i], i)).expect("at least one core");
        let start = exec.cores[core].max(exec.nvme_free);
        let mut cpu = start + SimDuration(cfg.exec_req_ns);
        let mut flash_done = start;
        // Without piggybacking the executor reads the index blocks itself.
        for &b in &req.index_blocks {
            if let Some(ppn) = self.lookup_for_read(b) {
                let die = self.layout.die_of(ppn);
                let t = self.timelines.read(&self.timing, die, cpu, SLOT_BYTES);
                flash_done = flash_done.max(t);
                exec.stats.index_block_reads += 1;
            }
        }
        let programs_before = self.stats.nand_program_units;
        let offsets: Vec<u32> = req.valid_offsets().collect();
        let dests: Vec<Lpn> = req.destinations().collect();
        let mut updates = Vec::with_capacity(offsets.len());
        // Pass 1: the reads, submitted as the executor prepares each block
        // (they queue per die ahead of this request's programs, as the
        // FTL's own GC reads a victim before copying it).
        let mut read = Vec::with_capacity(offsets.len());
        let mut i = 0;
        while i < offsets.len() {
            // One submitted operation: consecutive source blocks queued
            // within the window (the executor prepares them one by one).
            let mut j = i + 1;
            while j < offsets.len() && j - i < cfg.coalesce_window as usize && offsets[j] == offsets[j - 1] + 1 {
                j += 1;
            }
            cpu += SimDuration(cfg.exec_block_ns * (j - i) as u64);
            exec.sched_free = exec.sched_free.max(cpu) + SimDuration(cfg.flash_op_ns);
            exec.stats.read_ops += 1;
            exec.stats.block_reads += (j - i) as u64;
            for &off in &offsets[i..j] {
                let src = Lpn(req.segment.0 + off as u64);
                let ppn = self.resolve_main(src).0.expect("checked");
                let die = self.layout.die_of(ppn);
                read.push((ppn, self.timelines.read(&self.timing, die, exec.sched_free, SLOT_BYTES)));
            }
            i = j;
        }
        // Pass 2: each block into its destination slot once read, through
        // the write buffer and unit programming as host data.
        // The sources stay as they are: the OPU partition maps each LBA to
        // its slot directly, so a source keeps its data until the host
        // resets its section, after a checkpoint has made the new addresses
        // durable. A power cut before that recovers the old copies.
        for (k, &(ppn, read_done)) in read.iter().enumerate() {
            let fp = self.store.read(ppn).expect("valid slot holds data");
            self.collect_while_low(read_done);
            let admitted = self.buffer.admit(read_done);
            self.place_main(dests[k], fp, admitted, req.stream);
            self.stats.offload_write_slots += 1;
            flash_done = flash_done.max(admitted);
            updates.push((req.rev_index[k], dests[k]));
        }
        let programs = self.stats.nand_program_units - programs_before;
        exec.sched_free += SimDuration(cfg.flash_op_ns * programs);
        exec.stats.program_ops += programs;
        exec.stats.executor_busy_ns += (cpu - start).ns();
        exec.cores[core] = cpu;
        let result = MigrateResult { updates };
        let done = cpu.max(flash_done) + SimDuration(self.timing.pcie_xfer_ns(result.completion_bytes()));
        exec.stats.requests += 1;
        exec.stats.blocks_migrated += offsets.len() as u64;
        exec.stats.pcie_bytes += req.request_bytes() + result.completion_bytes();
        exec.stats.request_ns += done.since(at).ns();
        self.cm().exec = Some(exec);
        let done = self.fw_end(done);
        Ok((done, result))
    }
}
