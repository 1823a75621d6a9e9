//! Link settings for the `cn` binary only (dependencies are not rebuilt when these change).
//!
//! `-z pack-relative-relocs` stores the ~44 000 relative relocations of a position-independent
//! binary as a compact bitmap (DT_RELR, glibc ≥ 2.36, binutils ≥ 2.38) instead of 24-byte RELA
//! entries: a smaller file and less work for the loader at every start (`cn --version`).
fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
