//! A conventional SSD: NAND + page-mapping FTL + write buffer + device GC,
//! driven by NVMe commands.
//!
//! Timing follows the reservation model of NVMeVirt/FEMU (see
//! `nand::Timelines`): executing a command reserves die and channel time and
//! yields its completion instant. Device GC runs synchronously whenever free
//! superblocks fall below the threshold before a host block is placed
//! (NVMeVirt's foreground GC); its reads, programs and erases reserve the
//! same dies the host uses, so host I/O queues behind it.
//!
//! Invariants (checked by `mapping_checker`): every mapped logical page has
//! exactly one physical owner and `p2l` agrees; per-superblock valid counts
//! equal the owners they hold; a slot is programmed at most once per erase.
//!
//! Simplifications, stated: a read of data whose program was already issued
//! goes to NAND (waiting for the program) rather than hitting the buffer;
//! GC collects a whole victim at once and pads its last partial unit so the
//! victim's erase never precedes the durability of the copies.

use super::activity::ActivityLog;
use super::block_pool::BlockPool;
use super::config::{ConfigError, SsdConfig};
use super::mapping::{AnyMapping, Mapping};
use super::interval_mapping::{IntervalConfig, IntervalMapping};
use super::page_mapping::PageMapping;
use super::stats::FtlStats;
use super::victim::{self, VictimPolicy};
use super::write_buffer::WriteBuffer;
use crate::nand::{FlashStore, Geometry, Layout, Lpn, Ppn, SuperblockId, Timelines, Timing, SLOT_BYTES};
use crate::nvme::{Command, Completion, CompletionFlags, Opcode, QueuePair, Status};
use crate::oracle::Fingerprint;
use crate::sim::{SimDuration, SimTime};

mod coupled;
mod remap;
mod sftl;
pub use coupled::{CoupledConfig, CoupledStats, MainArea, MappingMemory};
pub use sftl::{CsdConfig, CsdStats};

const NO_OWNER: u32 = u32::MAX;

/// An append point: the open superblock a log writes into.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct LogHead {
    sb: Option<SuperblockId>,
    /// Next slot offset inside `sb`.
    next: u32,
    /// Latest instant any data of the filling unit is available.
    unit_ready: SimTime,
    /// Host-buffer slots held by the filling unit (released at program end).
    buffered_slots: u32,
    is_gc: bool,
}

impl LogHead {
    fn new(is_gc: bool) -> Self {
        LogHead { sb: None, next: 0, unit_ready: SimTime::ZERO, buffered_slots: 0, is_gc }
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Ssd {
    geo: Geometry,
    layout: Layout,
    timing: Timing,
    config: SsdConfig,
    timelines: Timelines,
    store: FlashStore,
    mapping: AnyMapping,
    /// Reverse map: owner lpn of each physical slot, NO_OWNER if invalid.
    p2l: Vec<u32>,
    pool: BlockPool,
    /// Host heads 0..streams, then the GC head.
    heads: Vec<LogHead>,
    buffer: WriteBuffer,
    #[serde(with = "victim::by_name_serde")]
    victim: Box<dyn VictimPolicy>,
    stats: FtlStats,
    spu: u32,
    sps: u32,
    /// Reused list of (old slot, owner, data-ready instant) for one GC
    /// victim: scratch, not state, so aged states leave it out.
    #[serde(skip)]
    gc_scratch: Vec<(Ppn, Lpn, SimTime)>,
    activity: Option<ActivityLog>,
    /// Exported logical pages (the filesystem partition in coupled mode).
    capacity: u64,
    /// D2FS block-associative mapping and Coupled GC, when enabled.
    coupled: Option<Box<coupled::Coupled>>,
    /// The FTL is busy reorganising its mapping (Interval Mapping compaction)
    /// until then; commands wait (d2fs.txt §8.3 on IPLFS).
    fw_busy_until: SimTime,
    /// The command-processing core's reservations (`Timing::cmd_ns`).
    cmd_core: crate::sim::Calendar,
    /// Mapping memory sampled once per simulated second (Interval Mapping).
    memory_series: Vec<(SimTime, u64)>,
    interval: bool,
}

impl Ssd {
    pub fn new(config: SsdConfig) -> Result<Ssd, ConfigError> {
        config.validate()?;
        let geo = config.geometry.clone();
        let mut heads: Vec<LogHead> = (0..config.ftl.streams).map(|_| LogHead::new(false)).collect();
        heads.push(LogHead::new(true));
        Ok(Ssd {
            timing: config.timing.clone(),
            timelines: Timelines::new(&geo),
            store: FlashStore::new(&geo),
            mapping: match config.ftl.mapping.as_str() {
                "interval" | "interval-no-compaction" => AnyMapping::Interval(Box::new(IntervalMapping::new(
                    config.logical_pages,
                    IntervalConfig { compaction: config.ftl.mapping == "interval", segment_blocks: config.ftl.map_segment_blocks },
                ))),
                _ => AnyMapping::Page(PageMapping::new(config.logical_pages)),
            },
            p2l: vec![NO_OWNER; geo.total_slots() as usize],
            pool: BlockPool::new(geo.superblocks(), geo.slots_per_superblock()),
            heads,
            buffer: WriteBuffer::new(config.ftl.write_buffer_slots),
            victim: victim::by_name(&config.ftl.victim_policy).expect("validated"),
            stats: FtlStats::default(),
            spu: geo.slots_per_unit(),
            layout: Layout::new(&geo),
            sps: geo.slots_per_superblock(),
            gc_scratch: Vec::new(),
            activity: None,
            capacity: config.logical_pages,
            coupled: None,
            fw_busy_until: SimTime::ZERO,
            cmd_core: crate::sim::Calendar::default(),
            memory_series: Vec::new(),
            interval: config.ftl.mapping.starts_with("interval"),
            geo,
            config,
        })
    }

    /// A D2FS device (d2fs.txt §4): the filesystem partition of
    /// `cc.partition_blocks` LBAs over this device's flash, metadata area
    /// page-mapped, main area block-associative with Coupled GC.
    pub fn new_coupled(config: SsdConfig, cc: CoupledConfig) -> Result<Ssd, ConfigError> {
        let mut ssd = Ssd::new(config)?;
        if cc.main_start >= ssd.config.logical_pages {
            return Err(ConfigError {
                field: "d2fs metadata area".into(),
                value: format!("{} blocks", cc.main_start),
                reason: format!("exceeds the device's {} logical pages", ssd.config.logical_pages),
            });
        }
        ssd.coupled = Some(Box::new(coupled::Coupled::new(cc.clone(), ssd.geo.superblocks(), ssd.sps)?));
        ssd.mapping = AnyMapping::Page(PageMapping::new(cc.main_start));
        ssd.capacity = cc.partition_blocks;
        // Heads: metadata host + metadata GC, CGC destinations (data, node); host section heads follow.
        ssd.heads = vec![LogHead::new(false), LogHead::new(true), LogHead::new(true), LogHead::new(true)];
        Ok(ssd)
    }

    pub fn config(&self) -> &SsdConfig {
        &self.config
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }
    pub fn logical_pages(&self) -> u64 {
        self.capacity
    }
    pub fn stats(&self) -> FtlStats {
        let mut s = self.stats.clone();
        s.buffer_full_waits = self.buffer.full_waits_count();
        s
    }
    pub fn mapping_memory_bytes(&self) -> u64 {
        self.mapping_memory().total()
    }
    pub fn free_superblocks(&self) -> usize {
        self.pool.free_count()
    }
    pub fn erase_counts(&self) -> &[u32] {
        self.store.erase_counts()
    }
    pub fn die_busy_total(&self) -> SimDuration {
        self.timelines.die_busy_total()
    }

    /// Start (or restart) logging NAND activity in buckets of `interval`.
    pub fn start_activity_log(&mut self, start: SimTime, interval: SimDuration) {
        self.activity = Some(ActivityLog::new(start, interval));
    }

    pub fn take_activity_log(&mut self) -> Option<ActivityLog> {
        self.activity.take()
    }

    /// When the FTL can start on a command arriving at `at`: after any
    /// table upkeep, and after its turn on the command-processing core
    /// (`Timing::cmd_ns`).
    fn fw_start(&mut self, at: SimTime) -> SimTime {
        let at = at.max(self.fw_busy_until);
        if self.timing.cmd_ns == 0 {
            return at;
        }
        self.cmd_core.reserve(at, SimDuration(self.timing.cmd_ns))
    }

    /// A command finished its work at `done`: the mapping may do its upkeep
    /// (as the IPLFS artifact's conv_ftl.c checks `COMPACTION_TIME_INTERVAL`
    /// on each command); add any table reorganisation (the FTL serves
    /// nothing meanwhile). Once a second the memory is sampled.
    fn fw_end(&mut self, done: SimTime) -> SimTime {
        if self.interval {
            self.mapping.maintain(done);
        }
        let second = self.interval && self.memory_series.last().is_none_or(|&(t, _)| done.saturating_since(t).ns() >= 1_000_000_000);
        let w = self.mapping.take_pending_work_ns();
        let done = if w > 0 {
            self.stats.mapping_stall_ns += w;
            let end = done.max(self.fw_busy_until) + SimDuration(w);
            self.fw_busy_until = end;
            end
        } else {
            done
        };
        if second {
            self.memory_series.push((done, self.mapping.memory_bytes()));
        }
        done
    }

    /// Mapping memory over time (Interval Mapping only; empty otherwise).
    pub fn mapping_memory_series(&self) -> &[(SimTime, u64)] {
        &self.memory_series
    }

    /// Drain the submission queue, posting each completion.
    pub fn service(&mut self, qp: &mut QueuePair, data: &mut Vec<Option<Fingerprint>>) {
        while let Some((at, cmd)) = qp.fetch() {
            let c = self.execute(at, &cmd, data);
            qp.post(c);
        }
    }

    /// Execute one command arriving at `at`. For reads, `data` receives one
    /// entry per block (None = unmapped).
    pub fn execute(&mut self, at: SimTime, cmd: &Command, data: &mut Vec<Option<Fingerprint>>) -> Completion {
        data.clear();
        let mut assigned = None;
        let at = self.fw_start(at);
        let (status, done) = match cmd.op {
            Opcode::Read { slba, nlb } => match self.check_range(slba, nlb) {
                Ok(()) => (Status::Success, self.read(at, slba, nlb, data)),
                Err(s) => (s, at),
            },
            Opcode::Write { slba, nlb, stream, data: tag } => match self.check_range(slba, nlb).and_then(|_| self.zone_write_check(slba, nlb)) {
                Ok(()) => (Status::Success, self.write_inner(at, slba, nlb, stream, |i| tag.block(i))),
                Err(s) => (s, at),
            },
            Opcode::ZoneAppend { zslba, nlb, stream, data: tag } => match self.zone_append_target(zslba, nlb) {
                Ok(lba) => {
                    assigned = Some(lba);
                    (Status::Success, self.write_inner(at, lba, nlb, stream, |i| tag.block(i)))
                }
                Err(s) => (s, at),
            },
            Opcode::ZoneReset { zslba } => match self.reset_zone(at, zslba) {
                Ok(t) => (Status::Success, t),
                Err(s) => (s, at),
            },
            Opcode::Discard { slba, nlb } => match self.check_range(slba, nlb) {
                Ok(()) => (Status::Success, self.discard(at, slba, nlb)),
                Err(s) => (s, at),
            },
            Opcode::Flush => (Status::Success, self.flush_inner(at)),
        };
        let done = self.fw_end(done);
        self.background_gc(at);
        let upcall = self.note_completion(done);
        Completion { id: cmd.id, status, flags: CompletionFlags(if upcall { CompletionFlags::UPCALL } else { 0 }), at: done, assigned }
    }

    fn check_range(&self, slba: Lpn, nlb: u32) -> Result<(), Status> {
        if nlb == 0 {
            return Err(Status::InvalidField);
        }
        match slba.0.checked_add(nlb as u64) {
            Some(end) if end <= self.capacity => Ok(()),
            _ => Err(Status::LbaOutOfRange),
        }
    }

    /// Hint for an upcoming discard of `lpn`: the entry it looks up first
    /// (the mapping's, or for a block-mapped LBA the reverse map's under its
    /// section's block, see `prefetch_main`).
    #[inline]
    pub fn prefetch_discard(&self, lpn: Lpn) {
        if lpn.0 >= self.capacity {
            return;
        }
        if self.coupled_main(lpn) {
            self.prefetch_main(lpn);
        } else {
            self.mapping.prefetch(lpn);
        }
    }

    /// Two-stage hint for an upcoming write to `lpn`: stage 0 prefetches its
    /// mapping entry; stage 1 (issued later, when that entry is cached)
    /// prefetches the reverse-map entry of the slot it will invalidate.
    #[inline]
    pub fn prefetch_write(&self, lpn: Lpn, stage: u8) {
        if lpn.0 >= self.capacity || self.coupled_main(lpn) {
            return;
        }
        if stage == 0 {
            self.mapping.prefetch(lpn);
        } else if let Some(old) = self.mapping.get(lpn) {
            crate::prefetch::prefetch(&self.p2l, old.0 as usize);
        }
    }

    /// Read `nlb` blocks (caller checks the range); see `execute` for NVMe commands.
    pub fn read_blocks(&mut self, at: SimTime, slba: Lpn, nlb: u32, data: &mut Vec<Option<Fingerprint>>) -> SimTime {
        let at = self.fw_start(at);
        let done = self.read(at, slba, nlb, data);
        let done = self.fw_end(done);
        self.background_gc(at);
        self.note_completion(done);
        done
    }

    /// Deallocate `nlb` blocks (caller checks the range).
    pub fn discard_blocks(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        let at = self.fw_start(at);
        let done = self.discard(at, slba, nlb);
        let done = self.fw_end(done);
        self.background_gc(at);
        self.note_completion(done);
        done
    }

    // ---- read ----------------------------------------------------------

    fn read(&mut self, at: SimTime, slba: Lpn, nlb: u32, data: &mut Vec<Option<Fingerprint>>) -> SimTime {
        let start = at + SimDuration(self.timing.fw_read_ns);
        let mut done = start;
        // Coalesce consecutive blocks that sit in the same program unit into one page read.
        let mut pending: Option<(u64, u32)> = None; // (unit, slot count)
        for i in 0..nlb as u64 {
            let lpn = Lpn(slba.0 + i);
            let ppn = self.lookup_for_read(lpn);
            data.push(ppn.map(|p| self.store.read(p).expect("mapped slot holds data")));
            let Some(ppn) = ppn else { continue };
            self.stats.host_read_slots += 1;
            if self.in_filling_unit(ppn) {
                self.stats.buffer_read_hits += 1;
                continue;
            }
            let unit = self.layout.unit_of(ppn);
            match pending {
                Some((u, ref mut n)) if u == unit => *n += 1,
                _ => {
                    if let Some((u, n)) = pending.take() {
                        done = done.max(self.read_unit(u, n, start));
                    }
                    pending = Some((unit, 1));
                }
            }
        }
        if let Some((u, n)) = pending {
            done = done.max(self.read_unit(u, n, start));
        }
        done + SimDuration(self.timing.pcie_xfer_ns(nlb as u64 * SLOT_BYTES))
    }

    fn read_unit(&mut self, unit: u64, slots: u32, at: SimTime) -> SimTime {
        self.stats.nand_read_units_host += 1;
        let die = self.layout.die_of(self.layout.unit_start(unit));
        self.timelines.read(&self.timing, die, at, slots as u64 * SLOT_BYTES)
    }

    /// Whether `ppn` belongs to a unit that is still filling in the buffer.
    fn in_filling_unit(&self, ppn: Ppn) -> bool {
        self.heads.iter().any(|h| match h.sb {
            Some(sb) => {
                let start = self.layout.superblock_start(sb).0;
                let unit_start = start + (h.next as u64 - self.layout.slot_in_unit(h.next as u64));
                ppn.0 >= unit_start && ppn.0 < start + h.next as u64
            }
            None => false,
        })
    }

    // ---- write ---------------------------------------------------------

    /// Place `nlb` host blocks starting at `slba`; `content(i)` is block i's data.
    pub fn write(
        &mut self,
        at: SimTime,
        slba: Lpn,
        nlb: u32,
        stream: u8,
        content: impl Fn(u64) -> Fingerprint,
    ) -> SimTime {
        let at = self.fw_start(at);
        let done = self.write_inner(at, slba, nlb, stream, content);
        let done = self.fw_end(done);
        self.background_gc(at);
        self.note_completion(done);
        done
    }

    fn write_inner(
        &mut self,
        at: SimTime,
        slba: Lpn,
        nlb: u32,
        stream: u8,
        content: impl Fn(u64) -> Fingerprint,
    ) -> SimTime {
        let arrive = at
            + SimDuration(self.timing.fw_write_ns)
            + SimDuration(self.timing.pcie_xfer_ns(nlb as u64 * SLOT_BYTES));
        let head = stream as usize % self.config.ftl.streams as usize;
        let mut admitted = arrive;
        for i in 0..nlb as u64 {
            self.collect_while_low(arrive);
            admitted = self.buffer.admit(arrive);
            let lpn = Lpn(slba.0 + i);
            self.stats.host_write_slots += 1;
            if self.coupled_main(lpn) {
                self.place_main(lpn, content(i), admitted, stream);
                continue;
            }
            let head = if self.coupled.is_some() { coupled::META_HEAD } else { head };
            self.place(head, lpn, content(i), admitted, arrive);
            self.heads[head].buffered_slots += 1;
            self.finish_slot(head);
        }
        admitted + SimDuration(self.timing.fw_write_per_4k_ns * nlb as u64)
    }

    /// Allocate a slot in log `head`, store `fp` there and map `lpn` to it.
    /// `ready`: when the data is available to program; `mtime`: the data's
    /// modification time, kept across GC copies for cost-benefit age.
    fn place(&mut self, head: usize, lpn: Lpn, fp: Fingerprint, ready: SimTime, mtime: SimTime) -> Ppn {
        let ppn = self.alloc(head, ready);
        self.store.program(ppn, fp);
        if let Some(old) = self.mapping.set(lpn, ppn) {
            self.invalidate(old, lpn);
        }
        self.p2l[ppn.0 as usize] = lpn.0 as u32;
        self.pool.add_valid(self.layout.superblock_of(ppn), mtime);
        ppn
    }

    fn invalidate(&mut self, old: Ppn, lpn: Lpn) {
        let owner = std::mem::replace(&mut self.p2l[old.0 as usize], NO_OWNER);
        assert_eq!(owner, lpn.0 as u32, "{old} owned by lpn {owner}, but mapping said {lpn}");
        self.pool.remove_valid(self.layout.superblock_of(old));
    }

    fn alloc(&mut self, head: usize, ready: SimTime) -> Ppn {
        let ppn = self.next_slot(head);
        let h = &mut self.heads[head];
        h.next += 1;
        h.unit_ready = h.unit_ready.max(ready);
        ppn
    }

    /// Allocate up to `want` (at least 1) consecutive slots in log `head`,
    /// no further than the end of its filling program unit: the first slot
    /// and how many. The caller raises `unit_ready` to when the run's data
    /// is available.
    fn alloc_run(&mut self, head: usize, want: usize) -> (Ppn, u32) {
        let ppn = self.next_slot(head);
        let h = &mut self.heads[head];
        let n = (self.spu - self.layout.slot_in_unit(h.next as u64) as u32).min(want as u32);
        h.next += n;
        (ppn, n)
    }

    /// The slot log `head` fills next, opening a fresh superblock when the
    /// head's is full.
    fn next_slot(&mut self, head: usize) -> Ppn {
        let h = &mut self.heads[head];
        if h.sb.is_none() || h.next == self.sps {
            if let Some(sb) = h.sb {
                self.pool.close(sb);
            }
            let sb = self.pool.open().unwrap_or_else(|| {
                panic!("no free superblock for log head {head} (gc head: {}); GC reserve exhausted", h.is_gc)
            });
            h.sb = Some(sb);
            h.next = 0;
        }
        Ppn(self.layout.superblock_start(h.sb.expect("opened")).0 + h.next as u64)
    }

    /// After a slot is filled: program its unit if the unit is now complete,
    /// returning when that program finishes.
    fn finish_slot(&mut self, head: usize) -> Option<SimTime> {
        (self.layout.slot_in_unit(self.heads[head].next as u64) == 0).then(|| self.program_unit(head))
    }

    /// Program the filling unit of `head` (which ends at `next`).
    fn program_unit(&mut self, head: usize) -> SimTime {
        let h = &mut self.heads[head];
        let sb = h.sb.expect("programming a unit of an unopened head");
        assert!(self.layout.slot_in_unit(h.next as u64) == 0 && h.next > 0, "unit not complete");
        let first = Ppn(self.layout.superblock_start(sb).0 + (h.next - self.spu) as u64);
        let ready = h.unit_ready;
        let buffered = std::mem::take(&mut h.buffered_slots);
        h.unit_ready = SimTime::ZERO;
        let die = self.layout.die_of(first);
        let done = self.timelines.program(&self.timing, die, ready, self.spu as u64 * SLOT_BYTES);
        self.stats.nand_program_units += 1;
        if let Some(a) = &mut self.activity {
            a.record_program(done, self.spu as u64);
        }
        if buffered > 0 {
            self.buffer.release_at(done, buffered);
        }
        done
    }

    /// Fill the rest of `head`'s partial unit with padding and program it.
    fn pad_and_program(&mut self, head: usize) -> Option<SimTime> {
        let h = &self.heads[head];
        let sb = h.sb?;
        if self.layout.slot_in_unit(h.next as u64) == 0 {
            return None;
        }
        let start = self.layout.superblock_start(sb).0;
        while self.layout.slot_in_unit(self.heads[head].next as u64) != 0 {
            let n = self.heads[head].next;
            self.store.program_padding(Ppn(start + n as u64));
            self.heads[head].next += 1;
            self.stats.padding_slots += 1;
        }
        Some(self.program_unit(head))
    }

    // ---- discard / flush -------------------------------------------------

    fn discard(&mut self, at: SimTime, slba: Lpn, nlb: u32) -> SimTime {
        for i in 0..nlb as u64 {
            let lpn = Lpn(slba.0 + i);
            if self.coupled_main(lpn) {
                self.discard_main(lpn);
            } else if let Some(old) = self.mapping.unset(lpn) {
                self.invalidate(old, lpn);
                self.stats.host_trim_slots += 1;
            }
        }
        at + SimDuration(self.timing.fw_write_ns)
    }

    /// Make all buffered host data durable: program partial units with padding
    /// and complete when every issued program has finished.
    pub fn flush(&mut self, at: SimTime) -> SimTime {
        let at = if self.timing.cmd_ns == 0 { at } else { self.fw_start(at) };
        let done = self.flush_inner(at);
        self.background_gc(at);
        self.note_completion(done);
        done
    }

    fn flush_inner(&mut self, at: SimTime) -> SimTime {
        self.stats.flush_count += 1;
        let start = at + SimDuration(self.timing.fw_write_ns);
        let mut done = start;
        // Block-mapped host sections are never padded (see coupled.rs).
        let host_heads = if self.coupled.is_some() { 1 } else { self.config.ftl.streams as usize };
        for head in 0..host_heads {
            if let Some(t) = self.pad_and_program(head) {
                done = done.max(t);
            }
        }
        done.max(self.buffer.drained_at())
    }

    // ---- garbage collection ------------------------------------------------

    fn collect_while_low(&mut self, now: SimTime) {
        while self.pool.free_count() < self.config.ftl.gc_threshold_superblocks as usize {
            // A ZNS or sFTL device collects only its page-mapped (metadata)
            // area; the host frees the main area's sections.
            if self.host_freed_main() && self.zoned_victim().is_none() {
                break;
            }
            self.collect_one(now);
        }
    }

    /// FEMU's background GC (hw/femu/bbssd/ftl.c `ftl_thread`: after each
    /// command, `if (should_gc(ssd)) do_gc(ssd, false)`): one victim when at
    /// most `gc_background_superblocks` superblocks are free, and only if
    /// the best one has at least 1/8 of its slots invalid
    /// (`select_victim_line` unforced: `ipc < pgs_per_line / 8` returns
    /// none). Its reads, copies and erase take die time from `at`, the
    /// command's arrival, as FEMU schedules them at the thread's clock; the
    /// command itself does not wait for them. Page-mapped devices only.
    fn background_gc(&mut self, at: SimTime) {
        let n = self.config.ftl.gc_background_superblocks as usize;
        if n == 0 || self.pool.free_count() > n || self.host_freed_main() || self.coupled.is_some() {
            return;
        }
        let Some(victim) = self.victim.select(&self.pool, at) else { return };
        if self.sps - self.pool.info(victim).valid_slots < self.sps / 8 {
            return;
        }
        self.stats.gc_background_count += 1;
        self.collect(victim, at);
    }

    /// Collect one victim superblock: copy its valid slots to the GC head,
    /// then erase it. Returns when its last erase completes.
    fn collect_one(&mut self, now: SimTime) -> SimTime {
        let victim = if self.host_freed_main() { self.zoned_victim() } else { self.victim.select(&self.pool, now) };
        let victim = victim
            .unwrap_or_else(|| panic!("GC needed but no full superblock exists (free {})", self.pool.free_count()));
        self.collect(victim, now)
    }

    /// Collect `victim` (see `collect_one`).
    fn collect(&mut self, victim: SuperblockId, now: SimTime) -> SimTime {
        let valid = self.pool.info(victim).valid_slots;
        assert!(
            valid < self.sps,
            "GC victim {victim} is fully valid: no space can be reclaimed (logical space exceeds physical minus reserve)"
        );
        let start = self.layout.superblock_start(victim).0;
        let mut copies_done = now;
        // Fig. 16's clock starts once a die is free for the victim: time
        // queued behind programs already scheduled is the host's, not GC's.
        let started = (0..self.geo.dies()).map(|d| self.timelines.die_free_at(crate::nand::DieId(d))).min().unwrap_or(now).max(now);
        let mut reads_done = started;
        // Pass 1 (sequential over the victim): reserve the page reads and list
        // the live slots with the instant their data is in the controller.
        // Without a branch per slot: each slot is written at `n_live`, which
        // moves on past owned slots only (a victim is mostly live, so a
        // branch would mispredict at every invalid slot).
        let mut live = std::mem::take(&mut self.gc_scratch);
        live.resize(self.sps as usize, (Ppn(0), Lpn(0), SimTime::ZERO));
        let mut n_live = 0;
        for unit in 0..self.geo.units_per_superblock() {
            let first = start + unit as u64 * self.spu as u64;
            let count = n_live;
            let owners = &self.p2l[first as usize..(first + self.spu as u64) as usize];
            for (s, &owner) in (first..).zip(owners) {
                live[n_live] = (Ppn(s), Lpn(owner as u64), SimTime::ZERO);
                n_live += (owner != NO_OWNER) as usize;
            }
            let n = (n_live - count) as u64;
            if n > 0 {
                let die = self.layout.die_of(Ppn(first));
                let read_done = self.timelines.read(&self.timing, die, now, n * SLOT_BYTES);
                reads_done = reads_done.max(read_done);
                self.stats.nand_read_units_gc += 1;
                for e in &mut live[count..n_live] {
                    e.2 = read_done;
                }
            }
        }
        let main = self.coupled.as_deref().is_some_and(|c| c.sb_kind[victim.0 as usize] != coupled::BlockKind::Meta);
        if main {
            copies_done = copies_done.max(self.cgc_copy(victim, &live[..n_live], now));
        } else {
            copies_done = copies_done.max(self.page_copy(victim, &live[..n_live], now));
            if let Some(c) = self.coupled.as_deref_mut() {
                c.stats.meta_gc_victims += 1;
            }
        }
        self.gc_scratch = live;
        assert_eq!(self.pool.info(victim).valid_slots, 0, "victim {victim} still valid after migration");
        let mut erased = copies_done;
        for d in 0..self.geo.dies() {
            let die = crate::nand::DieId(d);
            erased = erased.max(self.timelines.erase(&self.timing, die, copies_done));
        }
        self.store.erase_superblock(victim);
        self.pool.release(victim);
        if self.coupled.is_some() {
            self.cgc_after_erase(victim);
        }
        self.stats.gc_count += 1;
        self.stats.superblocks_erased += 1;
        if let Some(a) = &mut self.activity {
            a.record_gc(erased);
        }
        self.stats.gc_busy_ns += erased.since(now).ns();
        let programmed = copies_done.max(reads_done);
        self.stats.gc_read_ns += reads_done.since(started).ns();
        self.stats.gc_program_ns += programmed.since(reads_done).ns();
        self.stats.gc_erase_ns += erased.saturating_since(programmed).ns();
        erased
    }

    /// Page-mapped GC copy of `live` to the GC head; returns when durable.
    fn page_copy(&mut self, victim: SuperblockId, live: &[(Ppn, Lpn, SimTime)], now: SimTime) -> SimTime {
        let gc_head = if self.coupled.is_some() { coupled::META_GC_HEAD } else { self.heads.len() - 1 };
        let victim_mtime = self.pool.info(victim).last_write;
        let mut copies_done = now;
        // Copy to the GC head a run at a time, each run the rest of the
        // head's program unit: one allocation, one valid count and at most
        // one program per run, slot by slot the same as `place`.
        // Mapping entries are random accesses; prefetching a few ahead
        // overlaps their cache misses.
        const PREFETCH_AHEAD: usize = 32;
        let mut i = 0;
        while i < live.len() {
            let (first, n) = self.alloc_run(gc_head, live.len() - i);
            let mut ready = SimTime::ZERO;
            for (k, &(old, lpn, read_done)) in live[i..i + n as usize].iter().enumerate() {
                if let Some(&(_, ahead, _)) = live.get(i + k + PREFETCH_AHEAD) {
                    self.mapping.prefetch(ahead);
                }
                let ppn = Ppn(first.0 + k as u64);
                self.store.program(ppn, self.store.read(old).expect("valid slot holds data"));
                // The victim's slots are released together below.
                let prev = self.mapping.set(lpn, ppn);
                assert!(prev == Some(old), "GC copy of {lpn} from {old}, but the mapping said {prev:?}");
                self.p2l[ppn.0 as usize] = lpn.0 as u32;
                ready = ready.max(read_done);
            }
            let h = &mut self.heads[gc_head];
            h.unit_ready = h.unit_ready.max(ready);
            self.pool.add_valid_n(self.layout.superblock_of(first), n, victim_mtime);
            self.stats.gc_write_slots += n as u64;
            if let Some(done) = self.finish_slot(gc_head) {
                copies_done = copies_done.max(done);
            }
            i += n as usize;
        }
        // Every owned slot of the victim was in `live` (pass 1 listed them
        // from p2l): all of them now stand invalid.
        let start = self.layout.superblock_start(victim).0 as usize;
        self.p2l[start..start + self.sps as usize].fill(NO_OWNER);
        self.pool.remove_valid_n(victim, live.len() as u32);
        if let Some(t) = self.pad_and_program(gc_head) {
            copies_done = copies_done.max(t);
        }
        copies_done
    }

    // ---- inspection for the checker ---------------------------------------

    pub(crate) fn mapping(&self) -> &dyn Mapping {
        &self.mapping
    }
    pub(crate) fn p2l_owner(&self, ppn: Ppn) -> Option<Lpn> {
        match self.p2l[ppn.0 as usize] {
            NO_OWNER => None,
            o => Some(Lpn(o as u64)),
        }
    }
    pub(crate) fn pool(&self) -> &BlockPool {
        &self.pool
    }
    pub(crate) fn store(&self) -> &FlashStore {
        &self.store
    }
}
