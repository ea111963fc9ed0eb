//! The host-device interface: commands, completions with flags, and bounded
//! queue pairs.

mod command;
mod queue;

pub use command::{Command, CommandId, Completion, CompletionFlags, Opcode, Status};
pub use queue::{QueueFull, QueuePair};
