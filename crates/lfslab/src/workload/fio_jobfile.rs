//! A subset of fio's job-file format (fio(1), "JOB FILE FORMAT"): INI
//! sections, `[global]` defaults inherited by later jobs, `key=value` and
//! bare flags, `;`/`#` comments. Options map onto lfslab's job fields:
//!
//! | fio option | lfslab field |
//! |---|---|
//! | rw / readwrite, rwmixread, rwmixwrite | rw, rwmixread |
//! | bs / blocksize, size, filesize, nrfiles, numjobs, iodepth | same |
//! | direct, fsync, runtime, time_based, io_size / io_limit | same |
//! | random_distribution, offset, stonewall / wait_for_previous | same |
//! | read_iolog, replay_no_stall, filename (shared files) | same |
//!
//! Options that have no effect in a simulation (ioengine, filename,
//! directory, group_reporting, thread, ...) are accepted and reported as
//! ignored; anything else is an error naming the line and the option.

use crate::scenario::{DurationValue, JobSection, SizeValue};
use std::collections::BTreeMap;

/// Options accepted but without effect on the simulation.
const IGNORED: [&str; 12] = [
    "ioengine",
    "directory",
    "thread",
    "name",
    "description",
    "randrepeat",
    "norandommap",
    "invalidate",
    "end_fsync",
    "fallocate",
    "create_on_open",
    "unlink",
];

#[derive(Clone, Debug, PartialEq)]
pub struct JobFile {
    pub jobs: Vec<JobSection>,
    /// Human-readable notes on options accepted without effect.
    pub ignored: Vec<String>,
    /// The jobs name a block device (`filename=/dev/...`): they run on the
    /// raw device, not on files.
    pub on_device: bool,
    /// The options as written, for the report (fio's "global options" and
    /// each job's "job options").
    pub global_options: BTreeMap<String, String>,
    pub job_options: Vec<BTreeMap<String, String>>,
}

fn err(line: usize, msg: impl std::fmt::Display) -> String {
    format!("fio job file line {line}: {msg}")
}

fn apply(job: &mut JobSection, key: &str, value: Option<&str>, line: usize, ignored: &mut Vec<String>) -> Result<(), String> {
    let need = || value.map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| err(line, format!("option {key} needs a value")));
    let size = |v: &str| SizeValue::Text(v.to_string());
    let int = |v: &str| v.parse::<u32>().map_err(|_| err(line, format!("{key}={v}: not a non-negative integer")));
    match key {
        "rw" | "readwrite" => job.rw = Some(need()?.to_string()),
        "rwmixread" => job.rwmixread = Some(int(need()?)?),
        "group_reporting" => job.group_reporting = Some(value.is_none_or(|v| v.trim() != "0")),
        "rwmixwrite" => {
            let w = int(need()?)?;
            if w > 100 {
                return Err(err(line, format!("rwmixwrite={w}: must be 0..=100")));
            }
            job.rwmixread = Some(100 - w);
        }
        "bs" | "blocksize" => job.bs = Some(size(need()?)),
        "size" => job.size = Some(size(need()?)),
        "filesize" => job.filesize = Some(size(need()?)),
        "io_size" | "io_limit" => job.io_size = Some(size(need()?)),
        "offset" => job.offset = Some(size(need()?)),
        "nrfiles" => job.nrfiles = Some(int(need()?)?),
        "numjobs" => job.numjobs = Some(int(need()?)?),
        "iodepth" => job.iodepth = Some(int(need()?)?),
        "direct" => job.direct = Some(int(need()?)?),
        "fsync" => job.fsync = Some(int(need()?)?),
        // fio's runtime is in seconds unless a unit is given.
        "runtime" => job.runtime = Some(DurationValue::Text(need()?.to_string())),
        "time_based" => job.time_based = Some(value.is_none_or(|v| v.trim() != "0")),
        "random_distribution" => job.random_distribution = Some(need()?.to_string()),
        "stonewall" | "wait_for_previous" => job.stonewall = Some(value.is_none_or(|v| v.trim() != "0")),
        "read_iolog" => job.read_iolog = Some(need()?.to_string()),
        // A block device is the simulated SSD itself: the job runs on the raw device.
        "filename" if need()?.starts_with("/dev/") => {
            ignored.push(format!("line {line}: filename={} is the simulated device", need()?));
            job.filename = Some(need()?.to_string());
        }
        "filename" => job.filename = Some(need()?.to_string()),
        "replay_no_stall" => job.replay_no_stall = Some(value.is_none_or(|v| v.trim() != "0")),
        k if IGNORED.contains(&k) => ignored.push(format!("line {line}: {k} has no effect in the simulation")),
        _ => return Err(err(line, format!("unknown or unsupported option {key:?}"))),
    }
    Ok(())
}

pub fn parse(text: &str) -> Result<JobFile, String> {
    let mut global = JobSection::default();
    let mut jobs: Vec<JobSection> = Vec::new();
    let mut current: Option<JobSection> = None;
    let mut ignored = Vec::new();
    let mut in_global = false;
    let mut global_options = BTreeMap::new();
    let mut job_options: Vec<BTreeMap<String, String>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.split([';', '#']).next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        // fio's `include FILE` directive (anywhere, outside a section too).
        if l.split_whitespace().next() == Some("include") {
            return Err(err(line, format!("{l:?}: include is not supported; put the included options in this file")));
        }
        if let Some(rest) = l.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| err(line, format!("section header {l:?} lacks ']'")))?.trim();
            if name.is_empty() {
                return Err(err(line, "empty section name"));
            }
            if let Some(j) = current.take() {
                jobs.push(j);
            }
            in_global = name == "global";
            if !in_global {
                let mut j = global.clone();
                j.name = Some(name.to_string());
                current = Some(j);
                job_options.push(BTreeMap::from([("name".to_string(), name.to_string())]));
            }
            continue;
        }
        let (key, value) = match l.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (l, None),
        };
        let target = if in_global {
            &mut global
        } else {
            current.as_mut().ok_or_else(|| err(line, format!("option {key:?} before any [section]")))?
        };
        apply(target, key, value, line, &mut ignored)?;
        let shown = (key.to_string(), value.unwrap_or("").to_string());
        match job_options.last_mut().filter(|_| !in_global) {
            Some(o) => o.insert(shown.0, shown.1),
            None => global_options.insert(shown.0, shown.1),
        };
    }
    if let Some(j) = current.take() {
        jobs.push(j);
    }
    if jobs.is_empty() {
        return Err("fio job file defines no job (only [global] or nothing)".into());
    }
    // fio's default: a job ends after `size` unless time_based is given.
    for j in &mut jobs {
        j.time_based.get_or_insert(false);
    }
    let is_dev = |j: &JobSection| j.filename.as_deref().is_some_and(|n| n.starts_with("/dev/"));
    let on_device = jobs.iter().any(is_dev);
    if on_device {
        if let Some(j) = jobs.iter().find(|j| !is_dev(j)) {
            return Err(format!(
                "fio job file: job {:?} uses files while another names a block device; lfslab runs one or the other",
                j.name.as_deref().unwrap_or("?")
            ));
        }
        for j in &mut jobs {
            j.filename = None;
        }
    }
    Ok(JobFile { jobs, ignored, on_device, global_options, job_options })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_is_inherited_and_flags_parse() {
        let f = parse(
            "; comment\n[global]\nioengine=libaio\ndirect=1\nbs=4k\n\n[writer]\nrw=randwrite\niodepth=32\nruntime=60\ntime_based\n\n[reader]\nstonewall\nrw=read\nbs=128k # overrides\n",
        )
        .unwrap();
        assert_eq!(f.jobs.len(), 2);
        assert_eq!(f.jobs[0].name.as_deref(), Some("writer"));
        assert_eq!(f.jobs[0].bs, Some(SizeValue::Text("4k".into())));
        assert_eq!(f.jobs[0].direct, Some(1));
        assert_eq!(f.jobs[0].time_based, Some(true));
        assert_eq!(f.jobs[1].bs, Some(SizeValue::Text("128k".into())));
        assert_eq!(f.jobs[1].stonewall, Some(true));
        assert_eq!(f.ignored.len(), 1);
        assert!(f.ignored[0].contains("ioengine"));
    }

    #[test]
    fn errors_name_line_and_option() {
        let e = parse("[a]\nrw=randwrite\nbogus_opt=3\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("bogus_opt"), "{e}");
        let e = parse("bs=4k\n[a]\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = parse("[a\nrw=read\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = parse("[a]\niodepth=-2\n").unwrap_err();
        assert!(e.contains("iodepth=-2"), "{e}");
        assert!(parse("[global]\nbs=4k\n").unwrap_err().contains("no job"));
        assert!(parse("[a]\nrwmixwrite=30\n").unwrap().jobs[0].rwmixread == Some(70));
    }
}
