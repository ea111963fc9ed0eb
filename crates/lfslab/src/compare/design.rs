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
    /// The foreground GC engine and its threads (None: the kind's default).
    gc: Option<(&'static str, u32)>,
    /// ScaleLFS techniques switched off (Table 3's ablation steps).
    off: &'static [&'static str],
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
    gc: None,
    off: &[],
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
            gc_engine: self.gc.map(|g| g.0.into()),
            gc_threads: self.gc.map(|g| g.1),
            svp: self.off.contains(&"svp").then_some(false),
            dws: self.off.contains(&"dws").then_some(false),
            lsu: self.off.contains(&"lsu").then_some(false),
            cvs: self.off.contains(&"cvs").then_some(false),
            dpb: self.off.contains(&"dpb").then_some(false),
            ..FsSection::default()
        }
    }
}

pub const DESIGNS: [Design; 19] = [
    Design {
        name: "f2fs",
        description: "F2FS as the D2FS artifact runs it (general_resource/f2fs.sh: mkfs.f2fs -s 16, mount -o mode=lfs): append-only logging, 32 MiB sections, FS GC, discards as soon as a checkpoint frees a section (the artifact's F2FS branch), on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(16),
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "f2fs-adaptive",
        description: "stock F2FS: adaptive mode (SSR, kernel IPU policy, O_DIRECT overwrites in place), mkfs defaults (2 MiB sections), discards from the idle-time discard thread, on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("adaptive"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "f2fs-lfs",
        description: "F2FS in LFS mode (append only, no SSR/IPU) with 2 MiB sections on a page-mapping FTL, immediate discard",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "zf2fs",
        description: "zoned F2FS (LFS, FS GC, 32 MiB sections = zones, freed zones reset at checkpoint) on a ZNS SSD: no device GC of zones, page-mapped conventional metadata area",
        kind: "zf2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "iplfs",
        description: "IPLFS: F2FS with a 2^32-block partition in six log areas, no FS GC, discards at checkpoint, on an Interval Mapping FTL with map-node compaction",
        kind: "iplfs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "d2fs",
        description: "D2FS: F2FS without FS GC on a block-associative FTL with Coupled GC, migration upcalls and virtual overprovisioning (p_regular 1.4)",
        kind: "d2fs",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "f2fs-lfs-s8",
        description: "F2FS as CSGC's baseline (csgc.txt §5.1): LFS mode, 16 MiB sections of 8 segments, background GC off, stock discard (the idle-time discard thread), on a page-mapping FTL",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(8),
        bg_gc: Some(false),
        gc: None,
        off: &[],
    },
    Design {
        name: "csgc",
        description: "CSGC: F2FS (LFS, 8-segment sections = superblocks, background GC off) whose foreground GC offloads each data segment's migration to a computational SSD, two requests in flight, reverse index piggybacked; sFTL device: page-mapped metadata (IPU) partition with device GC, directly mapped main (OPU) partition freed by the host",
        kind: "csgc",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "rmipu",
        description: "RM-IPU: F2FS (LFS mode) whose overwrites go to the hot log with no node update and are remapped back to their original addresses by an address-remap command once durable; appends to the cold log; on a page-mapping FTL with the remap command (0.1 us per entry)",
        kind: "rmipu",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "ext4",
        description: "ext4 (mkfs.ext4 defaults: 4 KiB blocks, flex_bg 16, extents, internal journal sized by mke2fs; mount -o data=ordered,discard): in-place overwrites, delayed allocation with a goal-based contiguous allocator, jbd2 commits every 5 s or on fsync, on a page-mapping FTL; RM-IPU's baseline",
        kind: "ext4",
        mode: None,
        discard: None,
        segs_per_sec: None,
        bg_gc: None,
        gc: None,
        off: &[],
    },
    Design {
        name: "f2fs-m",
        description: "F2FS-M (scalelfs.txt §3.2.2): stock F2FS (adaptive mode, 2 MiB sections) with 32 GC threads that each take gc_lock per victim, so collection stays serial; a page-mapping FTL",
        kind: "f2fs",
        mode: Some("adaptive"),
        discard: Some("idle-batched"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: Some(("multi", 32)),
        off: &[],
    },
    Design {
        name: "f2fs-lm",
        description: "F2FS-LM (scalelfs.txt §3.2.2): F2FS in LFS mode (2 MiB sections) with 32 GC threads serialised on gc_lock",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: Some(("multi", 32)),
        off: &[],
    },
    Design {
        name: "pgc",
        description: "P-GC (ScaleLFS's ref. [35]): F2FS in LFS mode whose foreground GC splits a victim more than half valid among 2 threads, on the shared log, sentry_lock and i_gc_rwsem",
        kind: "f2fs",
        mode: Some("lfs"),
        discard: Some("immediate"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: Some(("pgc", 2)),
        off: &[],
    },
    Design {
        name: "scalelfs",
        description: "ScaleLFS (scalelfs.txt §4): F2FS in LFS mode with 32 dedicated collectors, each with its own victims (concurrent selection), page buffer and write stream, atomic SIT updates and page-level victim protection; a stock SSD",
        kind: "scalelfs",
        mode: None,
        discard: Some("immediate"),
        segs_per_sec: Some(1),
        bg_gc: None,
        gc: None,
        off: &[],
    },
    scalelfs_step(
        "scalelfs-spgc",
        "ScaleLFS Table 3, SPGC: 32 per-core collectors on F2FS's shared resources (i_gc_rwsem, one GC log under curseg_mutex, sentry_lock, victim scans under seglist_lock, the page cache)",
        &["svp", "dws", "lsu", "cvs", "dpb"],
    ),
    scalelfs_step("scalelfs-svp", "ScaleLFS Table 3, SPGC + SVP (page-level victim protection)", &["dws", "lsu", "cvs", "dpb"]),
    scalelfs_step("scalelfs-dws", "ScaleLFS Table 3, + DWS (a write stream per collector)", &["lsu", "cvs", "dpb"]),
    scalelfs_step("scalelfs-lsu", "ScaleLFS Table 3, + LSU (atomic SIT updates, no sentry_lock)", &["cvs", "dpb"]),
    scalelfs_step("scalelfs-cvs", "ScaleLFS Table 3, + CVS (concurrent victim selection); + DPB is the full scalelfs design", &["dpb"]),
];

/// A step of ScaleLFS's Table 3: the scalelfs design with techniques off.
const fn scalelfs_step(name: &'static str, description: &'static str, off: &'static [&'static str]) -> Design {
    Design { name, description, kind: "scalelfs", mode: None, discard: Some("immediate"), segs_per_sec: Some(1), bg_gc: None, gc: None, off }
}

/// Designs named by the papers that lfslab does not build yet.
pub const PLANNED: [&str; 0] = [];
