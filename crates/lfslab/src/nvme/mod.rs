//! The host-device interface: commands, completions with flags, and bounded
//! queue pairs.

mod block_device;
mod command;
mod migrate;
mod queue;
mod upcall;

pub use block_device::{BlockDevice, Partition};
pub use command::{Command, CommandId, Completion, CompletionFlags, Opcode, Status};
pub use migrate::{MigrateRequest, MigrateResult, SEGMENT_BLOCKS};
pub use queue::{QueueFull, QueuePair};
pub use upcall::{MigrationRecord, Upcall};
