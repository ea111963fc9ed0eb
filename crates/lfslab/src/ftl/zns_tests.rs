//! The ZNS mode of `Ssd` (NVMe ZNS 1.1): writes only at the write pointer,
//! Zone Append, Reset Zone, the active zone limit, and no device GC of zones.

use super::*;
use crate::nand::Lpn;
use crate::nvme::{Command, CommandId, Opcode, Status};
use crate::oracle::DataTag;
use crate::sim::SimTime;

const ZONE: u64 = 16;
const CONV: u64 = 16;

/// The tiny device: a 16-block conventional area and 3 zones of 16 blocks.
fn zns(max_active: u32) -> Ssd {
    let cfg = super::ssd_tests::tiny("greedy", 1);
    let cc = CoupledConfig {
        partition_blocks: 64,
        main_start: CONV,
        gc_region_start: 64,
        records_per_upcall: 1,
        personality: crate::ftl::MainArea::Zns,
        max_active_zones: max_active,
    };
    Ssd::new_coupled(cfg, cc).unwrap()
}

fn exec(ssd: &mut Ssd, op: Opcode) -> crate::nvme::Completion {
    ssd.execute(SimTime::ZERO, &Command { id: CommandId(0), op }, &mut Vec::new())
}

fn write(ssd: &mut Ssd, lba: u64, nlb: u32, tag: u64) -> Status {
    exec(ssd, Opcode::Write { slba: Lpn(lba), nlb, stream: 0, data: DataTag(tag) }).status
}

#[test]
fn writes_off_the_write_pointer_are_rejected() {
    let mut ssd = zns(2);
    let z = CONV;
    assert_eq!(write(&mut ssd, z + 1, 1, 1), Status::ZoneInvalidWrite, "not at the write pointer");
    assert_eq!(write(&mut ssd, z, 4, 1), Status::Success);
    assert_eq!(write(&mut ssd, z + 2, 1, 2), Status::ZoneInvalidWrite, "behind the write pointer");
    assert_eq!(write(&mut ssd, z + 4, 13, 2), Status::ZoneInvalidWrite, "across the zone end");
    assert_eq!(write(&mut ssd, z + 4, 12, 2), Status::Success);
    assert_eq!(write(&mut ssd, z, 1, 3), Status::ZoneFull);
    // The conventional area takes writes anywhere, repeatedly.
    assert_eq!(write(&mut ssd, 3, 1, 4), Status::Success);
    assert_eq!(write(&mut ssd, 3, 1, 5), Status::Success);
    mapping_checker::check(&ssd).unwrap();
}

#[test]
fn zone_append_places_at_the_write_pointer() {
    let mut ssd = zns(2);
    let z = CONV + ZONE;
    let a = exec(&mut ssd, Opcode::ZoneAppend { zslba: Lpn(z), nlb: 3, stream: 0, data: DataTag(7) });
    let b = exec(&mut ssd, Opcode::ZoneAppend { zslba: Lpn(z), nlb: 2, stream: 0, data: DataTag(8) });
    assert_eq!((a.status, a.assigned), (Status::Success, Some(Lpn(z))));
    assert_eq!(b.assigned, Some(Lpn(z + 3)));
    let mut data = Vec::new();
    ssd.execute(SimTime::ZERO, &Command { id: CommandId(1), op: Opcode::Read { slba: Lpn(z + 3), nlb: 2 } }, &mut data);
    assert_eq!(data, vec![Some(DataTag(8).block(0)), Some(DataTag(8).block(1))]);
    let bad = exec(&mut ssd, Opcode::ZoneAppend { zslba: Lpn(z + 1), nlb: 1, stream: 0, data: DataTag(9) });
    assert_eq!(bad.status, Status::InvalidField, "append names a zone start");
    let conv = exec(&mut ssd, Opcode::ZoneAppend { zslba: Lpn(0), nlb: 1, stream: 0, data: DataTag(9) });
    assert_eq!(conv.status, Status::NotZoned);
}

#[test]
fn reset_empties_a_zone_and_frees_its_flash() {
    let mut ssd = zns(3);
    for z in 0..3 {
        assert_eq!(write(&mut ssd, CONV + z * ZONE, ZONE as u32, z + 1), Status::Success);
    }
    let free = ssd.free_superblocks();
    let r = exec(&mut ssd, Opcode::ZoneReset { zslba: Lpn(CONV + ZONE) });
    assert_eq!(r.status, Status::Success);
    assert!(r.at > SimTime::ZERO, "a reset erases");
    assert_eq!(ssd.free_superblocks(), free + 1);
    let mut data = Vec::new();
    ssd.execute(SimTime::ZERO, &Command { id: CommandId(1), op: Opcode::Read { slba: Lpn(CONV + ZONE), nlb: 1 } }, &mut data);
    assert_eq!(data, vec![None]);
    assert_eq!(write(&mut ssd, CONV + ZONE, 1, 9), Status::Success, "writable from the start again");
    assert_eq!(ssd.stats().gc_count, 0, "no device GC in a ZNS device");
    assert_eq!(ssd.coupled_stats().unwrap().zone_resets, 1);
    mapping_checker::check(&ssd).unwrap();
}

#[test]
fn active_zone_limit_is_enforced() {
    let mut ssd = zns(2);
    assert_eq!(write(&mut ssd, CONV, 1, 1), Status::Success);
    assert_eq!(write(&mut ssd, CONV + ZONE, 1, 2), Status::Success);
    assert_eq!(write(&mut ssd, CONV + 2 * ZONE, 1, 3), Status::TooManyActiveZones);
    // Filling a zone makes it inactive (full), so another may open.
    assert_eq!(write(&mut ssd, CONV + 1, ZONE as u32 - 1, 4), Status::Success);
    assert_eq!(write(&mut ssd, CONV + 2 * ZONE, 1, 5), Status::Success);
}

#[test]
#[should_panic(expected = "rejected: ZoneInvalidWrite")]
fn a_filesystem_writing_off_the_pointer_is_a_bug() {
    let mut ssd = zns(2);
    ssd.write(SimTime::ZERO, Lpn(CONV + 5), 1, 0, |_| DataTag(1).block(0));
}
