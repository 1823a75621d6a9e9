//! The model file: the intent classifier and the slot tagger, quantized to `i8`, in one
//! checksummed blob (`model/understand.bin`, built into the binary).
//!
//! Layout (little endian): `CNU1`, a u32 header length and the header (JSON: the intent and
//! label names, the bucket bits, the scales, what it was trained on), the intent weights (`i8`)
//! and biases (`f32`), the tagger's emissions (`i8`) and transitions (`f32`), and an FNV-1a
//! checksum of everything before it. Invariant: a blob that is short, long, of another
//! version, or whose checksum does not match is refused whole with an error naming the fix —
//! never read in part.

use serde::{Deserialize, Serialize};

use crate::crf::Crf;
use crate::intent::Classifier;
use crate::table::Table;

const MAGIC: &[u8; 4] = b"CNU1";

/// What the header says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub intents: Vec<String>,
    pub labels: Vec<String>,
    pub intent_bits: u32,
    pub tag_bits: u32,
    pub intent_scale: f32,
    pub tag_scale: f32,
    /// What it was trained on: each source's name and how many examples.
    #[serde(default)]
    pub trained_on: Vec<(String, usize)>,
    /// The SHA-256 of the training files, as the trainer read them (hex), when known.
    #[serde(default)]
    pub data: String,
}

/// Why a model blob cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("the understanding model is corrupt ({why}); rebuild cn from a clean checkout (crates/understand/model/understand.bin), or retrain it with `bash bench/understand/train.sh`")]
    Corrupt { why: String },
}

fn corrupt(why: impl Into<String>) -> ModelError {
    ModelError::Corrupt { why: why.into() }
}

/// The two models, as loaded.
#[derive(Debug, Clone)]
pub struct Model<'a> {
    pub header: Header,
    pub intent: Classifier<'a>,
    pub tagger: Crf<'a>,
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A reader over a blob that fails, never panics, past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ModelError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| corrupt("it ends early"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, ModelError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, ModelError> {
        let b = self.take(n.checked_mul(4).ok_or_else(|| corrupt("a size overflows"))?)?;
        Ok(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    fn i8s(&mut self, n: usize) -> Result<&'a [i8], ModelError> {
        let b = self.take(n)?;
        Ok(as_i8(b))
    }
}

/// The same bytes read as signed.
fn as_i8(b: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size and alignment and every bit pattern is valid for
    // both; the view borrows `b` for its whole lifetime. Copying instead would allocate the
    // tables that the binary already holds.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i8>(), b.len()) }
}

impl<'a> Model<'a> {
    /// Read a blob.
    pub fn read(bytes: &'a [u8]) -> Result<Model<'a>, ModelError> {
        if bytes.len() < 16 || &bytes[..4] != MAGIC {
            return Err(corrupt("it is not a cn understanding model (CNU1)"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut s = [0u8; 8];
        s.copy_from_slice(sum);
        if checksum(body) != u64::from_le_bytes(s) {
            return Err(corrupt("its checksum does not match"));
        }
        let mut r = Reader { bytes: body, at: 4 };
        let len = r.u32()? as usize;
        let header: Header =
            serde_json::from_slice(r.take(len)?).map_err(|e| corrupt(format!("its header does not read: {e}")))?;
        if header.intent_bits > 24 || header.tag_bits > 24 || header.intents.is_empty() || header.labels.is_empty() {
            return Err(corrupt("its header names impossible sizes"));
        }
        let c = header.intents.len();
        let l = header.labels.len();
        let iw = r.i8s(c << header.intent_bits)?;
        let ib = r.f32s(c)?;
        let tw = r.i8s(l << header.tag_bits)?;
        let tt = r.f32s((l + 1) * l)?;
        if r.at != body.len() {
            return Err(corrupt("it has bytes after its tables"));
        }
        Ok(Model {
            intent: Classifier {
                classes: c,
                bits: header.intent_bits,
                weights: Table::I8 { weights: iw, scale: header.intent_scale },
                bias: ib,
            },
            tagger: Crf {
                labels: header.labels.clone(),
                bits: header.tag_bits,
                emissions: Table::I8 { weights: tw, scale: header.tag_scale },
                transitions: tt,
            },
            header,
        })
    }

    /// The blob of a trained model (its tables quantized).
    pub fn write(
        intents: &[String],
        intent: &Classifier,
        tagger: &Crf,
        trained_on: Vec<(String, usize)>,
        data: String,
    ) -> Vec<u8> {
        let (iw, iscale) = intent.weights.quantized();
        let (tw, tscale) = tagger.emissions.quantized();
        let header = Header {
            intents: intents.to_vec(),
            labels: tagger.labels.clone(),
            intent_bits: intent.bits,
            tag_bits: tagger.bits,
            intent_scale: iscale,
            tag_scale: tscale,
            trained_on,
            data,
        };
        let h = serde_json::to_vec(&header).unwrap_or_default();
        let mut out = Vec::with_capacity(iw.len() + tw.len() + h.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(h.len() as u32).to_le_bytes());
        out.extend_from_slice(&h);
        out.extend(iw.iter().map(|&x| x as u8));
        for b in &intent.bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out.extend(tw.iter().map(|&x| x as u8));
        for t in &tagger.transitions {
            out.extend_from_slice(&t.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob() -> Vec<u8> {
        let intents: Vec<String> = vec!["a".into(), "b".into()];
        let mut c = Classifier::new(2, 4);
        if let Some(w) = c.weights.trainable() {
            w[3] = 1.5;
        }
        let t = Crf::new(vec!["O".into(), "B-x".into(), "I-x".into()], 4);
        Model::write(&intents, &c, &t, vec![("toy".into(), 1)], String::new())
    }

    #[test]
    fn a_written_model_reads_back() {
        let b = blob();
        let m = Model::read(&b).unwrap();
        assert_eq!(m.header.intents, ["a", "b"]);
        assert_eq!(m.intent.probabilities(&[1]).len(), 2);
        assert!(m.intent.probabilities(&[1])[1] > 0.7, "the quantized weight is kept");
    }

    #[test]
    fn a_damaged_model_is_refused_whole_with_the_fix() {
        let b = blob();
        for cut in [0, 3, 10, b.len() - 1] {
            let e = Model::read(&b[..cut]).unwrap_err().to_string();
            assert!(e.contains("corrupt") && e.contains("rebuild"), "{e}");
        }
        let mut flipped = b.clone();
        flipped[40] ^= 1;
        assert!(Model::read(&flipped).unwrap_err().to_string().contains("checksum"));
    }
}
