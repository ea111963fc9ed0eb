//! Standard output that a closed reader ends quietly (`lfslab run | head
//! -1`): once a write fails with a broken pipe, later output is dropped and
//! the command goes on, so the files it was asked for are still written.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

pub fn write(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
        } else {
            eprintln!("error: cannot write to standard output: {e}");
            CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

/// Flush what is buffered (at exit), quietly if the reader is gone.
pub fn flush() {
    if !CLOSED.load(Ordering::Relaxed) && std::io::stdout().lock().flush().is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `print!` through `write`.
macro_rules! out {
    ($($t:tt)*) => { $crate::stdout::write(format_args!($($t)*)) };
}

/// `println!` through `write`.
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($t:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($t)*))) };
}

pub(crate) use {out, outln};
