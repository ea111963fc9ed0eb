//! Tests of the D2FS device mode against a miniature D2FS host: it appends
//! file blocks to regular sections, discards what it overwrites, handles
//! upcalls late (so reads and discards must be redirected), "checkpoints"
//! every few operations (completing upcalls, freeing dead sections) and
//! reads every block back through its own filemap.

use super::*;
use crate::nand::Lpn;
use crate::oracle::{DataTag, Fingerprint};
use crate::sim::{SimRng, SimTime};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const SPS: u64 = 16;
const META: u64 = SPS;
const REGULAR_SECS: u64 = 10;
const GC_SECS: u64 = 4;

fn device() -> Ssd {
    // The conventional tests' tiny device: 12 superblocks of 16 slots, 64 logical pages.
    let cfg = super::ssd_tests::tiny("greedy", 1);
    let cc = CoupledConfig {
        partition_blocks: META + (REGULAR_SECS + GC_SECS) * SPS,
        main_start: META,
        gc_region_start: META + REGULAR_SECS * SPS,
        records_per_upcall: 3,
        personality: crate::ftl::MainArea::D2fs,
        max_active_zones: 0,
    };
    Ssd::new_coupled(cfg, cc).unwrap()
}

fn sec_of(lba: u64) -> u64 {
    (lba - META) / SPS
}

struct MiniHost {
    ssd: Ssd,
    now: SimTime,
    /// File block -> LBA, and back.
    fmap: Vec<Option<u64>>,
    rmap: BTreeMap<u64, usize>,
    expect: Vec<Option<Fingerprint>>,
    sec_valid: Vec<u32>,
    free: VecDeque<u64>,
    prefree: BTreeSet<u64>,
    cur: Option<(u64, u64)>,
    signalled: bool,
    /// Upcalls taken off the SQ at a checkpoint, not yet processed.
    inbox: VecDeque<crate::nvme::Upcall>,
    processed_upcall: u64,
    tag: u64,
    redirect_reads: u64,
    /// Issue writes as NVMe commands and count UPCALL-flagged completions.
    nvme: bool,
    flagged: u64,
    /// Notifications that came with a host-requested CGC round instead.
    reclaim_signals: u64,
}

impl MiniHost {
    fn new() -> Self {
        MiniHost {
            ssd: device(),
            now: SimTime::ZERO,
            fmap: vec![None; 40],
            rmap: BTreeMap::new(),
            expect: vec![None; 40],
            sec_valid: vec![0; (REGULAR_SECS + GC_SECS) as usize],
            free: (0..REGULAR_SECS).collect(),
            prefree: BTreeSet::new(),
            cur: None,
            signalled: false,
            inbox: VecDeque::new(),
            processed_upcall: 0,
            tag: 1,
            redirect_reads: 0,
            nvme: false,
            flagged: 0,
            reclaim_signals: 0,
        }
    }

    fn after_io(&mut self, done: SimTime) {
        self.now = self.now.max(done);
        if self.ssd.take_upcall_signal().is_some() {
            self.signalled = true;
        }
    }

    fn invalidate(&mut self, lba: u64) {
        self.rmap.remove(&lba);
        let s = sec_of(lba);
        self.sec_valid[s as usize] -= 1;
        if self.sec_valid[s as usize] == 0 && s < REGULAR_SECS && self.cur.map(|c| c.0) != Some(s) {
            self.prefree.insert(s);
        }
    }

    /// The upcall handler: apply records in order, skipping dead old LBAs.
    fn handle_upcalls(&mut self) {
        if !std::mem::take(&mut self.signalled) && self.inbox.is_empty() {
            return;
        }
        while let Some(u) = self.inbox.pop_front().or_else(|| self.ssd.fetch_upcall()) {
            for r in &u.records {
                if let Some(b) = self.rmap.get(&r.old.0).copied() {
                    self.invalidate(r.old.0);
                    self.fmap[b] = Some(r.new.0);
                    self.rmap.insert(r.new.0, b);
                    self.sec_valid[sec_of(r.new.0) as usize] += 1;
                }
            }
            self.processed_upcall = u.id;
        }
    }

    /// Complete processed upcalls and free dead sections, except those an
    /// unprocessed record still names: reusing one would let that record
    /// move the section's new data away (the hazard `F2fs` guards too).
    fn checkpoint(&mut self) {
        self.ssd.complete_upcalls(self.processed_upcall);
        while let Some(u) = self.ssd.fetch_upcall() {
            self.inbox.push_back(u);
        }
        let keep: BTreeSet<u64> = self.inbox.iter().flat_map(|u| u.records.iter()).map(|r| sec_of(r.old.0)).collect();
        let (kept, freed): (BTreeSet<u64>, BTreeSet<u64>) = std::mem::take(&mut self.prefree).into_iter().partition(|s| keep.contains(s));
        self.prefree = kept;
        self.free.extend(freed);
    }

    fn alloc(&mut self) -> u64 {
        loop {
            if let Some((s, off)) = self.cur {
                if off < SPS {
                    self.cur = Some((s, off + 1));
                    return META + s * SPS + off;
                }
                if self.sec_valid[s as usize] == 0 {
                    self.prefree.insert(s);
                }
            }
            match self.free.pop_front() {
                Some(s) => self.cur = Some((s, 0)),
                None => {
                    // Free-section fault: handle upcalls, checkpoint, else ask for CGC.
                    self.handle_upcalls();
                    self.checkpoint();
                    if self.free.is_empty() {
                        let before = self.ssd.coupled_stats().unwrap().upcall_signals;
                        let t = self.ssd.reclaim(self.now).expect("device has something to reclaim");
                        self.reclaim_signals += self.ssd.coupled_stats().unwrap().upcall_signals - before;
                        self.after_io(t);
                    }
                }
            }
        }
    }

    fn write(&mut self, b: usize) {
        let lba = self.alloc();
        if self.nvme {
            return self.write_nvme(b, lba);
        }
        if let Some(old) = self.fmap[b] {
            self.invalidate(old);
            let t = self.ssd.discard_blocks(self.now, Lpn(old), 1);
            self.after_io(t);
        }
        let fp = DataTag(self.tag).block(0);
        self.tag += 1;
        self.fmap[b] = Some(lba);
        self.rmap.insert(lba, b);
        self.sec_valid[sec_of(lba) as usize] += 1;
        self.expect[b] = Some(fp);
        let t = self.ssd.write(self.now, Lpn(lba), 1, 0, |_| fp);
        self.after_io(t);
    }

    /// The same write as an NVMe command: the UPCALL flag arrives on its completion.
    fn write_nvme(&mut self, b: usize, lba: u64) {
        use crate::nvme::{Command, CommandId, CompletionFlags, Opcode, Status};
        if let Some(old) = self.fmap[b] {
            self.invalidate(old);
            let cmd = Command { id: CommandId(0), op: Opcode::Discard { slba: Lpn(old), nlb: 1 } };
            let c = self.ssd.execute(self.now, &cmd, &mut Vec::new());
            self.flagged += c.flags.has(CompletionFlags::UPCALL) as u64;
        }
        let tag = DataTag(self.tag);
        self.tag += 1;
        self.fmap[b] = Some(lba);
        self.rmap.insert(lba, b);
        self.sec_valid[sec_of(lba) as usize] += 1;
        self.expect[b] = Some(tag.block(0));
        let cmd = Command { id: CommandId(1), op: Opcode::Write { slba: Lpn(lba), nlb: 1, stream: 0, data: tag } };
        let c = self.ssd.execute(self.now, &cmd, &mut Vec::new());
        assert_eq!(c.status, Status::Success);
        self.now = self.now.max(c.at);
        if c.flags.has(CompletionFlags::UPCALL) {
            self.flagged += 1;
            self.signalled = true;
        }
        // The block-device view of the same notification: the flagged completion's instant.
        let sig = self.ssd.take_upcall_signal();
        assert!(sig.is_none() || self.signalled, "a signal without a flagged completion");
    }

    fn read(&mut self, b: usize) {
        let Some(lba) = self.fmap[b] else { return };
        let before = self.ssd.coupled_stats().unwrap().read_redirects;
        let mut out = Vec::new();
        let t = self.ssd.read_blocks(self.now, Lpn(lba), 1, &mut out);
        self.after_io(t);
        self.redirect_reads += self.ssd.coupled_stats().unwrap().read_redirects - before;
        assert_eq!(out[0], self.expect[b], "file block {b} at LBA {lba} read stale data");
    }
}

fn run(seed: u64, ops: usize, lazy: u64, cp_every: usize) -> MiniHost {
    let mut h = MiniHost::new();
    let mut rng = SimRng::new(seed);
    for i in 0..ops {
        let b = rng.below(40) as usize;
        if rng.below(3) == 0 {
            h.read(b);
        } else {
            h.write(b);
        }
        if rng.below(lazy) == 0 {
            h.handle_upcalls();
        }
        if i % cp_every == 0 {
            h.checkpoint();
        }
        if i % 50 == 0 {
            crate::ftl::mapping_checker::check(&h.ssd).unwrap();
        }
    }
    crate::ftl::mapping_checker::check(&h.ssd).unwrap();
    for b in 0..40 {
        h.read(b);
    }
    h
}

#[test]
fn cgc_remaps_into_the_gc_region_and_reads_follow_records() {
    let h = run(7, 3000, 8, 20);
    let s = h.ssd.coupled_stats().unwrap();
    assert!(s.cgc_victims > 20, "CGC ran only {} times", s.cgc_victims);
    assert!(s.records_created > 0 && s.records_synced > 0);
    assert!(s.upcall_signals > 0);
    assert!(h.redirect_reads > 0, "no read was redirected: {s:?}");
    assert!(s.discard_redirects > 0, "no discard was redirected: {s:?}");
    assert!(s.cgc_victims > s.host_reclaims, "CGC should mostly run on its own: {s:?}");
    // Valid pages the host believes live in the GC region exist only by remap.
    assert!(h.rmap.keys().any(|&l| sec_of(l) >= REGULAR_SECS), "no block was remapped into the GC region");
}

#[test]
fn upcall_flag_rides_on_an_ordinary_completion() {
    let mut h = MiniHost::new();
    h.nvme = true;
    let mut rng = SimRng::new(5);
    for _ in 0..2000 {
        h.write(rng.below(40) as usize);
        h.handle_upcalls();
        h.checkpoint();
    }
    let s = h.ssd.coupled_stats().unwrap();
    assert!(s.upcalls_placed > 0);
    // One flagged completion per notification, and every upcall was fetched through them.
    assert!(h.flagged > 0);
    assert_eq!(h.flagged + h.reclaim_signals, s.upcall_signals);
    assert!(h.ssd.fetch_upcall().is_none());
    for b in 0..40 {
        h.read(b);
    }
}

#[test]
fn memory_is_page_map_for_metadata_plus_block_map() {
    let h = run(3, 500, 2, 10);
    let m = h.ssd.mapping_memory();
    assert_eq!(m.page_map_bytes, META * 4);
    assert_eq!(m.block_map_bytes, (REGULAR_SECS + GC_SECS) * 4);
    assert_eq!(m.record_buffer_bytes, h.ssd.coupled_stats().unwrap().peak_outstanding_records * 8);
}

#[test]
#[should_panic(expected = "in the GC region")]
fn host_writes_into_the_gc_region_are_a_bug() {
    let mut ssd = device();
    let lba = META + REGULAR_SECS * SPS;
    ssd.write(SimTime::ZERO, Lpn(lba), 1, 0, |_| DataTag(1).block(0));
}

#[test]
#[should_panic(expected = "below its write pointer")]
fn rewriting_inside_an_open_section_is_a_bug() {
    let mut ssd = device();
    ssd.write(SimTime::ZERO, Lpn(META + 3), 1, 0, |_| DataTag(1).block(0));
    ssd.write(SimTime::ZERO, Lpn(META + 1), 1, 0, |_| DataTag(2).block(0));
}

#[test]
fn bad_coupled_geometry_is_an_error() {
    let mut cfg = device().config().clone();
    cfg.logical_pages = 64;
    let cc = CoupledConfig { partition_blocks: 200, main_start: 5, gc_region_start: 100, records_per_upcall: 256, personality: crate::ftl::MainArea::D2fs, max_active_zones: 0 };
    let e = Ssd::new_coupled(cfg, cc).err().expect("misaligned main area is rejected");
    assert!(e.to_string().contains("main area"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn no_read_returns_stale_data(seed in any::<u64>(), lazy in 1u64..20, cp_every in 1usize..40) {
        run(seed, 800, lazy, cp_every);
    }
}
