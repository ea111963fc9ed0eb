//! Filebench personalities (filebench's workloads/*.f): filesets, threads
//! that loop over flowops, run for a time. The personalities and their
//! defaults are filebench's own (fileserver.f, varmail.f, webserver.f,
//! oltp.f); a scenario picks one and overrides its `$variables`.
//!
//! Simplified, and said so in reports: file sizes are drawn in bytes but
//! files hold whole 4 KiB blocks; an append rewrites the partial last block
//! without reading it first; the directory tree is balanced with
//! `meandirwidth` entries per directory (filebench draws widths from a
//! gamma distribution around it); picks are uniform among eligible entries.

/// The run note of a filebench run.
pub const SIMPLIFICATION: &str = "filebench: file sizes are drawn in bytes but files hold whole 4 KiB blocks; an append rewrites the partial last block without reading it; directories are a balanced tree of meandirwidth entries (filebench draws widths); picks are uniform among eligible entries; the fileset is created with direct writes and a checkpoint";

/// The run note of an oltp run, beside `SIMPLIFICATION`.
pub const OLTP_SIMPLIFICATION: &str = "filebench oltp: I/O smaller than 4 KiB (iosize 2k) moves one whole 4 KiB block; a dsync write is a write then fdatasync; the asynchronous writes of one thread are served one after another (glibc's POSIX AIO runs a file's requests in order); hog costs an assumed 0.5 ns per iteration; every data file has filesize bytes";

mod fileset;
mod runner;

pub use fileset::{populate, Fileset};
pub use runner::{run, FilebenchOutcome, FlowopResult};

use crate::sim::SimDuration;

/// One fileset (`define fileset`).
#[derive(Clone, Debug, PartialEq)]
pub struct FilesetSpec {
    pub name: String,
    pub entries: u64,
    pub dirwidth: u64,
    /// Mean file size in bytes; sizes are gamma distributed around it
    /// (`cvar-gamma`, shape `gamma`), or all equal when `gamma` is 0.
    pub mean_size: u64,
    pub gamma: f64,
    /// Percent of entries created and written before the run (`prealloc`).
    pub prealloc_pct: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowopKind {
    CreateFile,
    WriteWholeFile,
    AppendFileRand,
    OpenFile,
    CloseFile,
    ReadWholeFile,
    DeleteFile,
    StatFile,
    Fsync,
    /// A read of `iosize` at a random offset of the next file (`read ... random, opennext`).
    Read,
    /// An asynchronous write of `iosize` at a random offset, `iters` times (`aiowrite`).
    AioWrite,
    /// Wait for the thread's asynchronous writes (`aiowait`).
    AioWait,
    /// Burn CPU for `value` loop iterations (`hog`).
    Hog,
    /// Block until `value` posts arrived (`semblock`, with `highwater`).
    SemBlock,
    /// Post `value` to every instance of the `target` semblock (`sempost`).
    SemPost,
}

impl FlowopKind {
    pub fn name(self) -> &'static str {
        match self {
            FlowopKind::CreateFile => "createfile",
            FlowopKind::WriteWholeFile => "writewholefile",
            FlowopKind::AppendFileRand => "appendfilerand",
            FlowopKind::OpenFile => "openfile",
            FlowopKind::CloseFile => "closefile",
            FlowopKind::ReadWholeFile => "readwholefile",
            FlowopKind::DeleteFile => "deletefile",
            FlowopKind::StatFile => "statfile",
            FlowopKind::Fsync => "fsync",
            FlowopKind::Read => "read",
            FlowopKind::AioWrite => "aiowrite",
            FlowopKind::AioWait => "aiowait",
            FlowopKind::Hog => "hog",
            FlowopKind::SemBlock => "semblock",
            FlowopKind::SemPost => "sempost",
        }
    }
}

/// One `flowop` line of a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Flowop {
    pub name: String,
    pub kind: FlowopKind,
    /// Index into `FilebenchSpec::filesets` (flowops that pick a file).
    pub fileset: usize,
    pub fd: u8,
    pub iosize: u64,
    /// aiowrite: repetitions per pass (`iters`); O_DSYNC writes (`dsync`).
    pub iters: u32,
    pub dsync: bool,
    /// hog iterations; semblock/sempost count.
    pub value: u64,
    /// semblock: the posts allowed ahead of it (`highwater`).
    pub highwater: u64,
    /// sempost: index (in `FilebenchSpec::flowops`) of the semblock it posts
    /// to, and whether the poster waits for the highwater (`blocking`).
    pub target: usize,
    pub blocking: bool,
}

/// One `define process`: `instances` threads looping over `flowops[ops]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadGroup {
    pub name: String,
    pub instances: u32,
    pub ops: std::ops::Range<usize>,
}

/// A resolved filebench workload: groups of identical threads (one group
/// for every personality but oltp), each looping over its flowops.
#[derive(Clone, Debug, PartialEq)]
pub struct FilebenchSpec {
    pub personality: String,
    pub filesets: Vec<FilesetSpec>,
    pub groups: Vec<ThreadGroup>,
    /// Every group's flowops, group after group.
    pub flowops: Vec<Flowop>,
    pub runtime: SimDuration,
    /// `directio`: O_DIRECT instead of the page cache (filebench default off).
    pub directio: bool,
}

/// The `$variables` of a personality, with filebench's defaults; a
/// scenario's `[filebench]` table overrides them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilebenchVars {
    /// fileserver, varmail, webserver or oltp. Defaults of the others are
    /// the personality's: fileserver 10000 files of 128k in directories of
    /// 20, 50 threads; varmail 1000 files of 16k in one directory, 16
    /// threads; webserver 1000 files of 16k read-only plus one log file, 100
    /// threads; all three: iosize 1m, meanappendsize 16k, runtime 60 s,
    /// prealloc 80 (webserver 100). oltp: 10 data files and 1 log file of
    /// 10m, a log writer, 10 database writers and 200 shadow readers, iosize
    /// 2k, runtime 60 s.
    pub personality: String,
    /// `$nfiles`: entries of the main fileset.
    pub nfiles: Option<u64>,
    /// `$meandirwidth`: entries per directory.
    pub meandirwidth: Option<u64>,
    /// `$filesize`: mean file size ("128k"), gamma distributed with shape 1.5.
    pub filesize: Option<String>,
    /// `$nthreads`.
    pub nthreads: Option<u32>,
    /// `$iosize`: I/O size of whole-file reads and writes.
    pub iosize: Option<String>,
    /// `$meanappendsize`: appendfilerand appends 1 byte to this many.
    pub meanappendsize: Option<String>,
    /// `$runtime` in seconds (`run 60`).
    pub runtime: Option<f64>,
    /// Percent of the files created before the run (`prealloc`).
    pub prealloc: Option<u32>,
    /// O_DIRECT I/O (filebench `directio`).
    pub directio: Option<bool>,
    /// oltp `$nshadows`: shadow reader threads (default 200).
    pub nshadows: Option<u32>,
    /// oltp `$ndbwriters`: database writer threads (default 10).
    pub ndbwriters: Option<u32>,
    /// oltp `$usermode`: each shadow's hog iterations per pass (default 200000).
    pub usermode: Option<u64>,
    /// oltp `$logfilesize` (default 10m).
    pub logfilesize: Option<String>,
    /// oltp `$nlogfiles` (default 1).
    pub nlogfiles: Option<u64>,
}

/// Personalities filebench ships that lfslab runs.
pub const PERSONALITIES: [&str; 4] = ["fileserver", "varmail", "webserver", "oltp"];

fn size(field: &str, v: &Option<String>, default: u64) -> Result<u64, String> {
    match v {
        None => Ok(default),
        Some(s) => match super::parse_size(s) {
            Ok(0) => Err(format!("filebench.{field} = {s:?}: must be positive")),
            Ok(n) => Ok(n),
            Err(e) => Err(format!("filebench.{field}: {e}")),
        },
    }
}

impl FilebenchVars {
    /// Resolve against the personality's .f defaults. Errors name the field.
    pub fn resolve(&self) -> Result<FilebenchSpec, String> {
        use FlowopKind::*;
        let p = self.personality.as_str();
        // (nfiles, meandirwidth, filesize, nthreads, prealloc, runtime) of each .f file.
        let (nfiles, width, fsize, threads, prealloc, runtime) = match p {
            "fileserver" => (10_000, 20, 131_072, 50, 80, 60.0),
            "varmail" => (1_000, 1_000_000, 16_384, 16, 80, 60.0),
            "webserver" => (1_000, 20, 16_384, 100, 100, 60.0),
            "oltp" => (10, 1024, 10 << 20, 0, 100, 60.0),
            _ => {
                return Err(format!(
                    "filebench.personality = {p:?}: unknown; choose one of {}",
                    PERSONALITIES.join(", ")
                ))
            }
        };
        let nfiles = self.nfiles.unwrap_or(nfiles);
        let width = self.meandirwidth.unwrap_or(width);
        let fsize = size("filesize", &self.filesize, fsize)?;
        let nthreads = self.nthreads.unwrap_or(threads);
        let iosize = size("iosize", &self.iosize, if p == "oltp" { 2048 } else { 1 << 20 })?;
        let oltp_only = [
            ("nshadows", self.nshadows.is_some()),
            ("ndbwriters", self.ndbwriters.is_some()),
            ("usermode", self.usermode.is_some()),
            ("logfilesize", self.logfilesize.is_some()),
            ("nlogfiles", self.nlogfiles.is_some()),
        ];
        let not_oltp = [
            ("nthreads", self.nthreads.is_some()),
            ("meandirwidth", self.meandirwidth.is_some()),
            ("meanappendsize", self.meanappendsize.is_some()),
        ];
        let (wrong, which): (&[(&str, bool)], &str) =
            if p == "oltp" { (&not_oltp, "fileserver, varmail and webserver") } else { (&oltp_only, "oltp") };
        if let Some((f, _)) = wrong.iter().find(|(_, set)| *set) {
            return Err(format!("filebench.{f} is a variable of {which}, not of {p}"));
        }
        let append = size("meanappendsize", &self.meanappendsize, 16 << 10)?;
        let prealloc = self.prealloc.unwrap_or(prealloc);
        let runtime = self.runtime.unwrap_or(runtime);
        if nfiles == 0 || nfiles > 100_000_000 {
            return Err(format!("filebench.nfiles = {nfiles}: must be 1 to 100000000"));
        }
        if width < 2 {
            return Err(format!("filebench.meandirwidth = {width}: must be at least 2"));
        }
        if p != "oltp" && (nthreads == 0 || nthreads > 10_000) {
            return Err(format!("filebench.nthreads = {nthreads}: must be 1 to 10000"));
        }
        if prealloc > 100 {
            return Err(format!("filebench.prealloc = {prealloc}: a percentage, 0 to 100"));
        }
        if !(runtime.is_finite() && runtime > 0.0 && runtime <= 1e6) {
            return Err(format!("filebench.runtime = {runtime}: must be positive seconds (at most 1e6)"));
        }
        let big = FilesetSpec { name: "bigfileset".into(), entries: nfiles, dirwidth: width, mean_size: fsize, gamma: 1.5, prealloc_pct: prealloc };
        let op = |name: &str, kind, fileset, fd, iosize| Flowop {
            name: name.into(),
            kind,
            fileset,
            fd,
            iosize,
            iters: 1,
            dsync: false,
            value: 0,
            highwater: 0,
            target: 0,
            blocking: false,
        };
        if p == "oltp" {
            return self.resolve_oltp(big, iosize, runtime, op);
        }
        let (filesets, flowops) = match p {
            "fileserver" => (
                vec![big],
                vec![
                    op("createfile1", CreateFile, 0, 1, 0),
                    op("wrtfile1", WriteWholeFile, 0, 1, iosize),
                    op("closefile1", CloseFile, 0, 1, 0),
                    op("openfile1", OpenFile, 0, 1, 0),
                    op("appendfilerand1", AppendFileRand, 0, 1, append),
                    op("closefile2", CloseFile, 0, 1, 0),
                    op("openfile2", OpenFile, 0, 1, 0),
                    op("readfile1", ReadWholeFile, 0, 1, iosize),
                    op("closefile3", CloseFile, 0, 1, 0),
                    op("deletefile1", DeleteFile, 0, 1, 0),
                    op("statfile1", StatFile, 0, 1, 0),
                ],
            ),
            "varmail" => (
                vec![big],
                vec![
                    op("deletefile1", DeleteFile, 0, 1, 0),
                    op("createfile2", CreateFile, 0, 1, 0),
                    op("appendfilerand2", AppendFileRand, 0, 1, append),
                    op("fsyncfile2", Fsync, 0, 1, 0),
                    op("closefile2", CloseFile, 0, 1, 0),
                    op("openfile3", OpenFile, 0, 1, 0),
                    op("readfile3", ReadWholeFile, 0, 1, iosize),
                    op("appendfilerand3", AppendFileRand, 0, 1, append),
                    op("fsyncfile3", Fsync, 0, 1, 0),
                    op("closefile3", CloseFile, 0, 1, 0),
                    op("openfile4", OpenFile, 0, 1, 0),
                    op("readfile4", ReadWholeFile, 0, 1, iosize),
                    op("closefile4", CloseFile, 0, 1, 0),
                ],
            ),
            _ => {
                // webserver: ten whole-file reads, then an append to the one log file.
                let log = FilesetSpec { name: "logfiles".into(), entries: 1, prealloc_pct: 100, ..big.clone() };
                let mut ops = Vec::new();
                for i in 1..=10 {
                    ops.push(op(&format!("openfile{i}"), OpenFile, 0, 1, 0));
                    ops.push(op(&format!("readfile{i}"), ReadWholeFile, 0, 1, iosize));
                    ops.push(op(&format!("closefile{i}"), CloseFile, 0, 1, 0));
                }
                ops.push(op("appendlog", AppendFileRand, 1, 2, append));
                (vec![big, log], ops)
            }
        };
        Ok(FilebenchSpec {
            personality: p.into(),
            filesets,
            groups: vec![ThreadGroup { name: p.into(), instances: nthreads, ops: 0..flowops.len() }],
            flowops,
            runtime: SimDuration::from_secs_f64(runtime),
            directio: self.directio.unwrap_or(false),
        })
    }

    /// oltp.f: a log writer, database writers and shadow readers coupled by
    /// semaphores (process lgwr, dbwr x $ndbwriters, shadow x $nshadows).
    fn resolve_oltp(
        &self,
        data: FilesetSpec,
        iosize: u64,
        runtime: f64,
        op: impl Fn(&str, FlowopKind, usize, u8, u64) -> Flowop,
    ) -> Result<FilebenchSpec, String> {
        use FlowopKind::*;
        let nshadows = self.nshadows.unwrap_or(200);
        let ndbwriters = self.ndbwriters.unwrap_or(10);
        if nshadows == 0 || nshadows > 10_000 || ndbwriters == 0 || ndbwriters > 10_000 {
            return Err(format!("filebench.nshadows = {nshadows}, ndbwriters = {ndbwriters}: each must be 1 to 10000"));
        }
        let nlogfiles = self.nlogfiles.unwrap_or(1);
        if nlogfiles == 0 || nlogfiles > 1_000 {
            return Err(format!("filebench.nlogfiles = {nlogfiles}: must be 1 to 1000"));
        }
        let logsize = size("logfilesize", &self.logfilesize, 10 << 20)?;
        // Database files have their size (oltp.f gives no size gamma).
        let data = FilesetSpec { name: "datafiles".into(), gamma: 0.0, prealloc_pct: 100, ..data };
        let log = FilesetSpec { name: "logfile".into(), entries: nlogfiles, mean_size: logsize, ..data.clone() };
        let (lg_block, dbwr_block) = (2, 5);
        let flowops = vec![
            // lgwr
            Flowop { dsync: true, ..op("lg-write", AioWrite, 1, 1, 256 << 10) },
            op("lg-aiowait", AioWait, 1, 1, 0),
            Flowop { value: 3200, highwater: 1000, ..op("lg-block", SemBlock, 1, 1, 0) },
            // dbwr
            Flowop { dsync: true, iters: 100, ..op("dbwrite-a", AioWrite, 0, 1, iosize) },
            Flowop { value: 10_000, ..op("dbwr-hog", Hog, 0, 1, 0) },
            Flowop { value: 1000, highwater: 2000, ..op("dbwr-block", SemBlock, 0, 1, 0) },
            op("dbwr-aiowait", AioWait, 0, 1, 0),
            // shadow
            op("shadowread", Read, 0, 1, iosize),
            Flowop { value: self.usermode.unwrap_or(200_000), ..op("shadowhog", Hog, 0, 1, 0) },
            Flowop { value: 1, target: lg_block, blocking: true, ..op("shadow-post-lg", SemPost, 0, 1, 0) },
            Flowop { value: 1, target: dbwr_block, blocking: true, ..op("shadow-post-dbwr", SemPost, 0, 1, 0) },
        ];
        Ok(FilebenchSpec {
            personality: "oltp".into(),
            filesets: vec![data, log],
            groups: vec![
                ThreadGroup { name: "lgwr".into(), instances: 1, ops: 0..3 },
                ThreadGroup { name: "dbwr".into(), instances: ndbwriters, ops: 3..7 },
                ThreadGroup { name: "shadow".into(), instances: nshadows, ops: 7..11 },
            ],
            flowops,
            runtime: SimDuration::from_secs_f64(runtime),
            directio: self.directio.unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(p: &str) -> FilebenchVars {
        FilebenchVars {
            personality: p.into(),
            nfiles: None,
            meandirwidth: None,
            filesize: None,
            nthreads: None,
            iosize: None,
            meanappendsize: None,
            runtime: None,
            prealloc: None,
            directio: None,
            nshadows: None,
            ndbwriters: None,
            usermode: None,
            logfilesize: None,
            nlogfiles: None,
        }
    }

    #[test]
    fn personalities_carry_filebench_defaults() {
        let f = vars("fileserver").resolve().unwrap();
        assert_eq!((f.filesets[0].entries, f.filesets[0].dirwidth, f.filesets[0].mean_size, f.groups[0].instances), (10_000, 20, 131_072, 50));
        assert_eq!(f.flowops.len(), 11);
        let v = vars("varmail").resolve().unwrap();
        assert_eq!((v.filesets[0].entries, v.groups[0].instances), (1_000, 16));
        assert_eq!(v.flowops.iter().filter(|o| o.kind == FlowopKind::Fsync).count(), 2);
        let w = vars("webserver").resolve().unwrap();
        assert_eq!((w.filesets.len(), w.groups[0].instances, w.flowops.len()), (2, 100, 31));
        let o = vars("oltp").resolve().unwrap();
        let inst: Vec<u32> = o.groups.iter().map(|g| g.instances).collect();
        assert_eq!(inst, vec![1, 10, 200]);
        assert_eq!((o.filesets[0].entries, o.filesets[0].mean_size, o.filesets[1].entries), (10, 10 << 20, 1));
        // Each sempost names a semblock.
        for f in o.flowops.iter().filter(|f| f.kind == FlowopKind::SemPost) {
            assert_eq!(o.flowops[f.target].kind, FlowopKind::SemBlock);
        }
    }

    #[test]
    fn bad_overrides_name_the_field() {
        let mut v = vars("mailserver");
        assert!(v.resolve().unwrap_err().contains("filebench.personality"));
        v.personality = "varmail".into();
        v.nthreads = Some(0);
        assert!(v.resolve().unwrap_err().contains("filebench.nthreads = 0"));
        v.nthreads = None;
        v.nshadows = Some(3);
        assert!(v.resolve().unwrap_err().contains("filebench.nshadows is a variable of oltp"));
        v.nshadows = None;
        v.filesize = Some("lots".into());
        assert!(v.resolve().unwrap_err().contains("filebench.filesize"));
    }
}
