//! Block I/O as a filesystem issues it: runs of consecutive addresses
//! merged into one command (the block layer's bio merging), reads split at
//! 256 blocks (1 MiB: the request size cap both filesystems see).

use crate::nand::Lpn;
use crate::nvme::BlockDevice;
use crate::oracle::Fingerprint;
use crate::sim::{SimDuration, SimTime};

/// Largest read command, in 4 KiB blocks.
pub const MAX_READ_BLOCKS: usize = 256;

/// Submit `writes` (address, content) in order, merging consecutive
/// addresses; the submitting thread spends `per_cmd` of block-layer CPU on
/// each command before issuing it. Returns (last completion, commands).
pub fn write_runs<D: BlockDevice>(
    dev: &mut D,
    at: SimTime,
    writes: &[(u64, Fingerprint)],
    stream: u8,
    per_cmd: SimDuration,
    content: &mut Vec<Fingerprint>,
) -> (SimTime, u64) {
    let (mut done, mut cmds, mut issue) = (at, 0, at);
    let mut i = 0;
    while i < writes.len() {
        let start = writes[i].0;
        content.clear();
        while i < writes.len() && writes[i].0 == start + content.len() as u64 {
            content.push(writes[i].1);
            i += 1;
        }
        cmds += 1;
        issue = issue + per_cmd;
        done = done.max(dev.write(issue, Lpn(start), content, stream));
    }
    (done, cmds)
}

/// Read `addrs` in order, merging consecutive addresses, `per_cmd` of
/// block-layer CPU before each command; `out` receives one entry per
/// address. Returns (last completion, commands).
pub fn read_runs<D: BlockDevice>(
    dev: &mut D,
    at: SimTime,
    addrs: &[u64],
    per_cmd: SimDuration,
    buf: &mut Vec<Option<Fingerprint>>,
    out: &mut Vec<Option<Fingerprint>>,
) -> (SimTime, u64) {
    let (mut done, mut cmds, mut issue) = (at, 0, at);
    let mut i = 0;
    while i < addrs.len() {
        let start = addrs[i];
        let mut n = 1;
        while i + n < addrs.len() && addrs[i + n] == start + n as u64 && n < MAX_READ_BLOCKS {
            n += 1;
        }
        cmds += 1;
        issue = issue + per_cmd;
        done = done.max(dev.read(issue, Lpn(start), n as u32, buf));
        out.extend_from_slice(buf);
        i += n;
    }
    (done, cmds)
}
