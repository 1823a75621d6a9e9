//! A table of weights, one row per feature bucket: as trained (`f32`, owned), or as shipped
//! (`i8` and one scale, borrowed from the bytes built into the binary — nothing is copied or
//! allocated to load it).

/// Weights, row-major by feature.
#[derive(Debug, Clone, PartialEq)]
pub enum Table<'a> {
    F32(Vec<f32>),
    I8 { weights: &'a [i8], scale: f32 },
}

impl Table<'_> {
    /// Add row `row` (of `width` weights) to `out`; a row past the end adds nothing.
    pub fn add_row(&self, row: usize, width: usize, out: &mut [f32]) {
        let at = row * width;
        match self {
            Table::F32(w) => {
                if let Some(r) = w.get(at..at + width) {
                    for (a, b) in out.iter_mut().zip(r) {
                        *a += b;
                    }
                }
            }
            Table::I8 { weights, scale } => {
                if let Some(r) = weights.get(at..at + width) {
                    for (a, b) in out.iter_mut().zip(r) {
                        *a += f32::from(*b) * scale;
                    }
                }
            }
        }
    }

    /// The weights to train (an `i8` table is not trained: it has none to give).
    pub fn trainable(&mut self) -> Option<&mut Vec<f32>> {
        match self {
            Table::F32(w) => Some(w),
            Table::I8 { .. } => None,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Table::F32(w) => w.len(),
            Table::I8 { weights, .. } => weights.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// As `i8` with one scale (the largest weight is ±127).
    pub fn quantized(&self) -> (Vec<i8>, f32) {
        match self {
            Table::I8 { weights, scale } => (weights.to_vec(), *scale),
            Table::F32(w) => {
                let max = w.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
                (w.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
            }
        }
    }
}
