//! Tests of the conventional SSD: unit cases plus a property test with a
//! weighted operation mix over a tiny device, so GC, padding and overwrite
//! paths run within a few hundred operations.

use super::*;
use crate::nand::{Geometry, Lpn, Preset, Timing};
use crate::nvme::{Command, CommandId, Opcode, Status};
use crate::oracle::{DataOracle, DataTag};
use crate::sim::SimTime;
use proptest::prelude::*;

pub(super) fn tiny(policy: &str, streams: u32) -> SsdConfig {
    let geometry = Geometry {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 12,
        pages_per_block: 4,
        page_bytes: 8192,
    };
    SsdConfig {
        geometry,
        timing: Preset::Femu.timing(),
        logical_pages: 64,
        ftl: FtlConfig {
            mapping: "page".into(),
            victim_policy: policy.into(),
            gc_threshold_superblocks: 2,
            gc_background_superblocks: 0,
            write_buffer_slots: 6,
            streams,
            map_segment_blocks: crate::ftl::interval_mapping::MIN_SEGMENT_BLOCKS,
            remap_entry_ns: 100,
        },
    }
}

fn write(ssd: &mut Ssd, oracle: &mut DataOracle, at: SimTime, lpn: u64, nlb: u32, stream: u8, tag: u64) -> SimTime {
    let data = DataTag(tag);
    for i in 0..nlb as u64 {
        oracle.record_write(Lpn(lpn + i), data.block(i));
    }
    let cmd = Command { id: CommandId(tag), op: Opcode::Write { slba: Lpn(lpn), nlb, stream, data } };
    let c = ssd.execute(at, &cmd, &mut Vec::new());
    assert_eq!(c.status, Status::Success);
    c.at
}

fn read_check(ssd: &mut Ssd, oracle: &mut DataOracle, at: SimTime, lpn: u64, nlb: u32) -> SimTime {
    let mut data = Vec::new();
    let cmd = Command { id: CommandId(0), op: Opcode::Read { slba: Lpn(lpn), nlb } };
    let c = ssd.execute(at, &cmd, &mut data);
    assert_eq!(c.status, Status::Success);
    for (i, got) in data.iter().enumerate() {
        assert!(oracle.check(Lpn(lpn + i as u64), *got), "read of lpn {} returned stale data", lpn + i as u64);
    }
    c.at
}

#[test]
fn overwrite_many_times_triggers_gc_and_keeps_data() {
    let mut ssd = Ssd::new(tiny("greedy", 1)).unwrap();
    let mut oracle = DataOracle::new(64);
    let mut t = SimTime::ZERO;
    for round in 0..20u64 {
        for lpn in 0..64 {
            t = write(&mut ssd, &mut oracle, t, lpn, 1, 0, round * 1000 + lpn + 1);
        }
    }
    let s = ssd.stats();
    assert!(s.gc_count > 0, "20 overwrites of the whole device must trigger GC");
    assert_eq!(s.host_write_slots, 20 * 64);
    assert!(s.waf() >= 1.0);
    mapping_checker::check(&ssd).unwrap();
    read_check(&mut ssd, &mut oracle, t, 0, 64);
    assert_eq!(oracle.stats().mismatches_count, 0);
}

/// FEMU's background GC (`Ssd::background_gc`): after a command, one
/// victim while few enough superblocks are free, but only one at least 1/8
/// invalid (`select_victim_line` unforced), however few are free.
#[test]
fn background_gc_waits_for_an_eighth_of_a_victim_invalid() {
    let mut cfg = tiny("greedy", 1);
    cfg.ftl.gc_background_superblocks = 11;
    let mut ssd = Ssd::new(cfg).unwrap();
    let mut oracle = DataOracle::new(64);
    let sps = ssd.config().geometry.slots_per_superblock() as u64;
    assert_eq!(sps, 16, "two dies of 4 pages of two slots");
    let mut t = SimTime::ZERO;
    // Four full superblocks, nothing invalid: no victim worth taking.
    for lpn in 0..64 {
        t = write(&mut ssd, &mut oracle, t, lpn, 1, 0, lpn + 1);
    }
    assert_eq!(ssd.stats().gc_count, 0);
    // One invalid slot in the first superblock: 1 < 16 / 8.
    t = write(&mut ssd, &mut oracle, t, 0, 1, 0, 100);
    assert_eq!(ssd.stats().gc_count, 0, "a victim under 1/8 invalid waits");
    // Two: the command's end takes it, and only it.
    t = write(&mut ssd, &mut oracle, t, 1, 1, 0, 101);
    let s = ssd.stats();
    assert_eq!((s.gc_count, s.gc_background_count, s.gc_write_slots), (1, 1, sps - 2));
    mapping_checker::check(&ssd).unwrap();
    read_check(&mut ssd, &mut oracle, t, 0, 64);
    assert_eq!(oracle.stats().mismatches_count, 0);
}

#[test]
fn out_of_range_is_an_error_status() {
    let mut ssd = Ssd::new(tiny("greedy", 1)).unwrap();
    let cmd = Command { id: CommandId(1), op: Opcode::Read { slba: Lpn(63), nlb: 2 } };
    assert_eq!(ssd.execute(SimTime::ZERO, &cmd, &mut Vec::new()).status, Status::LbaOutOfRange);
    let cmd = Command { id: CommandId(1), op: Opcode::Read { slba: Lpn(0), nlb: 0 } };
    assert_eq!(ssd.execute(SimTime::ZERO, &cmd, &mut Vec::new()).status, Status::InvalidField);
}

#[test]
fn write_completes_early_and_flush_waits_for_program() {
    let cfg = tiny("greedy", 1);
    let prog = cfg.timing.program_ns;
    let mut ssd = Ssd::new(cfg).unwrap();
    let mut oracle = DataOracle::new(64);
    let done = write(&mut ssd, &mut oracle, SimTime::ZERO, 0, 1, 0, 1);
    assert!(done.ns() < prog, "buffered write should complete before tPROG");
    let flushed = ssd.flush(done);
    assert!(flushed.ns() >= prog, "flush returns after the padded page is programmed");
    assert_eq!(ssd.stats().padding_slots, 1);
}

#[test]
fn trim_unmaps_and_reduces_gc_work() {
    let mut ssd = Ssd::new(tiny("greedy", 1)).unwrap();
    let mut oracle = DataOracle::new(64);
    let mut t = write(&mut ssd, &mut oracle, SimTime::ZERO, 0, 32, 0, 1);
    let cmd = Command { id: CommandId(2), op: Opcode::Discard { slba: Lpn(0), nlb: 16 } };
    for i in 0..16 {
        oracle.record_trim(Lpn(i));
    }
    t = ssd.execute(t, &cmd, &mut Vec::new()).at;
    read_check(&mut ssd, &mut oracle, t, 0, 32);
    assert_eq!(ssd.stats().host_trim_slots, 16);
    mapping_checker::check(&ssd).unwrap();
}

#[test]
fn bad_config_names_the_field() {
    let mut c = tiny("greedy", 1);
    c.ftl.victim_policy = "fifo".into();
    let e = Ssd::new(c).err().unwrap();
    assert_eq!(e.field, "ftl.gc_policy");
    assert!(e.reason.contains("greedy"));
    let mut c = tiny("greedy", 1);
    c.logical_pages = 150;
    assert_eq!(Ssd::new(c).err().unwrap().field, "device.op");
    let mut c = tiny("greedy", 1);
    c.ftl.write_buffer_slots = 2;
    assert_eq!(Ssd::new(c).err().unwrap().field, "ftl.write_buffer_kib");
}

#[test]
fn timing_uses_preset_values() {
    let t: Timing = Preset::Samsung970Pro.timing();
    assert_eq!(t.read_ns, 36_013);
}

#[derive(Clone, Debug)]
enum Op {
    Write { lpn: u64, nlb: u32, stream: u8 },
    Read { lpn: u64, nlb: u32 },
    Trim { lpn: u64, nlb: u32 },
    Flush,
    Idle { ns: u64 },
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..64u64, 1..4u32, 0..3u8).prop_map(|(lpn, nlb, stream)| Op::Write { lpn, nlb, stream }),
        3 => (0..64u64, 1..8u32).prop_map(|(lpn, nlb)| Op::Read { lpn, nlb }),
        1 => (0..64u64, 1..6u32).prop_map(|(lpn, nlb)| Op::Trim { lpn, nlb }),
        1 => Just(Op::Flush),
        1 => (0..2_000_000u64).prop_map(|ns| Op::Idle { ns }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Weighted random ops on a tiny device: every valid page has exactly one
    /// owner, pages are conserved, and every read returns the last write.
    #[test]
    fn ftl_keeps_data_and_invariants(
        ops in proptest::collection::vec(op_strategy(), 50..600),
        cb in any::<bool>(),
        streams in 1..3u32,
    ) {
        let policy = if cb { "cost-benefit" } else { "greedy" };
        let mut ssd = Ssd::new(tiny(policy, streams)).unwrap();
        let mut oracle = DataOracle::new(64);
        let mut t = SimTime::ZERO;
        for (n, op) in ops.iter().enumerate() {
            match *op {
                Op::Write { lpn, nlb, stream } => {
                    let nlb = nlb.min((64 - lpn) as u32);
                    t = write(&mut ssd, &mut oracle, t, lpn, nlb, stream, n as u64 + 1);
                }
                Op::Read { lpn, nlb } => {
                    let nlb = nlb.min((64 - lpn) as u32);
                    t = read_check(&mut ssd, &mut oracle, t, lpn, nlb);
                }
                Op::Trim { lpn, nlb } => {
                    let nlb = nlb.min((64 - lpn) as u32);
                    for i in 0..nlb as u64 { oracle.record_trim(Lpn(lpn + i)); }
                    let cmd = Command { id: CommandId(0), op: Opcode::Discard { slba: Lpn(lpn), nlb } };
                    t = ssd.execute(t, &cmd, &mut Vec::new()).at;
                }
                Op::Flush => t = ssd.flush(t),
                Op::Idle { ns } => t = SimTime(t.ns() + ns),
            }
            if n % 50 == 0 {
                prop_assert!(mapping_checker::check(&ssd).is_ok(), "{:?}", mapping_checker::check(&ssd));
            }
        }
        prop_assert!(mapping_checker::check(&ssd).is_ok(), "{:?}", mapping_checker::check(&ssd));
        read_check(&mut ssd, &mut oracle, t, 0, 64);
        prop_assert_eq!(oracle.stats().mismatches_count, 0);
    }
}
