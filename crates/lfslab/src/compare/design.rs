//! The designs a comparison can run: a filesystem and its FTL, as the
//! `[fs]` table that selects them.

use crate::scenario::FsSection;

#[derive(Debug)]
pub struct Design {
    pub name: &'static str,
    pub description: &'static str,
    kind: &'static str,
    mode: Option<&'static str>,
    discard: Option<&'static str>,
    segs_per_sec: Option<u32>,
}

/// Not a design: the workload's scenario as written, its own `[fs]` table
/// (or none, a raw device) kept (`lfslab reproduce d2fs-fig1`).
pub const AS_GIVEN: Design = Design {
    name: "as-given",
    description: "the stack the workload's scenario file gives (its own [fs] table, or the raw device)",
    kind: "",
    mode: None,
    discard: None,
    segs_per_sec: None,
};

impl Design {
    /// Whether the workload keeps its own stack.
    pub fn is_as_given(&self) -> bool {
        self.kind.is_empty()
    }

    pub fn fs_section(&self) -> FsSection {
        FsSection {
            kind: Some(self.kind.into()),
            mode: self.mode.map(Into::into),
            discard: self.discard.map(Into::into),
            segs_per_sec: self.segs_per_sec,
            ..FsSection::default()
        }
    }
}

pub const DESIGNS: [Design; 6] = [
    Design {
        name: "f2fs",
        description: "F2FS as the D2FS artifact runs it (general_resource/f2fs.sh: mkfs.f2fs -s 16, mount -o mode=lfs): append-only logging, 32 MiB sections, FS GC, discards as soon as a checkpoint frees a section (the artifact's F2FS branch), on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(16),
    },
    Design {
        name: "f2fs-adaptive",
        description: "stock F2FS: adaptive mode (SSR, kernel IPU policy, O_DIRECT overwrites in place), mkfs defaults (2 MiB sections), discards from the idle-time discard thread, on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("adaptive"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(1),
    },
    Design {
        name: "f2fs-lfs",
        description: "F2FS in LFS mode (append only, no SSR/IPU) with 2 MiB sections on a page-mapping FTL, immediate discard",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(1),
    },
    Design {
        name: "zf2fs",
        description: "zoned F2FS (LFS, FS GC, 32 MiB sections = zones, freed zones reset at checkpoint) on a ZNS SSD: no device GC of zones, page-mapped conventional metadata area",
        kind: "zf2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
    },
    Design {
        name: "iplfs",
        description: "IPLFS: F2FS with a 2^32-block partition in six log areas, no FS GC, discards at checkpoint, on an Interval Mapping FTL with map-node compaction",
        kind: "iplfs",
        mode: None,
        discard: None,
        segs_per_sec: None,
    },
    Design {
        name: "d2fs",
        description: "D2FS: F2FS without FS GC on a block-associative FTL with Coupled GC, migration upcalls and virtual overprovisioning (p_regular 1.4)",
        kind: "d2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
    },
];

/// Designs named by the papers that lfslab does not build yet.
pub const PLANNED: [&str; 0] = [];
