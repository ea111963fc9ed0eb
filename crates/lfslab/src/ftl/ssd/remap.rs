//! RM-IPU's address-remap command (rm-ipu.txt §3, "Key Idea": the device
//! changes its L2P "so that the LBAs of old blocks point to the physical
//! pages of new blocks"). Each pair (original LBA, new LBA): the original
//! LBA takes the new LBA's physical page, its own old page is invalidated,
//! and the new LBA is left unmapped ("RM-IPU immediately invalidates newly
//! allocated filesystem blocks ... after AR"). No NAND operation.
//!
//! Cost (§4.1): the firmware's command time plus 0.1 us per mapping entry
//! (`ftl.remap_entry_ns`; the paper keeps the reverse map in NVM), plus
//! 16 B per pair over PCIe. Ordering: RM-IPU issues the remap "once all
//! the blocks are durably written", so the device programs whatever of
//! them is still in its buffer first (a flush) and completes after: the
//! paper is silent on whether host or device waits; lfslab's device does.
//!
//! Only a conventional page-mapping FTL remaps; Interval Mapping and the
//! block-mapped personalities (D2FS, ZNS, sFTL) answer Invalid Opcode.

use crate::ftl::mapping::Mapping;
use super::Ssd;
use crate::nand::Lpn;
use crate::nvme::Status;
use crate::sim::{SimDuration, SimTime};

/// Bytes of one (original, new) pair on the wire: two 8-byte LBAs.
const PAIR_BYTES: u64 = 16;

impl Ssd {
    /// Whether this device implements address remap.
    fn remaps(&self) -> bool {
        self.coupled.is_none() && !self.interval
    }

    /// Execute an address-remap command of `pairs` (original LBA, new LBA)
    /// arriving at `at`; returns its completion instant.
    pub fn remap(&mut self, at: SimTime, pairs: &[(Lpn, Lpn)]) -> Result<SimTime, Status> {
        if !self.remaps() {
            return Err(Status::InvalidOpcode);
        }
        if pairs.is_empty() {
            return Err(Status::InvalidField);
        }
        // Every LBA of the command is distinct, and every new one holds
        // data; the first pair that breaks a rule names the error. Sorting
        // finds whether any LBA repeats; only a command where one does needs
        // the set that tells at which pair.
        let mut lbas: Vec<u64> = pairs.iter().flat_map(|&(o, n)| [o.0, n.0]).collect();
        lbas.sort_unstable();
        let distinct = lbas.windows(2).all(|w| w[0] != w[1]);
        let mut seen = std::collections::BTreeSet::new();
        for &(orig, new) in pairs {
            self.check_range(orig, 1)?;
            self.check_range(new, 1)?;
            if (!distinct && (!seen.insert(orig) || !seen.insert(new))) || self.mapping.get(new).is_none() {
                return Err(Status::InvalidField);
            }
        }
        let at = self.fw_start(at);
        let arrive = at + SimDuration(self.timing.pcie_xfer_ns(PAIR_BYTES * pairs.len() as u64));
        // The new blocks must be durable before the map names them.
        let durable = self.flush_inner(arrive);
        for &(orig, new) in pairs {
            let ppn = self.mapping.unset(new).expect("checked: new LBA is mapped");
            self.p2l[ppn.0 as usize] = orig.0 as u32;
            if let Some(old) = self.mapping.set(orig, ppn) {
                self.invalidate(old, orig);
            }
        }
        self.stats.remap_entries += pairs.len() as u64;
        let done = durable + SimDuration(self.timing.fw_write_ns + self.config.ftl.remap_entry_ns * pairs.len() as u64);
        Ok(self.fw_end(done))
    }
}
