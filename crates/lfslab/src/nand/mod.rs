//! NAND flash: geometry, timings, per-die/per-channel timelines, and the
//! content the cells hold.

mod address;
mod flash_store;
mod geometry;
mod layout;
mod presets;
mod timeline;
mod timing;

pub use address::{DieId, Lpn, Ppn, SuperblockId};
pub use flash_store::FlashStore;
pub use geometry::{Geometry, GeometryError, SLOT_BYTES};
pub use layout::Layout;
pub use presets::{blocks_for_capacity, Preset};
pub use timeline::Timelines;
pub use timing::Timing;
