//! The model ships deflated: `model/understand.bin` (the trainer's blob, unchanged) is
//! compressed here into `OUT_DIR`, and `lib.rs` builds that into the binary and inflates it
//! once, on first use. Lossless: the bytes read back are the file's, checksum and all.

use std::io::Write;

fn main() {
    let src = "model/understand.bin";
    println!("cargo:rerun-if-changed={src}");
    let blob = std::fs::read(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&blob).expect("deflate into memory");
    let packed = z.finish().expect("deflate into memory");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("understand.bin.deflate"), packed).expect("write OUT_DIR/understand.bin.deflate");
}
