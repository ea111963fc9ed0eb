//! The sFTL personality (csgc.txt §3.3) and its migrate command (§3.2).

use super::*;
use crate::nand::{Geometry, Lpn, Preset};
use crate::nvme::{BlockDevice, MigrateRequest, Status};
use crate::oracle::DataTag;
use crate::sim::SimTime;

const SEC: u64 = 512;
const META: u64 = 512;

/// Two dies of 256 4 KiB pages per block: a superblock is one 512-block
/// segment-section. A metadata area of one section and 4 main sections.
fn sftl(csd: Option<CsdConfig>) -> Ssd {
    let geometry = Geometry { channels: 2, chips_per_channel: 1, dies_per_chip: 1, planes_per_die: 1, blocks_per_plane: 10, pages_per_block: 256, page_bytes: 4096 };
    let cfg = SsdConfig {
        geometry,
        timing: Preset::Femu.timing(),
        logical_pages: META + 4 * SEC,
        ftl: FtlConfig {
            mapping: "page".into(),
            victim_policy: "greedy".into(),
            gc_threshold_superblocks: 2,
            gc_background_superblocks: 0,
            write_buffer_slots: 64,
            streams: 1,
            map_segment_blocks: crate::ftl::interval_mapping::MIN_SEGMENT_BLOCKS,
            remap_entry_ns: 100,
        },
    };
    let cc = CoupledConfig {
        partition_blocks: META + 4 * SEC,
        main_start: META,
        gc_region_start: META + 4 * SEC,
        records_per_upcall: 1,
        personality: MainArea::Sftl,
        max_active_zones: 0,
    };
    let ssd = Ssd::new_coupled(cfg, cc).unwrap();
    match csd {
        Some(c) => ssd.with_executor(c).unwrap(),
        None => ssd,
    }
}

fn fill_section(ssd: &mut Ssd, sec: u64, tag: u64) {
    let content: Vec<_> = (0..SEC).map(|i| DataTag(tag).block(i)).collect();
    BlockDevice::write(ssd, SimTime::ZERO, Lpn(META + sec * SEC), &content, 0);
}

fn request(valid: &[u32], dest: Lpn) -> MigrateRequest {
    let mut bits = [0u64; 8];
    for &k in valid {
        bits[(k / 64) as usize] |= 1 << (k % 64);
    }
    MigrateRequest {
        segment: Lpn(META),
        valid: bits,
        dest: vec![(dest, valid.len() as u32)],
        rev_index: valid.iter().map(|&k| 1000 + k as u64).collect(),
        index_blocks: vec![],
        stream: 0,
    }
}

#[test]
fn migrate_moves_valid_blocks_to_their_destinations() {
    let mut ssd = sftl(Some(CsdConfig::default()));
    fill_section(&mut ssd, 0, 7);
    // The host invalidated everything but blocks 3, 4, 5 and 200.
    let dead: Vec<u64> = (0..SEC).filter(|k| ![3, 4, 5, 200].contains(k)).collect();
    for k in dead {
        ssd.discard_blocks(SimTime::ZERO, Lpn(META + k), 1);
    }
    let dest = Lpn(META + 2 * SEC);
    let (done, res) = ssd.migrate(SimTime::ZERO, &request(&[3, 4, 5, 200], dest)).unwrap();
    assert!(done > SimTime::ZERO);
    assert_eq!(res.updates, vec![(1003, dest), (1004, Lpn(dest.0 + 1)), (1005, Lpn(dest.0 + 2)), (1200, Lpn(dest.0 + 3))]);
    for (i, k) in [3u64, 4, 5, 200].iter().enumerate() {
        assert_eq!(ssd.peek_direct(Lpn(dest.0 + i as u64)), Some(DataTag(7).block(*k)), "block {k} moved");
        assert_eq!(ssd.peek_direct(Lpn(META + k)), Some(DataTag(7).block(*k)), "source {k} kept until its section is reset");
    }
    let s = ssd.csd_stats().unwrap();
    assert_eq!((s.requests, s.blocks_migrated), (1, 4));
    // 3, 4, 5 are consecutive: one coalesced read, then 200 alone.
    assert_eq!((s.read_ops, s.block_reads), (2, 4));
    // The host frees the emptied section; the device erases it, no device GC of main sections.
    BlockDevice::reset_zone(&mut ssd, done, Lpn(META), SEC as u32);
    assert_eq!(ssd.peek_direct(Lpn(META + 3)), None, "the reset erased the sources");
    assert_eq!(ssd.peek_direct(dest), Some(DataTag(7).block(3)));
    assert_eq!(ssd.stats().gc_count, 0);
    mapping_checker::check(&ssd).unwrap();
}

#[test]
fn coalescing_window_of_one_submits_each_block() {
    let mut ssd = sftl(Some(CsdConfig { coalesce_window: 1, ..CsdConfig::default() }));
    fill_section(&mut ssd, 0, 1);
    let (_, res) = ssd.migrate(SimTime::ZERO, &request(&[0, 1, 2, 3], Lpn(META + SEC))).unwrap();
    assert_eq!(res.updates.len(), 4);
    let s = ssd.csd_stats().unwrap();
    assert_eq!((s.read_ops, s.block_reads), (4, 4));
}

#[test]
fn a_request_the_device_disagrees_with_is_rejected() {
    let mut ssd = sftl(Some(CsdConfig::default()));
    fill_section(&mut ssd, 0, 1);
    ssd.discard_blocks(SimTime::ZERO, Lpn(META + 9), 1);
    // Block 9 is not valid on the device.
    assert_eq!(ssd.migrate(SimTime::ZERO, &request(&[8, 9], Lpn(META + SEC))).unwrap_err(), Status::InvalidField);
    // Destinations must cover the valid blocks exactly.
    let mut r = request(&[8], Lpn(META + SEC));
    r.dest[0].1 = 2;
    assert_eq!(ssd.migrate(SimTime::ZERO, &r).unwrap_err(), Status::InvalidField);
    // Not a segment boundary.
    let mut r = request(&[8], Lpn(META + SEC));
    r.segment = Lpn(META + 1);
    assert_eq!(ssd.migrate(SimTime::ZERO, &r).unwrap_err(), Status::InvalidField);
    assert_eq!(ssd.csd_stats().unwrap().requests, 0);
}

#[test]
fn only_an_sftl_device_with_an_executor_migrates() {
    let mut plain = Ssd::new(super::ssd_tests::tiny("greedy", 1)).unwrap();
    assert_eq!(BlockDevice::migrate(&mut plain, SimTime::ZERO, &request(&[0], Lpn(1))).unwrap_err(), Status::InvalidOpcode);
    let mut no_exec = sftl(None);
    fill_section(&mut no_exec, 0, 1);
    assert_eq!(no_exec.migrate(SimTime::ZERO, &request(&[0], Lpn(META + SEC))).unwrap_err(), Status::InvalidOpcode);
    assert!(plain.with_executor(CsdConfig::default()).is_err(), "the executor needs an sFTL device");
}

#[test]
fn without_piggybacking_the_executor_reads_index_blocks() {
    let mut ssd = sftl(Some(CsdConfig::default()));
    fill_section(&mut ssd, 0, 1);
    BlockDevice::write(&mut ssd, SimTime::ZERO, Lpn(10), &[DataTag(9).block(0)], 0);
    let mut r = request(&[0, 1], Lpn(META + SEC));
    r.index_blocks = vec![Lpn(10)];
    let (t_with_reads, _) = ssd.migrate(SimTime::ZERO, &r).unwrap();
    assert_eq!(ssd.csd_stats().unwrap().index_block_reads, 1);
    assert!(t_with_reads > SimTime::ZERO);
}
