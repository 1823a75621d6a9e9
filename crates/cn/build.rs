//! Link settings for the `cn` binary only (dependencies are not rebuilt when these change).
//!
//! `-z pack-relative-relocs` stores the ~44 000 relative relocations of a position-independent
//! binary as a compact bitmap (DT_RELR, glibc ≥ 2.36, binutils ≥ 2.38) instead of 24-byte RELA
//! entries: a smaller file and less work for the loader at every start (`cn --version`).
//!
//! `--icf=safe` (release builds linked by LLD): the linker folds functions whose code is
//! identical into one copy, but only those whose address nothing observes — it reads the
//! address-significance table LLVM writes into each object when given `-addrsig`
//! (.cargo/config.toml), so a function pointer still compares as before; an object without the
//! table (llama.cpp's, compiled by GCC) is left as it is. About 0.4 MB of the release binary
//! (BENCHMARKS.md, "the binary's size, fourth pass"). LLD links on x86_64-unknown-linux-gnu
//! from Rust 1.90 on, unless a linker is configured; GNU ld knows no `--icf`, so with an older
//! toolchain or another linker the option is not given.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if target == "x86_64-unknown-linux-gnu"
        && std::env::var("PROFILE").as_deref() == Ok("release")
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !std::env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|f| f.contains("link"))
        && rustc_minor().is_some_and(|minor| minor >= 90)
    {
        println!("cargo:rustc-link-arg-bins=-Wl,--icf=safe");
    }
}

/// The minor version of the compiler building this crate (`rustc 1.95.0 (…)` → 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(out.stdout).ok()?;
    let mut parts = version.split_whitespace().nth(1)?.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}
