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
}

impl Design {
    pub fn fs_section(&self) -> FsSection {
        FsSection {
            kind: Some(self.kind.into()),
            mode: self.mode.map(Into::into),
            discard: self.discard.map(Into::into),
            ..FsSection::default()
        }
    }
}

pub const DESIGNS: [Design; 5] = [
    Design {
        name: "f2fs",
        description: "F2FS (adaptive: SSR + IPU policy, 2 MiB sections) on a page-mapping FTL; discards as soon as a checkpoint frees a section, as the D2FS paper's F2FS branch does",
        kind: "f2fs",
        mode: None,
        discard: Some("immediate"),
    },
    Design {
        name: "f2fs-lfs",
        description: "F2FS in LFS mode (append only, no SSR/IPU) on a page-mapping FTL, immediate discard",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
    },
    Design {
        name: "zf2fs",
        description: "zoned F2FS (LFS, FS GC, 32 MiB sections = zones, freed zones reset at checkpoint) on a ZNS SSD: no device GC of zones, page-mapped conventional metadata area",
        kind: "zf2fs",
        mode: None,
        discard: None,
    },
    Design {
        name: "iplfs",
        description: "IPLFS: F2FS with a 2^32-block partition in six log areas, no FS GC, discards at checkpoint, on an Interval Mapping FTL with map-node compaction",
        kind: "iplfs",
        mode: None,
        discard: None,
    },
    Design {
        name: "d2fs",
        description: "D2FS: F2FS without FS GC on a block-associative FTL with Coupled GC, migration upcalls and virtual overprovisioning (p_regular 1.4)",
        kind: "d2fs",
        mode: None,
        discard: None,
    },
];

/// Designs named by the papers that lfslab does not build yet.
pub const PLANNED: [&str; 0] = [];
