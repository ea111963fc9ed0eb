//! fio I/O logs (fio(1), "TRACE FILE FORMAT"), versions 2 and 3, for
//! replay. v2 lines: `filename action [offset length]`, with `wait`
//! actions carrying a delay in microseconds; v3 lines start with a
//! timestamp in microseconds since the start (fio's `log_io_u` writes
//! `utime_since_now`). Actions: add, open, close, read, write, sync,
//! datasync, trim. Offsets and lengths must be multiples of 4 KiB, the
//! simulated logical block.

use crate::sim::SimDuration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IologAction {
    Read,
    Write,
    Sync,
    Datasync,
    Trim,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IologOp {
    /// When fio would issue it, relative to the start of the replay.
    pub at: SimDuration,
    /// Index into `Iolog::files`.
    pub file: u32,
    pub action: IologAction,
    pub off_blocks: u64,
    pub blocks: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iolog {
    pub version: u8,
    pub files: Vec<String>,
    /// Per file: blocks spanned by the log's reads and writes.
    pub file_extent_blocks: Vec<u64>,
    pub ops: Vec<IologOp>,
}

fn err(line: usize, msg: impl std::fmt::Display) -> String {
    format!("iolog line {line}: {msg}")
}

/// Latest instant a log may name: the simulator's clock counts u64
/// nanoseconds (about 213 days).
const MAX_US: u64 = u64::MAX / 1000;
/// Largest offset + length in a file: 2^40 blocks (4 PiB).
const MAX_END_BLOCKS: u64 = 1 << 40;

fn num(line: usize, what: &str, s: Option<&str>) -> Result<u64, String> {
    let s = s.ok_or_else(|| err(line, format!("missing {what}")))?;
    s.parse::<u64>().map_err(|_| err(line, format!("{what} {s:?} is not a non-negative integer")))
}

/// The iolog version a file's text starts with (its "fio version N iolog"
/// header), or None if it is not an iolog.
pub fn version(text: &str) -> Option<u8> {
    match text.lines().next()?.trim() {
        "fio version 2 iolog" => Some(2),
        "fio version 3 iolog" => Some(3),
        _ => None,
    }
}

pub fn parse(text: &str) -> Result<Iolog, String> {
    let header = text.lines().next().ok_or_else(|| "iolog is empty".to_string())?;
    let version = version(text)
        .ok_or_else(|| err(1, format!("header {:?} is not \"fio version 2 iolog\" or \"fio version 3 iolog\"", header.trim())))?;
    let mut lines = text.lines().enumerate();
    lines.next();
    let mut files: Vec<String> = Vec::new();
    let mut extents: Vec<u64> = Vec::new();
    let mut ops = Vec::new();
    let mut clock_us = 0u64;
    for (i, raw) in lines {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let mut f = l.split_whitespace();
        if version == 3 {
            let ts = num(line, "timestamp", f.next())?;
            if ts > MAX_US {
                return Err(err(
                    line,
                    format!("timestamp {ts} us is beyond the simulator's clock (at most {MAX_US} us, about 213 days)"),
                ));
            }
            if ts < clock_us {
                return Err(err(line, format!("timestamp {ts} goes back in time (previous {clock_us})")));
            }
            clock_us = ts;
        }
        let name = f.next().ok_or_else(|| err(line, "missing file name"))?;
        let action = f.next().ok_or_else(|| err(line, "missing action"))?;
        let file_idx = files.iter().position(|n| n == name);
        let io = match action {
            "add" => {
                if file_idx.is_none() {
                    files.push(name.to_string());
                    extents.push(0);
                }
                None
            }
            "open" | "close" => {
                if file_idx.is_none() {
                    return Err(err(line, format!("{action} of {name:?} before add")));
                }
                None
            }
            "wait" if version == 2 => {
                let w = num(line, "wait time", f.nth(0))?;
                clock_us = clock_us.checked_add(w).filter(|&t| t <= MAX_US).ok_or_else(|| {
                    err(line, format!("wait {w} us takes the log beyond the simulator's clock (at most {MAX_US} us, about 213 days)"))
                })?;
                None
            }
            "read" => Some(IologAction::Read),
            "write" => Some(IologAction::Write),
            "sync" => Some(IologAction::Sync),
            "datasync" => Some(IologAction::Datasync),
            "trim" => Some(IologAction::Trim),
            _ => return Err(err(line, format!("unknown action {action:?}"))),
        };
        let Some(action) = io else { continue };
        let file = file_idx.ok_or_else(|| err(line, format!("I/O on {name:?} before add")))? as u32;
        let (off_blocks, blocks) = if matches!(action, IologAction::Sync | IologAction::Datasync) {
            (0, 0)
        } else {
            let off = num(line, "offset", f.next())?;
            let len = num(line, "length", f.next())?;
            if off % 4096 != 0 || len % 4096 != 0 || len == 0 {
                return Err(err(line, format!("offset {off} / length {len} must be positive multiples of 4096 bytes")));
            }
            if len > 128 << 20 {
                return Err(err(line, format!("length {len} exceeds 128 MiB")));
            }
            if off / 4096 + len / 4096 > MAX_END_BLOCKS {
                return Err(err(line, format!("offset {off} + length {len} reaches beyond 4 PiB")));
            }
            (off / 4096, (len / 4096) as u32)
        };
        if matches!(action, IologAction::Read | IologAction::Write) {
            let e = &mut extents[file as usize];
            *e = (*e).max(off_blocks + blocks as u64);
        }
        ops.push(IologOp { at: SimDuration::from_us(clock_us), file, action, off_blocks, blocks });
    }
    if ops.is_empty() {
        return Err("iolog holds no I/O".into());
    }
    Ok(Iolog { version, files, file_extent_blocks: extents, ops })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_with_waits() {
        let log = parse("fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 8192\n/dev/x wait 100\n/dev/x read 4096 4096\n/dev/x sync\n/dev/x close\n").unwrap();
        assert_eq!(log.version, 2);
        assert_eq!(log.ops.len(), 3);
        assert_eq!(
            log.ops[0],
            IologOp { at: SimDuration(0), file: 0, action: IologAction::Write, off_blocks: 0, blocks: 2 }
        );
        assert_eq!(log.ops[1].at, SimDuration::from_us(100));
        assert_eq!(log.ops[2].action, IologAction::Sync);
        assert_eq!(log.file_extent_blocks, vec![2]);
    }

    #[test]
    fn v3_timestamps_and_two_files() {
        let log = parse("fio version 3 iolog\n0 a add\n0 b add\n5 a write 0 4096\n9 b read 40960 4096\n").unwrap();
        assert_eq!(log.files, vec!["a", "b"]);
        assert_eq!(log.ops[1].at, SimDuration::from_us(9));
        assert_eq!(log.ops[1].file, 1);
        assert_eq!(log.file_extent_blocks, vec![1, 11]);
    }

    #[test]
    fn malformed_logs_name_the_line() {
        for (text, needle) in [
            ("fio version 9 iolog\n", "line 1"),
            ("fio version 2 iolog\nx add\nx write 100 4096\n", "line 3"),
            ("fio version 2 iolog\nx write 0 4096\n", "before add"),
            ("fio version 2 iolog\nx add\nx frobnicate 0 4096\n", "frobnicate"),
            ("fio version 3 iolog\n5 x add\n3 x write 0 4096\n", "back in time"),
            ("fio version 2 iolog\nx add\nx write 0\n", "missing length"),
            ("fio version 2 iolog\nx add\n", "no I/O"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }
}
