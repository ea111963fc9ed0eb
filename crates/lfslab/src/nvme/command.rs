//! NVMe-like commands and completions (NVM Command Set 1.0: Read 02h,
//! Write 01h with the Directives stream id, Dataset Management 09h as
//! discard, Flush 00h). Logical blocks are 4 KiB.

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
}

impl Opcode {
    pub fn blocks(&self) -> u32 {
        match *self {
            Opcode::Read { nlb, .. } | Opcode::Write { nlb, .. } | Opcode::Discard { nlb, .. } => nlb,
            Opcode::Flush => 0,
        }
    }
    pub fn is_write(&self) -> bool {
        matches!(self, Opcode::Write { .. })
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
}
