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
    bg_gc: Option<bool>,
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
    bg_gc: None,
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
            bg_gc: self.bg_gc,
            ..FsSection::default()
        }
    }
}

pub const DESIGNS: [Design; 10] = [
    Design {
        name: "f2fs",
        description: "F2FS as the D2FS artifact runs it (general_resource/f2fs.sh: mkfs.f2fs -s 16, mount -o mode=lfs): append-only logging, 32 MiB sections, FS GC, discards as soon as a checkpoint frees a section (the artifact's F2FS branch), on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(16),
        bg_gc: None,
    },
    Design {
        name: "f2fs-adaptive",
        description: "stock F2FS: adaptive mode (SSR, kernel IPU policy, O_DIRECT overwrites in place), mkfs defaults (2 MiB sections), discards from the idle-time discard thread, on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("adaptive"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(1),
        bg_gc: None,
    },
    Design {
        name: "f2fs-lfs",
        description: "F2FS in LFS mode (append only, no SSR/IPU) with 2 MiB sections on a page-mapping FTL, immediate discard",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(1),
        bg_gc: None,
    },
    Design {
        name: "zf2fs",
        description: "zoned F2FS (LFS, FS GC, 32 MiB sections = zones, freed zones reset at checkpoint) on a ZNS SSD: no device GC of zones, page-mapped conventional metadata area",
        kind: "zf2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
    Design {
        name: "iplfs",
        description: "IPLFS: F2FS with a 2^32-block partition in six log areas, no FS GC, discards at checkpoint, on an Interval Mapping FTL with map-node compaction",
        kind: "iplfs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
    Design {
        name: "d2fs",
        description: "D2FS: F2FS without FS GC on a block-associative FTL with Coupled GC, migration upcalls and virtual overprovisioning (p_regular 1.4)",
        kind: "d2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
    Design {
        name: "f2fs-lfs-s8",
        description: "F2FS as CSGC's baseline (csgc.txt §5.1): LFS mode, 16 MiB sections of 8 segments, background GC off, stock discard (the idle-time discard thread), on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(8),
        bg_gc: Some(false),
    },
    Design {
        name: "csgc",
        description: "CSGC: F2FS (LFS, 8-segment sections = superblocks, background GC off) whose foreground GC offloads each data segment's migration to a computational SSD, two requests in flight, reverse index piggybacked; sFTL device: page-mapped metadata (IPU) partition with device GC, directly mapped main (OPU) partition freed by the host",
        kind: "csgc",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
    Design {
        name: "rmipu",
        description: "RM-IPU: F2FS (LFS mode) whose overwrites go to the hot log with no node update and are remapped back to their original addresses by an address-remap command once durable; appends to the cold log; on a page-mapping FTL with the remap command (0.1 us per entry)",
        kind: "rmipu",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
    Design {
        name: "ext4",
        description: "ext4 (mkfs.ext4 defaults: 4 KiB blocks, flex_bg 16, extents, internal journal sized by mke2fs; mount -o data=ordered,discard): in-place overwrites, delayed allocation with a goal-based contiguous allocator, jbd2 commits every 5 s or on fsync, on a page-mapping FTL; RM-IPU's baseline",
        kind: "ext4",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
    },
];

/// Designs named by the papers that lfslab does not build yet.
pub const PLANNED: [&str; 0] = [];
