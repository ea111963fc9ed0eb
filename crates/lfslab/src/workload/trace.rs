//! Block traces for replay, read into the same form as a fio iolog
//! (`Iolog`, one file standing for the device):
//!
//! * **MSR Cambridge** CSV (SNIA IOTTA, "MSR Cambridge Traces"):
//!   `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, the
//!   timestamp in Windows filetime (100 ns ticks), `Type` Read or Write,
//!   offset and size in bytes.
//! * **blkparse**'s default text output (blkparse(1), "DEFAULT OUTPUT"):
//!   `maj,min cpu seq time pid action rwbs sector + blocks [process]`. The
//!   requests the device saw are replayed: dispatches (`D`), or queue
//!   events (`Q`) in a trace without dispatches. RWBS `D` is a discard, `R`
//!   a read, `W` a write; a flush (`F`) with no sectors is a sync. Summary
//!   lines are skipped.
//! * **UMass / SPC** (the SPC trace format of the UMass Trace Repository,
//!   e.g. Financial1): `ASU,LBA,Size,Opcode,Timestamp`, the LBA in 512-byte
//!   sectors, the size in bytes, the opcode r or w, the time in seconds.
//!
//! Several disks (MSR disk numbers, blkparse devices, SPC ASUs) are laid out
//! one after another in the order they first appear, each as large as the
//! trace touches it. Requests are widened to whole 4 KiB blocks (the
//! simulated logical block). A trace whose clock steps back (blktrace merges
//! per-CPU buffers) replays in file order, the step taken as no wait.

use super::iolog::{Iolog, IologAction, IologOp};
use crate::sim::SimDuration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Msr,
    Blkparse,
    Spc,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "MSR Cambridge CSV",
            TraceFormat::Blkparse => "blkparse text",
            TraceFormat::Spc => "UMass/SPC CSV",
        }
    }
}

pub const ACCEPTED: &str = "a fio iolog (v2 or v3), an MSR Cambridge CSV, blkparse's text output or a UMass/SPC CSV";

/// Largest offset + length on a disk: 2^40 blocks (4 PiB).
const MAX_END_BLOCKS: u64 = 1 << 40;
/// The simulator's clock: u64 nanoseconds.
const MAX_NS: u64 = u64::MAX / 2;

fn is_num(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_decimal(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0)
}

/// One blkparse event, if `l` is one: (device, time s, action, rwbs, sector, sectors).
fn blkparse_event(l: &str) -> Option<(&str, &str, &str, &str, &str, &str)> {
    let f: Vec<&str> = l.split_whitespace().collect();
    if f.len() < 7 {
        return None;
    }
    let dev = f[0];
    let (maj, min) = dev.split_once(',')?;
    if !(is_num(maj) && is_num(min) && is_num(f[1]) && is_num(f[2]) && f[3].contains('.') && is_decimal(f[3]) && is_num(f[4])) {
        return None;
    }
    let (action, rwbs) = (f[5], f[6]);
    // "sector + blocks" follows for I/O events; others (plugs, messages) have none.
    let (sector, n) = match (f.get(7), f.get(8), f.get(9)) {
        (Some(s), Some(&"+"), Some(n)) if is_num(s) && is_num(n) => (*s, *n),
        _ => ("", ""),
    };
    Some((dev, f[3], action, rwbs, sector, n))
}

/// The trace format of `text`, judged from its first lines.
pub fn detect(text: &str) -> Option<TraceFormat> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(20).collect();
    let first = lines.first()?;
    let csv: Vec<&str> = first.split(',').map(str::trim).collect();
    if csv.len() == 7 && is_num(csv[0]) && matches!(csv[3].to_ascii_lowercase().as_str(), "read" | "write") {
        return Some(TraceFormat::Msr);
    }
    if csv.len() >= 5 && is_num(csv[0]) && is_num(csv[1]) && is_num(csv[2]) && matches!(csv[3], "r" | "R" | "w" | "W") && is_decimal(csv[4]) {
        return Some(TraceFormat::Spc);
    }
    if lines.iter().any(|l| blkparse_event(l).is_some()) {
        return Some(TraceFormat::Blkparse);
    }
    None
}

/// Requests before disks are laid out: (disk, time ns, action, byte offset, bytes).
struct Raw {
    disk: u32,
    at_ns: u64,
    action: IologAction,
    off: u64,
    len: u64,
}

fn err(format: TraceFormat, line: usize, msg: impl std::fmt::Display) -> String {
    format!("{} line {line}: {msg}", format.name())
}

pub fn parse(text: &str, format: TraceFormat) -> Result<Iolog, String> {
    let mut disks: Vec<String> = Vec::new();
    let mut disk_of = |name: &str| -> u32 {
        match disks.iter().position(|d| d == name) {
            Some(i) => i as u32,
            None => {
                disks.push(name.to_string());
                (disks.len() - 1) as u32
            }
        }
    };
    let mut raw: Vec<Raw> = Vec::new();
    // MSR timestamps count from 1601: keep them relative to the first.
    let mut msr_start: Option<u64> = None;
    let uint = |line: usize, what: &str, s: &str| -> Result<u64, String> {
        s.trim().parse::<u64>().map_err(|_| err(format, line, format!("{what} {:?} is not a non-negative integer", s.trim())))
    };
    let secs = |line: usize, s: &str| -> Result<u64, String> {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 && v * 1e9 < MAX_NS as f64 => Ok((v * 1e9).round() as u64),
            _ => Err(err(format, line, format!("timestamp {:?} is not a time in seconds the simulator can hold", s.trim()))),
        }
    };
    // blkparse: replay dispatches if the trace has any, else queue events.
    let blk_action = (format == TraceFormat::Blkparse).then(|| {
        if text.lines().any(|l| blkparse_event(l).is_some_and(|e| e.2 == "D")) { "D" } else { "Q" }
    });
    for (i, l) in text.lines().enumerate() {
        let line = i + 1;
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        match format {
            TraceFormat::Msr => {
                let f: Vec<&str> = l.split(',').collect();
                if f.len() != 7 {
                    return Err(err(format, line, format!("{} fields, expected 7 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)", f.len())));
                }
                let ticks = uint(line, "Timestamp", f[0])?;
                let action = match f[3].trim() {
                    t if t.eq_ignore_ascii_case("read") => IologAction::Read,
                    t if t.eq_ignore_ascii_case("write") => IologAction::Write,
                    t => return Err(err(format, line, format!("Type {t:?} is neither Read nor Write"))),
                };
                let disk = disk_of(&format!("{}/{}", f[1].trim(), f[2].trim()));
                let since = ticks.saturating_sub(*msr_start.get_or_insert(ticks));
                let at_ns = since
                    .checked_mul(100)
                    .filter(|&n| n < MAX_NS)
                    .ok_or_else(|| err(format, line, format!("Timestamp {ticks} is beyond the simulator's clock from the first")))?;
                raw.push(Raw { disk, at_ns, action, off: uint(line, "Offset", f[4])?, len: uint(line, "Size", f[5])? });
            }
            TraceFormat::Spc => {
                let f: Vec<&str> = l.split(',').collect();
                if f.len() < 5 {
                    return Err(err(format, line, format!("{} fields, expected at least 5 (ASU,LBA,Size,Opcode,Timestamp)", f.len())));
                }
                let action = match f[3].trim() {
                    "r" | "R" => IologAction::Read,
                    "w" | "W" => IologAction::Write,
                    o => return Err(err(format, line, format!("Opcode {o:?} is neither r nor w"))),
                };
                let disk = disk_of(&format!("asu{}", uint(line, "ASU", f[0])?));
                let lba = uint(line, "LBA", f[1])?;
                let off = lba.checked_mul(512).ok_or_else(|| err(format, line, format!("LBA {lba} is too large")))?;
                raw.push(Raw { disk, at_ns: secs(line, f[4])?, action, off, len: uint(line, "Size", f[2])? });
            }
            TraceFormat::Blkparse => {
                let Some((dev, t, action, rwbs, sector, n)) = blkparse_event(l) else { continue };
                if Some(action) != blk_action {
                    continue;
                }
                let at_ns = secs(line, t)?;
                let disk = disk_of(dev);
                let act = if rwbs.contains('D') {
                    IologAction::Trim
                } else if rwbs.contains('W') && !sector.is_empty() {
                    IologAction::Write
                } else if rwbs.contains('R') && !sector.is_empty() {
                    IologAction::Read
                } else if rwbs.contains('F') {
                    IologAction::Sync
                } else {
                    continue; // no data and no flush (e.g. "N" events)
                };
                if act == IologAction::Sync {
                    raw.push(Raw { disk, at_ns, action: act, off: 0, len: 0 });
                    continue;
                }
                let sector = uint(line, "sector", sector)?;
                let off = sector.checked_mul(512).ok_or_else(|| err(format, line, format!("sector {sector} is too large")))?;
                let n = uint(line, "blocks", n)?;
                let len = n.checked_mul(512).ok_or_else(|| err(format, line, format!("{n} sectors are too many")))?;
                raw.push(Raw { disk, at_ns, action: act, off, len });
            }
        }
        let r = raw.last().expect("pushed");
        if r.action != IologAction::Sync {
            if r.len == 0 {
                return Err(err(format, line, "a request of 0 bytes"));
            }
            if r.len > 128 << 20 {
                return Err(err(format, line, format!("a request of {} bytes exceeds 128 MiB", r.len)));
            }
            if r.off / 4096 + r.len.div_ceil(4096) + 1 > MAX_END_BLOCKS {
                return Err(err(format, line, format!("offset {} reaches beyond 4 PiB", r.off)));
            }
        }
    }
    if raw.iter().all(|r| r.action == IologAction::Sync) {
        return Err(format!("{} holds no read or write", format.name()));
    }
    // Lay the disks out one after another.
    let mut extent = vec![0u64; disks.len()];
    for r in raw.iter().filter(|r| r.action != IologAction::Sync) {
        let e = &mut extent[r.disk as usize];
        *e = (*e).max((r.off + r.len).div_ceil(4096));
    }
    let mut base = vec![0u64; disks.len()];
    for d in 1..disks.len() {
        base[d] = base[d - 1] + extent[d - 1];
    }
    if base.last().copied().unwrap_or(0) + extent.last().copied().unwrap_or(0) > MAX_END_BLOCKS {
        return Err(format!("{}: the disks together span more than 4 PiB", format.name()));
    }
    let start = raw.iter().map(|r| r.at_ns).min().unwrap_or(0);
    let mut clock = 0u64;
    let ops = raw
        .iter()
        .map(|r| {
            clock = clock.max(r.at_ns - start);
            let (off_blocks, blocks) = match r.action {
                IologAction::Sync | IologAction::Datasync => (0, 0),
                _ => {
                    let first = r.off / 4096;
                    (base[r.disk as usize] + first, ((r.off + r.len).div_ceil(4096) - first) as u32)
                }
            };
            IologOp { at: SimDuration(clock), file: 0, action: r.action, off_blocks, blocks }
        })
        .collect();
    let total: u64 = extent.iter().sum();
    Ok(Iolog { version: 0, files: vec!["device".into()], file_extent_blocks: vec![total], ops })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSR: &str = "128166372003061629,hm,0,Write,3154153472,4096,1346\n\
                       128166372003085791,hm,0,Read,1024,6144,200\n\
                       128166372003100000,hm,1,Write,0,4096,100\n";

    #[test]
    fn msr_disks_follow_one_another_and_requests_cover_whole_blocks() {
        assert_eq!(detect(MSR), Some(TraceFormat::Msr));
        let log = parse(MSR, TraceFormat::Msr).unwrap();
        assert_eq!(log.ops.len(), 3);
        assert_eq!(log.ops[0], IologOp { at: SimDuration(0), file: 0, action: IologAction::Write, off_blocks: 3154153472 / 4096, blocks: 1 });
        // 1024..7168 bytes touches blocks 0 and 1; 24,162 ticks of 100 ns later.
        assert_eq!((log.ops[1].off_blocks, log.ops[1].blocks, log.ops[1].at), (0, 2, SimDuration(2_416_200)));
        // Disk 1 starts where disk 0's extent ends.
        let disk0 = 3154153472 / 4096 + 1;
        assert_eq!(log.ops[2].off_blocks, disk0);
        assert_eq!(log.file_extent_blocks, vec![disk0 + 1]);
    }

    #[test]
    fn blkparse_replays_dispatches_with_discards_and_flushes() {
        let text = "  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [fs_mark]\n\
                      8,0    3        2     0.000001000   697  D  WS 3417048 + 8 [fs_mark]\n\
                      8,0    3        3     0.000100000     0  C  WS 3417048 + 8 [0]\n\
                      8,0    1        4     0.000200000   697  D   R 16 + 16 [cat]\n\
                      8,0    1        5     0.000300000   697  D   D 64 + 64 [fstrim]\n\
                      8,0    1        6     0.000400000   697  D  FN [kworker]\n\
                    CPU0 (8,0):\n Reads Queued:           0,        0KiB\n";
        assert_eq!(detect(text), Some(TraceFormat::Blkparse));
        let log = parse(text, TraceFormat::Blkparse).unwrap();
        let acts: Vec<_> = log.ops.iter().map(|o| (o.action, o.off_blocks, o.blocks)).collect();
        assert_eq!(
            acts,
            vec![
                (IologAction::Write, 3417048 / 8, 1),
                (IologAction::Read, 2, 2),
                (IologAction::Trim, 8, 8),
                (IologAction::Sync, 0, 0)
            ]
        );
        assert_eq!(log.ops[1].at, SimDuration(199_000));
    }

    #[test]
    fn spc_lbas_are_sectors_and_asus_are_laid_out_in_turn() {
        let text = "0,20941264,8192,W,0.551706\n1,8,512,r,0.554041\n0,0,4096,w,1.0\n";
        assert_eq!(detect(text), Some(TraceFormat::Spc));
        let log = parse(text, TraceFormat::Spc).unwrap();
        let asu0 = (20941264u64 * 512 + 8192).div_ceil(4096);
        assert_eq!((log.ops[0].off_blocks, log.ops[0].blocks), (20941264 * 512 / 4096, 2));
        assert_eq!((log.ops[1].off_blocks, log.ops[1].blocks, log.ops[1].action), (asu0 + 1, 1, IologAction::Read));
        assert_eq!(log.ops[2].at, SimDuration(448_294_000));
    }

    #[test]
    fn malformed_traces_name_format_line_and_field() {
        for (text, format, needle) in [
            ("1,h,0,Write,0,4096,1\n2,h,0,Erase,0,4096,1\n", TraceFormat::Msr, "MSR Cambridge CSV line 2: Type \"Erase\""),
            ("1,h,0,Write,0,4096\n", TraceFormat::Msr, "line 1: 6 fields"),
            ("0,8,4096,W,0.1\n0,x,4096,W,0.2\n", TraceFormat::Spc, "UMass/SPC CSV line 2: LBA \"x\""),
            ("0,8,0,W,0.1\n", TraceFormat::Spc, "0 bytes"),
            ("0,8,4096,W,-1\n", TraceFormat::Spc, "timestamp"),
            ("  8,0 0 1 0.0 1 D FN [k]\n", TraceFormat::Blkparse, "no read or write"),
            // Found by cargo-fuzz: sectors * 512 overflowed.
            ("  8,0 0 1 0.0 1 D W 8 + 36028797018963968 [k]\n", TraceFormat::Blkparse, "too many"),
        ] {
            let e = parse(text, format).unwrap_err();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
        assert_eq!(detect("hello, world\n"), None);
    }
}
