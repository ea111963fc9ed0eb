//! RM-IPU's address-remap command on the page-mapping FTL (rm-ipu.txt §3).

use super::*;
use crate::nand::Lpn;
use crate::nvme::{BlockDevice, Status};
use crate::oracle::DataTag;
use crate::sim::SimTime;

fn ssd() -> Ssd {
    Ssd::new(super::ssd_tests::tiny("greedy", 1)).unwrap()
}

fn write(ssd: &mut Ssd, lba: u64, tag: u64) -> SimTime {
    BlockDevice::write(ssd, SimTime::ZERO, Lpn(lba), &[DataTag(tag).block(0)], 0)
}

#[test]
fn the_original_lba_takes_the_new_blocks_page() {
    let mut d = ssd();
    write(&mut d, 5, 1);
    write(&mut d, 6, 2);
    write(&mut d, 40, 3);
    let t = write(&mut d, 41, 4);
    let valid = |d: &Ssd| (0..d.geometry().superblocks()).map(|s| d.pool().info(crate::nand::SuperblockId(s)).valid_slots).sum::<u32>();
    let valid_before = valid(&d);
    let done = BlockDevice::remap(&mut d, t, &[(Lpn(5), Lpn(40)), (Lpn(6), Lpn(41))]).unwrap();
    assert_eq!(d.peek_direct(Lpn(5)), Some(DataTag(3).block(0)), "5 now reads what was written at 40");
    assert_eq!(d.peek_direct(Lpn(6)), Some(DataTag(4).block(0)));
    assert_eq!(d.peek_direct(Lpn(40)), None, "the new LBA is left unmapped");
    assert_eq!(d.peek_direct(Lpn(41)), None);
    // The originals' old pages died: two fewer valid pages, no NAND write.
    assert_eq!(valid(&d), valid_before - 2);
    assert_eq!(d.stats().remap_entries, 2);
    // Completion waits for the new pages' programs, then 0.1 us per entry.
    assert!(done.ns() >= t.ns() + 2 * 100);
    mapping_checker::check(&d).unwrap();
}

#[test]
fn bad_pairs_are_refused_before_anything_changes() {
    let mut d = ssd();
    write(&mut d, 5, 1);
    write(&mut d, 40, 3);
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &[(Lpn(5), Lpn(41))]).unwrap_err(), Status::InvalidField, "41 holds nothing");
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &[(Lpn(5), Lpn(40)), (Lpn(6), Lpn(40))]).unwrap_err(), Status::InvalidField);
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &[(Lpn(5), Lpn(64))]).unwrap_err(), Status::LbaOutOfRange);
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &[]).unwrap_err(), Status::InvalidField);
    // The first pair that breaks a rule names the error: a repeat before an
    // LBA out of range, an LBA out of range before a repeat, a pair naming
    // one LBA twice.
    let dup_then_range = [(Lpn(5), Lpn(40)), (Lpn(6), Lpn(40)), (Lpn(7), Lpn(64))];
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &dup_then_range).unwrap_err(), Status::InvalidField);
    let range_then_dup = [(Lpn(5), Lpn(64)), (Lpn(6), Lpn(40)), (Lpn(7), Lpn(40))];
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &range_then_dup).unwrap_err(), Status::LbaOutOfRange);
    assert_eq!(BlockDevice::remap(&mut d, SimTime::ZERO, &[(Lpn(40), Lpn(40))]).unwrap_err(), Status::InvalidField);
    assert_eq!(d.peek_direct(Lpn(5)), Some(DataTag(1).block(0)), "nothing moved");
    assert_eq!(d.stats().remap_entries, 0);
}

#[test]
fn only_a_page_mapping_ftl_remaps() {
    let mut cfg = super::ssd_tests::tiny("greedy", 1);
    cfg.ftl.mapping = "interval".into();
    let mut interval = Ssd::new(cfg).unwrap();
    write(&mut interval, 40, 1);
    assert_eq!(BlockDevice::remap(&mut interval, SimTime::ZERO, &[(Lpn(5), Lpn(40))]).unwrap_err(), Status::InvalidOpcode);
}
