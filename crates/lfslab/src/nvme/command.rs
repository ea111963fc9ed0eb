//! NVMe-like commands and completions (NVM Command Set 1.0: Read 02h,
//! Write 01h with the Directives stream id, Dataset Management 09h as
//! discard, Flush 00h) and the Zoned Namespace Command Set 1.1 (Zone Append
//! 7Dh, Zone Management Send 79h with Reset Zone). Logical blocks are 4 KiB.

use crate::nand::Lpn;
use crate::oracle::DataTag;
use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommandId(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    Read { slba: Lpn, nlb: u32 },
    /// `stream` is the NVMe Streams directive id (0 = none); `data` names the
    /// content so each block's fingerprint can be derived.
    Write { slba: Lpn, nlb: u32, stream: u8, data: DataTag },
    /// Dataset Management with the deallocate attribute (TRIM).
    Discard { slba: Lpn, nlb: u32 },
    Flush,
    /// ZNS Zone Append: the device places the data at the zone's write
    /// pointer and returns the LBA it chose in the completion.
    ZoneAppend { zslba: Lpn, nlb: u32, stream: u8, data: DataTag },
    /// ZNS Zone Management Send, Reset Zone: write pointer back to the start.
    ZoneReset { zslba: Lpn },
}

impl Opcode {
    pub fn blocks(&self) -> u32 {
        match *self {
            Opcode::Read { nlb, .. } | Opcode::Write { nlb, .. } | Opcode::Discard { nlb, .. } | Opcode::ZoneAppend { nlb, .. } => nlb,
            Opcode::Flush | Opcode::ZoneReset { .. } => 0,
        }
    }
    pub fn is_write(&self) -> bool {
        matches!(self, Opcode::Write { .. } | Opcode::ZoneAppend { .. })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub id: CommandId,
    pub op: Opcode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Success,
    /// LBA out of range (NVMe status 80h).
    LbaOutOfRange,
    InvalidField,
    /// ZNS: a write not at the zone's write pointer (Zone Invalid Write, BCh).
    ZoneInvalidWrite,
    /// ZNS: the zone is full (Zone Is Full, B9h).
    ZoneFull,
    /// ZNS: opening the zone would exceed the active zone limit (Too Many Active Zones, BDh).
    TooManyActiveZones,
    /// ZNS: a zone command on a conventional (non-zoned) LBA or device (Invalid Field).
    NotZoned,
    /// A command this device does not implement (Invalid Command Opcode, 01h):
    /// CSGC's migrate on anything but an sFTL device.
    InvalidOpcode,
}

/// Completion queue entry flags. Bit 0 is reserved for D2FS's UPCALL flag
/// (d2fs.txt §5.2, Upcall Piggybacking) once that lands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompletionFlags(pub u16);

impl CompletionFlags {
    pub const UPCALL: u16 = 1 << 0;
    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub id: CommandId,
    pub status: Status,
    pub flags: CompletionFlags,
    /// When the device posts the completion.
    pub at: SimTime,
    /// Zone Append: the LBA where the data landed.
    pub assigned: Option<Lpn>,
}
