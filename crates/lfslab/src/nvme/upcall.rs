//! The migration upcall's records (D2FS §5.2, Migration Upcall): what the
//! device tells the host about the pages Coupled GC remapped. They are
//! part of the host-device interface, so the filesystem reads them from
//! here and never from the FTL that produces them (`ftl::migration`).

use crate::nand::Lpn;

/// One remapped page: its old and new LBA, numbered in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MigrationRecord {
    pub id: u64,
    pub old: Lpn,
    pub new: Lpn,
}

/// One migration upcall: an id and up to `records_per_upcall` records, in
/// creation order (D2FS §5.2: up to 256).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Upcall {
    pub id: u64,
    pub records: Vec<MigrationRecord>,
}
