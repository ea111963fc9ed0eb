//! Full consistency check of an `Ssd` (O(device size); for tests and
//! `--check` runs):
//! * mapping consistency: every mapped lpn's slot names that lpn as owner;
//! * one owner per valid physical page: every owned slot is mapped back;
//! * block-associative mapping (D2FS): see `Ssd::check_coupled`;
//! * page conservation: per superblock, owners counted == valid count, and
//!   free superblocks hold no data at all.

use super::block_pool::SbState;
use super::ssd::Ssd;
use crate::nand::{Ppn, SuperblockId};

pub fn check(ssd: &Ssd) -> Result<(), String> {
    let geo = ssd.geometry();
    let layout = crate::nand::Layout::new(geo);
    let map = ssd.mapping();
    let mut mapped = 0u64;
    let mut err = None;
    map.for_each_mapped(&mut |lpn, ppn| {
        mapped += 1;
        if err.is_none() {
            if ssd.p2l_owner(ppn) != Some(lpn) {
                err = Some(format!("{lpn} maps to {ppn} whose owner is {:?}", ssd.p2l_owner(ppn)));
            } else if ssd.store().read(ppn).is_none() {
                err = Some(format!("{lpn} maps to erased {ppn}"));
            }
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let sps = geo.slots_per_superblock() as u64;
    let mut owned_total = 0u64;
    // Block-associative main-area pages (D2FS) are checked by `check_coupled`.
    let mut main_owned = 0u64;
    for sb in 0..geo.superblocks() {
        let id = SuperblockId(sb);
        let info = *ssd.pool().info(id);
        let start = layout.superblock_start(id).0;
        let mut owned = 0u32;
        let mut programmed = 0u32;
        for p in start..start + sps {
            let ppn = Ppn(p);
            if ssd.store().read(ppn).is_some() {
                programmed += 1;
            }
            if let Some(lpn) = ssd.p2l_owner(ppn) {
                owned += 1;
                if ssd.coupled_main(lpn) {
                    main_owned += 1;
                    continue;
                }
                if map.get(lpn) != Some(ppn) {
                    return Err(format!("{ppn} claims {lpn}, which maps to {:?}", map.get(lpn)));
                }
            }
        }
        if owned != info.valid_slots {
            return Err(format!("{id}: {owned} owned slots but valid count {}", info.valid_slots));
        }
        if info.state == SbState::Free && programmed != 0 {
            return Err(format!("free {id} holds {programmed} programmed slots"));
        }
        owned_total += owned as u64;
    }
    ssd.check_coupled()?;
    if owned_total - main_owned != mapped {
        return Err(format!("{owned_total} owned physical slots but {mapped} mapped logical pages"));
    }
    Ok(())
}
