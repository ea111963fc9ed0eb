//! D2FS device mode: block-associative mapping and Coupled GC (d2fs.txt §4,
//! §6.2-6.3), in the same `Ssd` so that NAND timing, the write buffer and
//! unit programming are shared with the conventional FTL.
//!
//! Address space (the filesystem partition, p_v x capacity LBAs):
//! * `[0, main_start)`: filesystem metadata (checkpoint, SIT, NAT, SSA),
//!   updated in place, so page-mapped (the hybrid the paper's Table 1
//!   accounts: "page mapping for the metadata area and block mapping for the
//!   main area"); its superblocks are collected by ordinary page-level GC.
//! * `[main_start, end)`: one mapping entry per filesystem section (= one
//!   superblock). A page's offset in its block equals its LBA's offset in
//!   its section, always: that is the block-mapping invariant.
//! * `[gc_region_start, end)`: the GC region, allocated only by CGC.
//!
//! Coupled GC (§4.3): greedy victim; its valid pages are placed one after
//! another in a destination block (one per block type: data or filemap,
//! §6.3 stream ids) that is mapped to a free GC-region section, so each
//! page gets a new LBA (remap) and a record `<old, new>` (§4.4). The
//! victim's entry becomes NULL; reads and discards of a NULL section follow
//! outstanding records. A GC-region section is reused only when its block
//! is erased and every record leaving it is synced: "the FTL recycles the
//! mapping table entry only after it ensures that the F2L mapping at the
//! host has been updated".
//!
//! Upcall piggybacking (§5.2): after CGC the records are placed in upcalls on
//! the migration SQ, and the next command completion carries the UPCALL
//! flag; nothing else tells the host.
//!
//! Stated simplifications: host writes to a section must be sequential
//! (F2FS LFS logs are); a flush does not pad an open block-mapped unit (its
//! data stays in the power-loss-protected buffer, as zoned drives do);
//! records survive power loss (the paper's assumption, §7).

use crate::ftl::mapping::Mapping;
use super::{LogHead, Ssd, NO_OWNER};
use crate::ftl::config::ConfigError;
use crate::ftl::migration::MigrationLog;
use crate::nvme::{MigrationRecord, Upcall};
use crate::ftl::SbState;
use crate::nand::{Layout, Lpn, Ppn, SuperblockId};
use crate::nvme::Status;
use crate::oracle::Fingerprint;
use crate::sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;
/// Bytes per block-mapping entry (a superblock number).
pub const BLOCK_ENTRY_BYTES: u64 = 4;
/// Bytes per page-mapping entry (Table 1: "4 Byte for 4 KByte").
pub const PAGE_ENTRY_BYTES: u64 = 4;

/// Head slots in coupled mode.
pub(super) const META_HEAD: usize = 0;
pub(super) const META_GC_HEAD: usize = 1;
const GC_DEST_HEAD: [usize; 2] = [2, 3];
pub(super) const FIRST_HOST_MAIN_HEAD: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum BlockKind {
    Meta,
    Data,
    Node,
}

/// The filesystem partition as the device sees it.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CoupledConfig {
    /// Exported LBAs: the filesystem partition.
    pub partition_blocks: u64,
    /// First LBA of the block-mapped main area (section aligned).
    pub main_start: u64,
    /// First LBA of the GC region.
    pub gc_region_start: u64,
    /// Records per upcall (D2FS: 256).
    pub records_per_upcall: usize,
    /// Who frees the block-mapped main area, and how.
    pub personality: MainArea,
    /// ZNS: zones that may be partially written at once (the active zone limit).
    pub max_active_zones: u32,
}

/// The device personalities that block-map the main area. Each keeps the
/// page-mapped metadata area with its own device GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum MainArea {
    /// D2FS: Coupled GC reclaims sections into the GC region (d2fs.txt §4).
    D2fs,
    /// ZNS: no GC region and no Coupled GC; main-area sections are zones,
    /// written only at their write pointer and freed by Reset Zone (NVMe ZNS
    /// 1.1). `gc_region_start` must equal `partition_blocks`.
    Zns,
    /// CSGC's sFTL (csgc.txt §3.3): the OPU partition is mapped directly and
    /// has no device GC; the host frees a section (Reset Zone's semantics
    /// without zone states or limits) and migrates blocks with the
    /// offloaded migrate command (`sftl.rs`). No GC region.
    Sftl,
}

impl MainArea {
    /// Whether the host frees main-area sections itself (no device GC there).
    pub fn host_freed(self) -> bool {
        matches!(self, MainArea::Zns | MainArea::Sftl)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CoupledStats {
    // Counters (`since` subtracts them); `peak_outstanding_records` is a level.
    pub cgc_victims: u64,
    pub meta_gc_victims: u64,
    pub records_created: u64,
    pub records_synced: u64,
    pub peak_outstanding_records: u64,
    pub upcalls_placed: u64,
    /// Completions that carried the UPCALL flag.
    pub upcall_signals: u64,
    pub read_redirects: u64,
    pub discard_redirects: u64,
    /// CGC rounds the host asked for on a free-section fault.
    pub host_reclaims: u64,
    /// ZNS: Reset Zone commands that erased a zone.
    pub zone_resets: u64,
}

impl CoupledStats {
    /// Counters accumulated since `e` (the peak is kept as is).
    pub fn since(&self, e: &CoupledStats) -> CoupledStats {
        CoupledStats {
            cgc_victims: self.cgc_victims - e.cgc_victims,
            meta_gc_victims: self.meta_gc_victims - e.meta_gc_victims,
            records_created: self.records_created - e.records_created,
            records_synced: self.records_synced - e.records_synced,
            peak_outstanding_records: self.peak_outstanding_records,
            upcalls_placed: self.upcalls_placed - e.upcalls_placed,
            upcall_signals: self.upcall_signals - e.upcall_signals,
            read_redirects: self.read_redirects - e.read_redirects,
            discard_redirects: self.discard_redirects - e.discard_redirects,
            host_reclaims: self.host_reclaims - e.host_reclaims,
            zone_resets: self.zone_resets - e.zone_resets,
        }
    }
}

/// FTL DRAM for the mapping (d2fs.txt Table 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MappingMemory {
    pub page_map_bytes: u64,
    pub block_map_bytes: u64,
    /// Peak outstanding migration records x 8 B.
    pub record_buffer_bytes: u64,
}

impl MappingMemory {
    pub fn total(&self) -> u64 {
        self.page_map_bytes + self.block_map_bytes + self.record_buffer_bytes
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Coupled {
    pub(super) cfg: CoupledConfig,
    /// Main section -> superblock (NONE = NULL entry).
    sec_map: Vec<u32>,
    /// Superblock -> main section it is mapped to (NONE if unmapped or meta).
    sb_sec: Vec<u32>,
    pub(super) sb_kind: Vec<BlockKind>,
    gc_first_sec: u32,
    /// Free GC-region sections, FIFO.
    gc_free: VecDeque<u32>,
    /// Per GC-region section: outstanding records whose old LBA lies in it.
    draining: Vec<u32>,
    pub(super) log: MigrationLog,
    notify_pending: bool,
    signal: Option<SimTime>,
    pub(super) stats: CoupledStats,
    /// The record buffer over time (D2FS Fig. 17): per second of simulated
    /// time, the most records outstanding after a CGC round in it.
    #[serde(default)]
    buffer_samples: Vec<(u64, u64)>,
    /// sFTL: the CSGC executor (`sftl.rs`).
    #[serde(default)]
    pub(super) exec: Option<Box<super::sftl::Executor>>,
}

impl Coupled {
    pub(super) fn new(cfg: CoupledConfig, superblocks: u32, sps: u32) -> Result<Coupled, ConfigError> {
        let e = |field: &str, value: u64, reason: String| ConfigError { field: field.into(), value: value.to_string(), reason };
        let sps64 = sps as u64;
        if !cfg.main_start.is_multiple_of(sps64) {
            return Err(e("d2fs main area start", cfg.main_start, format!("must be aligned to the {sps}-block superblock")));
        }
        if cfg.gc_region_start < cfg.main_start || !(cfg.gc_region_start - cfg.main_start).is_multiple_of(sps64) {
            return Err(e("d2fs gc region start", cfg.gc_region_start, "must be a section boundary in the main area".into()));
        }
        if cfg.partition_blocks >= NONE as u64 || (cfg.personality.host_freed() != (cfg.partition_blocks == cfg.gc_region_start)) {
            return Err(e(
                "d2fs partition blocks",
                cfg.partition_blocks,
                "must be < 2^32 blocks and hold a GC region (D2FS) or none (ZNS, sFTL)".into(),
            ));
        }
        if cfg.personality == MainArea::Zns && cfg.max_active_zones == 0 {
            return Err(e("zns max_active_zones", 0, "must be at least 1".into()));
        }
        if cfg.records_per_upcall == 0 {
            return Err(e("fs.upcall_records", 0, "an upcall carries at least one record".into()));
        }
        let main_secs = ((cfg.partition_blocks - cfg.main_start) / sps64) as u32;
        let gc_first_sec = ((cfg.gc_region_start - cfg.main_start) / sps64) as u32;
        Ok(Coupled {
            sec_map: vec![NONE; main_secs as usize],
            sb_sec: vec![NONE; superblocks as usize],
            sb_kind: vec![BlockKind::Meta; superblocks as usize],
            gc_free: (gc_first_sec..main_secs).collect(),
            draining: vec![0; (main_secs - gc_first_sec) as usize],
            gc_first_sec,
            log: MigrationLog::new(cfg.records_per_upcall),
            notify_pending: false,
            signal: None,
            stats: CoupledStats::default(),
            buffer_samples: Vec::new(),
            exec: None,
            cfg,
        })
    }

    /// (section, offset) of a main-area LBA: a section is a superblock's
    /// worth of LBAs (a shift for the usual power-of-two superblock).
    #[inline]
    fn section_of(&self, lba: Lpn, layout: &Layout) -> (u32, u32) {
        let (sec, off) = layout.split_superblock(lba.0 - self.cfg.main_start);
        (sec as u32, off as u32)
    }

    fn is_gc_sec(&self, sec: u32) -> bool {
        sec >= self.gc_first_sec
    }
}

impl Ssd {
    pub(crate) fn coupled_main(&self, lpn: Lpn) -> bool {
        self.coupled.as_ref().is_some_and(|c| lpn.0 >= c.cfg.main_start)
    }

    pub(super) fn c(&self) -> &Coupled {
        self.coupled.as_deref().expect("coupled mode")
    }
    pub(super) fn cm(&mut self) -> &mut Coupled {
        self.coupled.as_deref_mut().expect("coupled mode")
    }

    /// Physical page holding `lba` now: the block entry, or, when it is NULL,
    /// the chain of outstanding records (read/discard-redirect, §4.4).
    /// Returns (page, whether a record was followed).
    pub(super) fn resolve_main(&self, lba: Lpn) -> (Option<Ppn>, bool) {
        let c = self.c();
        let mut l = lba;
        let mut redirected = false;
        loop {
            let (sec, off) = c.section_of(l, &self.layout);
            match c.sec_map[sec as usize] {
                NONE => match c.log.lookup(sec, l) {
                    Some(n) => {
                        l = n;
                        redirected = true;
                    }
                    None => return (None, redirected),
                },
                sb => {
                    let ppn = Ppn(self.layout.superblock_start(SuperblockId(sb)).0 + off as u64);
                    return ((self.p2l[ppn.0 as usize] == l.0 as u32).then_some(ppn), redirected);
                }
            }
        }
    }

    /// Hint: the reverse-map entry `resolve_main` reads for `lba` (a
    /// random line per discard at paper size), if its section has a block.
    pub(super) fn prefetch_main(&self, lba: Lpn) {
        let c = self.c();
        let (sec, off) = c.section_of(lba, &self.layout);
        if let Some(&sb) = c.sec_map.get(sec as usize).filter(|&&sb| sb != NONE) {
            crate::prefetch::prefetch(&self.p2l, (self.layout.superblock_start(SuperblockId(sb)).0 + off as u64) as usize);
        }
    }

    pub(super) fn lookup_for_read(&mut self, lpn: Lpn) -> Option<Ppn> {
        if !self.coupled_main(lpn) {
            return self.mapping.get(lpn);
        }
        let (p, redirected) = self.resolve_main(lpn);
        self.cm().stats.read_redirects += redirected as u64;
        p
    }

    /// Discard one main-area LBA (following records if its entry is NULL).
    pub(super) fn discard_main(&mut self, lba: Lpn) {
        let (p, redirected) = self.resolve_main(lba);
        self.cm().stats.discard_redirects += redirected as u64;
        if let Some(ppn) = p {
            let owner = Lpn(self.p2l[ppn.0 as usize] as u64);
            self.invalidate(ppn, owner);
            self.stats.host_trim_slots += 1;
        }
    }

    /// The host head writing section `sec`, opening a block for it if the
    /// section has none (or only a dead one the host has reused).
    fn host_head_for(&mut self, sec: u32, kind: BlockKind) -> usize {
        let mapped = self.c().sec_map[sec as usize];
        if mapped != NONE {
            if let Some(h) = (FIRST_HOST_MAIN_HEAD..self.heads.len()).find(|&h| self.heads[h].sb == Some(SuperblockId(mapped))) {
                return h;
            }
            let info = *self.pool.info(SuperblockId(mapped));
            assert!(
                info.state == SbState::Full && info.valid_slots == 0,
                "host rewrote section {sec} while its block {} still holds {} valid pages ({:?}): \
                 a D2FS host must discard a section's blocks before reusing it",
                SuperblockId(mapped),
                info.valid_slots,
                info.state
            );
            // The dead block stays full with no valid page; GC erases it.
            self.cm().sb_sec[mapped as usize] = NONE;
        }
        let sb = self.pool.open().unwrap_or_else(|| panic!("no free superblock for host section {sec}; GC reserve exhausted"));
        let c = self.cm();
        c.sec_map[sec as usize] = sb.0;
        c.sb_sec[sb.0 as usize] = sec;
        c.sb_kind[sb.0 as usize] = kind;
        let slot = (FIRST_HOST_MAIN_HEAD..self.heads.len()).find(|&h| self.heads[h].sb.is_none());
        let h = slot.unwrap_or_else(|| {
            self.heads.push(LogHead::new(false));
            self.heads.len() - 1
        });
        self.heads[h] = LogHead { sb: Some(sb), ..LogHead::new(false) };
        h
    }

    /// Place one host block of the main area at its block-associative slot.
    pub(super) fn place_main(&mut self, lba: Lpn, fp: Fingerprint, ready: SimTime, stream: u8) {
        let (sec, off) = self.c().section_of(lba, &self.layout);
        assert!(
            !self.c().is_gc_sec(sec),
            "host wrote LBA {} in the GC region (section {sec}); only CGC allocates there",
            lba.0
        );
        let kind = if stream == 1 { BlockKind::Node } else { BlockKind::Data };
        if self.zoned() {
            // The NVMe path rejects these with a status; a filesystem that
            // does them through `BlockDevice` has a bug.
            if let Err(s) = self.zone_write_check(lba, 1) {
                panic!("zoned write at LBA {} (zone {sec}, offset {off}) rejected: {s:?}", lba.0);
            }
        }
        let h = self.host_head_for(sec, kind);
        assert!(
            off >= self.heads[h].next,
            "host wrote LBA {} at offset {off} of section {sec}, below its write pointer {}: block-mapped sections are written sequentially",
            lba.0,
            self.heads[h].next
        );
        let sb = self.heads[h].sb.expect("open");
        let start = self.layout.superblock_start(sb).0;
        // Skipped offsets become padding (never valid).
        while self.heads[h].next < off {
            self.store.program_padding(Ppn(start + self.heads[h].next as u64));
            self.heads[h].next += 1;
            self.stats.padding_slots += 1;
            self.finish_slot(h);
        }
        let ppn = Ppn(start + off as u64);
        self.store.program(ppn, fp);
        self.p2l[ppn.0 as usize] = lba.0 as u32;
        self.pool.add_valid(sb, ready);
        let head = &mut self.heads[h];
        head.next = off + 1;
        head.unit_ready = head.unit_ready.max(ready);
        head.buffered_slots += 1;
        self.finish_slot(h);
        if self.heads[h].next == self.sps {
            self.pool.close(sb);
            self.heads[h].sb = None;
        }
    }

    /// Coupled GC of one main-area victim (§4.3): block-associative migration
    /// of `live` into the destination block of the victim's type, remap to
    /// GC-region LBAs, one record per page. Returns when the copies are durable.
    pub(super) fn cgc_copy(&mut self, victim: SuperblockId, live: &[(Ppn, Lpn, SimTime)], now: SimTime) -> SimTime {
        let kind = self.c().sb_kind[victim.0 as usize];
        let h = GC_DEST_HEAD[(kind == BlockKind::Node) as usize];
        let mtime = self.pool.info(victim).last_write;
        let mut done = now;
        for &(old, old_lba, ready) in live {
            if self.heads[h].sb.is_none() || self.heads[h].next == self.sps {
                self.open_gc_destination(h, kind);
            }
            let sb = self.heads[h].sb.expect("open");
            let k = self.heads[h].next;
            let sec = self.c().sb_sec[sb.0 as usize];
            let new_lba = Lpn(self.c().cfg.main_start + sec as u64 * self.sps as u64 + k as u64);
            let ppn = Ppn(self.layout.superblock_start(sb).0 + k as u64);
            let fp = self.store.read(old).expect("valid slot holds data");
            self.store.program(ppn, fp);
            self.invalidate(old, old_lba);
            self.p2l[ppn.0 as usize] = new_lba.0 as u32;
            self.pool.add_valid(sb, mtime);
            let head = &mut self.heads[h];
            head.next += 1;
            head.unit_ready = head.unit_ready.max(ready);
            self.stats.gc_write_slots += 1;
            if let Some(t) = self.finish_slot(h) {
                done = done.max(t);
            }
            let layout = self.layout;
            let c = self.cm();
            let (old_sec, _) = c.section_of(old_lba, &layout);
            if c.is_gc_sec(old_sec) {
                c.draining[(old_sec - c.gc_first_sec) as usize] += 1;
            }
            c.log.add(old_sec, old_lba, new_lba);
        }
        let c = self.cm();
        let (sec, n) = (now.ns() / 1_000_000_000, c.log.outstanding() as u64);
        match c.buffer_samples.last_mut() {
            Some((s, m)) if *s == sec => *m = (*m).max(n),
            _ => c.buffer_samples.push((sec, n)),
        }
        if let Some(t) = self.pad_and_program(h) {
            done = done.max(t);
        }
        done
    }

    /// (second of simulated time, most records outstanding after a CGC
    /// round in it); seconds without CGC have no sample.
    pub fn record_buffer_samples(&self) -> Vec<(u64, u64)> {
        self.coupled.as_deref().map(|c| c.buffer_samples.clone()).unwrap_or_default()
    }

    fn open_gc_destination(&mut self, h: usize, kind: BlockKind) {
        if let Some(old) = self.heads[h].sb {
            self.pool.close(old);
        }
        let sb = self.pool.open().unwrap_or_else(|| panic!("no free superblock for a CGC destination; GC reserve exhausted"));
        let c = self.cm();
        let sec = c.gc_free.pop_front().unwrap_or_else(|| {
            panic!(
                "CGC found no free GC-region section ({} records outstanding, {} sections draining): \
                 the host is not syncing migration records",
                c.log.outstanding(),
                c.draining.iter().filter(|&&d| d > 0).count()
            )
        });
        c.sec_map[sec as usize] = sb.0;
        c.sb_sec[sb.0 as usize] = sec;
        c.sb_kind[sb.0 as usize] = kind;
        self.heads[h] = LogHead { sb: Some(sb), ..LogHead::new(true) };
    }

    /// After a victim's erase: its entry is NULL; a GC-region section with no
    /// unsynced record leaving it is free for CGC again. Records go out as upcalls.
    pub(super) fn cgc_after_erase(&mut self, victim: SuperblockId) {
        let c = self.cm();
        let sec = std::mem::replace(&mut c.sb_sec[victim.0 as usize], NONE);
        c.sb_kind[victim.0 as usize] = BlockKind::Meta;
        if sec != NONE {
            c.sec_map[sec as usize] = NONE;
            if c.is_gc_sec(sec) && c.draining[(sec - c.gc_first_sec) as usize] == 0 {
                c.gc_free.push_back(sec);
            }
        }
        c.stats.cgc_victims += (sec != NONE) as u64;
        if c.log.place_upcalls() > 0 {
            c.notify_pending = true;
        }
    }

    /// `note_completion` for callers outside the command path.
    pub fn take_completion_note(&mut self, at: SimTime) {
        self.note_completion(at);
    }

    /// A command completed at `at`: piggyback a pending upcall notification.
    pub(super) fn note_completion(&mut self, at: SimTime) -> bool {
        match self.coupled.as_deref_mut() {
            Some(c) if c.notify_pending => {
                c.notify_pending = false;
                c.signal = Some(c.signal.map_or(at, |s| s.min(at)));
                c.stats.upcall_signals += 1;
                true
            }
            _ => false,
        }
    }

    // ---- host side of the migration queue pair ---------------------------------

    /// The instant of the first completion that carried the UPCALL flag since the last call.
    pub fn take_upcall_signal(&mut self) -> Option<SimTime> {
        self.coupled.as_deref_mut().and_then(|c| c.signal.take())
    }

    pub fn fetch_upcall(&mut self) -> Option<Upcall> {
        self.coupled.as_deref_mut().and_then(|c| c.log.fetch())
    }

    /// Migration CQ entry: upcalls up to `upcall` are complete; their records are synced.
    pub fn complete_upcalls(&mut self, upcall: u64) {
        let Some(c) = self.coupled.as_deref_mut() else { return };
        // A batch's records all leave its key, their old LBAs' section, so
        // a section is counted down by batch; it reaches zero at the batch
        // holding its last freed record, in the order a count by record would.
        for &(sec, n) in c.log.complete(upcall) {
            c.stats.records_synced += n as u64;
            if sec >= c.gc_first_sec {
                let d = &mut c.draining[(sec - c.gc_first_sec) as usize];
                *d = d.checked_sub(n).unwrap_or_else(|| panic!("GC section {sec}: {n} records synced, {d} outstanding"));
                if *d == 0 && c.sec_map[sec as usize] == NONE {
                    c.gc_free.push_back(sec);
                }
            }
        }
    }

    /// Crash recovery (§7): outstanding records after the host's last processed one.
    pub fn records_after(&self, last: u64) -> Vec<MigrationRecord> {
        self.coupled.as_deref().map(|c| c.log.after(last)).unwrap_or_default()
    }

    /// What the block mapping alone (no redirect) holds at `lba`.
    pub fn peek_direct(&self, lba: Lpn) -> Option<Fingerprint> {
        let ppn = if self.coupled_main(lba) {
            let c = self.c();
            let (sec, off) = c.section_of(lba, &self.layout);
            match c.sec_map[sec as usize] {
                NONE => None,
                sb => Some(Ppn(self.layout.superblock_start(SuperblockId(sb)).0 + off as u64))
                    .filter(|p| self.p2l[p.0 as usize] == lba.0 as u32),
            }
        } else {
            self.mapping.get(lba)
        };
        ppn.and_then(|p| self.store.read(p))
    }

    /// Free-section fault (§6.1): the host asks for one CGC round. Returns
    /// when it completes, or None if no block has anything to reclaim.
    pub fn reclaim(&mut self, at: SimTime) -> Option<SimTime> {
        let c = self.coupled.as_deref()?;
        let _ = c;
        let sps = self.sps;
        let any = self.pool.full().any(|(_, i)| i.valid_slots < sps);
        if !any {
            return None;
        }
        self.cm().stats.host_reclaims += 1;
        let done = self.collect_one(at);
        self.note_completion(done);
        Some(done)
    }

    pub fn coupled_stats(&self) -> Option<CoupledStats> {
        self.coupled.as_deref().map(|c| {
            let mut s = c.stats.clone();
            s.records_created = c.log.records_created;
            s.upcalls_placed = c.log.upcalls_placed;
            s.peak_outstanding_records = c.log.peak_outstanding as u64;
            s
        })
    }

    /// Mapping memory: page map of the metadata area, block map of the main
    /// area, and the peak record buffer (coupled mode); page map otherwise.
    pub fn mapping_memory(&self) -> MappingMemory {
        match self.coupled.as_deref() {
            None => MappingMemory { page_map_bytes: self.mapping.memory_bytes(), ..Default::default() },
            Some(c) => MappingMemory {
                page_map_bytes: c.cfg.main_start * PAGE_ENTRY_BYTES,
                block_map_bytes: c.sec_map.len() as u64 * BLOCK_ENTRY_BYTES,
                record_buffer_bytes: c.log.peak_outstanding as u64 * crate::ftl::migration::RECORD_BYTES,
            },
        }
    }

    /// Block-mapped main area (D2FS and ZNS personalities).
    pub(crate) fn block_mapped(&self) -> bool {
        self.coupled.is_some()
    }

    pub(crate) fn zoned(&self) -> bool {
        self.coupled.as_deref().is_some_and(|c| c.cfg.personality == MainArea::Zns)
    }

    /// ZNS or sFTL: the host frees main-area sections; device GC collects
    /// only the page-mapped metadata area.
    pub(crate) fn host_freed_main(&self) -> bool {
        self.coupled.as_deref().is_some_and(|c| c.cfg.personality.host_freed())
    }

    /// Zone write pointer (offset in the zone), and whether the zone is active (open).
    fn zone_wp(&self, sec: u32) -> (u32, bool) {
        match self.c().sec_map[sec as usize] {
            NONE => (0, false),
            sb => match (FIRST_HOST_MAIN_HEAD..self.heads.len()).find(|&h| self.heads[h].sb == Some(SuperblockId(sb))) {
                Some(h) => (self.heads[h].next, true),
                None => (self.sps, false),
            },
        }
    }

    fn active_zones(&self) -> u32 {
        self.heads[FIRST_HOST_MAIN_HEAD..].iter().filter(|h| h.sb.is_some()).count() as u32
    }

    /// ZNS rules for a write of `nlb` blocks at `slba` (Success for non-zoned LBAs).
    pub(super) fn zone_write_check(&self, slba: Lpn, nlb: u32) -> Result<(), Status> {
        if !self.zoned() || !self.coupled_main(slba) {
            return Ok(());
        }
        let (sec, off) = self.c().section_of(slba, &self.layout);
        let (wp, active) = self.zone_wp(sec);
        if wp == self.sps {
            return Err(Status::ZoneFull);
        }
        if off != wp || off + nlb > self.sps {
            return Err(Status::ZoneInvalidWrite);
        }
        if !active && self.active_zones() >= self.c().cfg.max_active_zones {
            return Err(Status::TooManyActiveZones);
        }
        Ok(())
    }

    /// Zone Append: where `nlb` blocks appended to the zone at `zslba` land.
    pub(super) fn zone_append_target(&self, zslba: Lpn, nlb: u32) -> Result<Lpn, Status> {
        if !self.zoned() || !self.coupled_main(zslba) || zslba.0 >= self.capacity {
            return Err(Status::NotZoned);
        }
        let (sec, off) = self.c().section_of(zslba, &self.layout);
        if off != 0 || nlb == 0 {
            return Err(Status::InvalidField);
        }
        let lba = Lpn(zslba.0 + self.zone_wp(sec).0 as u64);
        self.zone_write_check(lba, nlb).map(|_| lba)
    }

    /// Reset Zone: drop its data, erase its superblock, write pointer to 0.
    /// An sFTL device frees a host-freed section the same way.
    pub fn reset_zone(&mut self, at: SimTime, zslba: Lpn) -> Result<SimTime, Status> {
        if !self.host_freed_main() || !self.coupled_main(zslba) || zslba.0 >= self.capacity {
            return Err(Status::NotZoned);
        }
        let (sec, off) = self.c().section_of(zslba, &self.layout);
        if off != 0 {
            return Err(Status::InvalidField);
        }
        let start = at + SimDuration(self.timing.fw_write_ns);
        let sb = self.c().sec_map[sec as usize];
        if sb == NONE {
            return Ok(start);
        }
        let sb = SuperblockId(sb);
        if let Some(h) = (FIRST_HOST_MAIN_HEAD..self.heads.len()).find(|&h| self.heads[h].sb == Some(sb)) {
            // Data still in the buffer for the filling unit is dropped with the zone.
            let held = std::mem::take(&mut self.heads[h].buffered_slots);
            if held > 0 {
                self.buffer.release_at(start, held);
            }
            self.heads[h].sb = None;
            self.pool.close(sb);
        }
        let first = self.layout.superblock_start(sb).0;
        for p in first..first + self.sps as u64 {
            if self.p2l[p as usize] != NO_OWNER {
                self.p2l[p as usize] = NO_OWNER;
                self.pool.remove_valid(sb);
            }
        }
        let mut done = start;
        for d in 0..self.geo.dies() {
            done = done.max(self.timelines.erase(&self.timing, crate::nand::DieId(d), start));
        }
        self.store.erase_superblock(sb);
        self.pool.release(sb);
        self.stats.superblocks_erased += 1;
        let c = self.cm();
        c.sec_map[sec as usize] = NONE;
        c.sb_sec[sb.0 as usize] = NONE;
        c.sb_kind[sb.0 as usize] = BlockKind::Meta;
        c.stats.zone_resets += 1;
        Ok(done)
    }

    /// Finish Zone (NVMe ZNS 2.0, Zone Management Send, Finish): the write
    /// pointer moves to the zone's end and the zone becomes full, so it no
    /// longer counts against the active limit. The unwritten rest is
    /// programmed as padding (the emulated device has no cheaper way to
    /// close a superblock). An empty or full zone is left alone.
    ///
    /// A D2FS device (block-mapped sections, not zones) takes the same
    /// command when its host mounts after a crash: the dead mount's open
    /// sections are closed so the new mount can reuse them.
    pub fn finish_zone(&mut self, at: SimTime, zslba: Lpn) -> Result<SimTime, Status> {
        if self.coupled.is_none() || !self.coupled_main(zslba) || zslba.0 >= self.capacity {
            return Err(Status::NotZoned);
        }
        let (sec, off) = self.c().section_of(zslba, &self.layout);
        if off != 0 {
            return Err(Status::InvalidField);
        }
        let sb = self.c().sec_map[sec as usize];
        let Some(h) = (sb != NONE)
            .then(|| (FIRST_HOST_MAIN_HEAD..self.heads.len()).find(|&h| self.heads[h].sb == Some(SuperblockId(sb))))
            .flatten()
        else {
            return Ok(at);
        };
        let start = self.layout.superblock_start(SuperblockId(sb)).0;
        let mut done = at;
        self.heads[h].unit_ready = self.heads[h].unit_ready.max(at);
        while self.heads[h].next < self.sps {
            self.store.program_padding(Ppn(start + self.heads[h].next as u64));
            self.heads[h].next += 1;
            self.stats.padding_slots += 1;
            if let Some(t) = self.finish_slot(h) {
                done = done.max(t);
            }
        }
        self.pool.close(SuperblockId(sb));
        self.heads[h].sb = None;
        Ok(done)
    }

    /// ZNS and sFTL: the only GC victims are full page-mapped (metadata) superblocks.
    pub(super) fn zoned_victim(&self) -> Option<SuperblockId> {
        let c = self.c();
        self.pool
            .full()
            .filter(|(id, i)| c.sb_kind[id.0 as usize] == BlockKind::Meta && c.sb_sec[id.0 as usize] == NONE && i.valid_slots < self.sps)
            .min_by_key(|(id, i)| (i.valid_slots, id.0))
            .map(|(id, _)| id)
    }

    /// Coupled-mode invariants for the checker: every mapped section's block
    /// names it back, and every valid main page sits at its LBA's offset.
    pub(crate) fn check_coupled(&self) -> Result<(), String> {
        let Some(c) = self.coupled.as_deref() else { return Ok(()) };
        for (sec, &sb) in c.sec_map.iter().enumerate() {
            if sb != NONE && c.sb_sec[sb as usize] != sec as u32 {
                return Err(format!("section {sec} maps to superblock {sb}, which names section {}", c.sb_sec[sb as usize]));
            }
        }
        for (sb, &sec) in c.sb_sec.iter().enumerate() {
            let start = self.layout.superblock_start(SuperblockId(sb as u32)).0;
            for k in 0..self.sps as u64 {
                let owner = self.p2l[(start + k) as usize];
                if owner == NO_OWNER || (owner as u64) < c.cfg.main_start {
                    continue;
                }
                let want = c.cfg.main_start + sec as u64 * self.sps as u64 + k;
                if sec == NONE || owner as u64 != want {
                    return Err(format!("slot {k} of superblock {sb} (section {sec}) holds LBA {owner}, not {want}"));
                }
            }
        }
        Ok(())
    }
}
