//! Output that pipes. Every command prints through these macros, which shadow the standard
//! `println!`, `print!`, `eprintln!` and `eprint!` in this crate (they are defined before
//! `mod cmd`, so every command module sees them): the standard ones panic when the reader
//! has gone (`cn journal | head -1` — "failed printing to stdout: Broken pipe", a backtrace
//! and, with `panic = "abort"`, exit 134).
//!
//! Invariant: a reader that closed standard output ends the command at once, quietly, with
//! exit 0 — it took what it wanted; any other failure to write standard output is one line
//! on stderr and exit 1. A failure to write standard error is ignored (there is nowhere left
//! to say it).

use std::io::Write;

/// Write `args` to standard output (see the module's invariant).
pub fn stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        closed(&e)
    }
}

/// Flush standard output (a prompt without a newline), with [`stdout`]'s rule.
pub fn flush() {
    if let Err(e) = std::io::stdout().lock().flush() {
        closed(&e)
    }
}

/// Write `args` to standard error; a failure is ignored.
pub fn stderr(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

fn closed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    stderr(format_args!("cn: cannot write to standard output: {e}\n"));
    std::process::exit(1)
}

macro_rules! println {
    () => {
        $crate::out::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! print {
    ($($arg:tt)*) => {
        $crate::out::stdout(format_args!($($arg)*))
    };
}

macro_rules! eprintln {
    () => {
        $crate::out::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::out::stderr(format_args!($($arg)*))
    };
}
