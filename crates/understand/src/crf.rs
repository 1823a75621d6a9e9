//! The slots: a linear-chain conditional random field over the words of a message, labelling
//! each word `O`, `B-<slot>` or `I-<slot>` (begins or continues a slot), trained on the
//! log-likelihood with forward–backward and AdaGrad steps, decoded with Viterbi.
//!
//! Invariant: a decoded labelling is always well formed — an `I-x` only after a `B-x` or an
//! `I-x` — because those transitions are not allowed at all (in training as in decoding), so
//! every slot the tagger returns is one contiguous span.

// Forward–backward and Viterbi read as the textbook writes them: indexed by label.
#![allow(clippy::needless_range_loop)]

use crate::rng::Rng;
use crate::table::Table;

/// Label names are `O`, `B-…`, `I-…`; index 0 is `O`.
#[derive(Debug, Clone, PartialEq)]
pub struct Crf<'a> {
    pub labels: Vec<String>,
    pub bits: u32,
    /// `(1 << bits) × labels`, row-major by feature.
    pub emissions: Table<'a>,
    /// `(labels + 1) × labels`: from a label (the last row: the start) to a label.
    pub transitions: Vec<f32>,
}

/// A training sentence: features per token, and the gold label of each.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub features: Vec<Vec<u32>>,
    pub labels: Vec<usize>,
}

const NEG: f32 = -1e30;

impl Crf<'_> {
    pub fn new(labels: Vec<String>, bits: u32) -> Crf<'static> {
        let n = labels.len();
        Crf { labels, bits, emissions: Table::F32(vec![0.0; n << bits]), transitions: vec![0.0; (n + 1) * n] }
    }

    fn n(&self) -> usize {
        self.labels.len()
    }

    /// Whether `to` may follow `from` (`None`: the start).
    pub fn allowed(&self, from: Option<usize>, to: usize) -> bool {
        let Some(slot) = self.labels[to].strip_prefix("I-") else { return true };
        match from {
            None => false,
            Some(f) => {
                let l = &self.labels[f];
                l.strip_prefix("B-") == Some(slot) || l.strip_prefix("I-") == Some(slot)
            }
        }
    }

    fn transition(&self, from: Option<usize>, to: usize) -> f32 {
        if !self.allowed(from, to) {
            return NEG;
        }
        let row = from.unwrap_or(self.n());
        self.transitions[row * self.n() + to]
    }

    fn emit(&self, features: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let n = self.n();
        features
            .iter()
            .map(|fs| {
                let mut e = vec![0.0f32; n];
                for &f in fs {
                    self.emissions.add_row(f as usize, n, &mut e);
                }
                e
            })
            .collect()
    }

    /// The best labelling of a sentence.
    pub fn decode(&self, features: &[Vec<u32>]) -> Vec<usize> {
        let t_len = features.len();
        if t_len == 0 {
            return Vec::new();
        }
        let n = self.n();
        let e = self.emit(features);
        let mut score: Vec<f32> = (0..n).map(|l| self.transition(None, l) + e[0][l]).collect();
        let mut back: Vec<Vec<usize>> = Vec::with_capacity(t_len);
        for et in e.iter().skip(1) {
            let mut next = vec![NEG; n];
            let mut from = vec![0usize; n];
            for l in 0..n {
                for k in 0..n {
                    let s = score[k] + self.transition(Some(k), l);
                    if s > next[l] {
                        next[l] = s;
                        from[l] = k;
                    }
                }
                next[l] += et[l];
            }
            back.push(from);
            score = next;
        }
        let mut best = (0..n).fold(0, |b, l| if score[l] > score[b] { l } else { b });
        let mut path = vec![best; t_len];
        for t in (1..t_len).rev() {
            best = back[t - 1][best];
            path[t - 1] = best;
        }
        path
    }

    /// Train on `sentences`, shuffled by `seed`.
    pub fn train(&mut self, sentences: &[Sentence], epochs: usize, rate: f32, l2: f32, seed: u64) {
        let n = self.n();
        if self.emissions.trainable().is_none() {
            return;
        }
        let mut g2e = vec![1e-6f32; self.emissions.len()];
        let mut g2t = vec![1e-6f32; self.transitions.len()];
        let mut order: Vec<usize> = (0..sentences.len()).collect();
        let mut rng = Rng::new(seed);
        for _ in 0..epochs {
            rng.shuffle(&mut order);
            for &i in &order {
                let s = &sentences[i];
                if s.labels.is_empty() {
                    continue;
                }
                let (node, edge) = self.marginals(&s.features);
                let Some(w) = self.emissions.trainable() else { return };
                // Emissions.
                for (t, fs) in s.features.iter().enumerate() {
                    for l in 0..n {
                        let g = node[t][l] - if s.labels[t] == l { 1.0 } else { 0.0 };
                        if g.abs() < 1e-6 {
                            continue;
                        }
                        for &f in fs {
                            let j = f as usize * n + l;
                            let gj = g + l2 * w[j];
                            g2e[j] += gj * gj;
                            w[j] -= rate * gj / g2e[j].sqrt();
                        }
                    }
                }
                // Transitions: expected minus observed counts.
                let mut grad = edge;
                grad[n * n + s.labels[0]] -= 1.0;
                for t in 1..s.labels.len() {
                    grad[s.labels[t - 1] * n + s.labels[t]] -= 1.0;
                }
                for (j, g) in grad.into_iter().enumerate() {
                    if g.abs() < 1e-6 {
                        continue;
                    }
                    g2t[j] += g * g;
                    self.transitions[j] -= rate * g / g2t[j].sqrt();
                }
            }
        }
    }

    /// Node marginals per token and label, and the expected count of each transition
    /// (start row included), by forward–backward in log space.
    fn marginals(&self, features: &[Vec<u32>]) -> (Vec<Vec<f32>>, Vec<f32>) {
        let n = self.n();
        let t_len = features.len();
        let e = self.emit(features);
        let mut alpha = vec![vec![NEG; n]; t_len];
        for l in 0..n {
            alpha[0][l] = self.transition(None, l) + e[0][l];
        }
        for t in 1..t_len {
            for l in 0..n {
                let v: Vec<f32> = (0..n).map(|k| alpha[t - 1][k] + self.transition(Some(k), l)).collect();
                alpha[t][l] = logsumexp(&v) + e[t][l];
            }
        }
        let mut beta = vec![vec![0.0f32; n]; t_len];
        for t in (0..t_len.saturating_sub(1)).rev() {
            for k in 0..n {
                let v: Vec<f32> = (0..n).map(|l| self.transition(Some(k), l) + e[t + 1][l] + beta[t + 1][l]).collect();
                beta[t][k] = logsumexp(&v);
            }
        }
        let z = logsumexp(&alpha[t_len - 1]);
        let node: Vec<Vec<f32>> =
            (0..t_len).map(|t| (0..n).map(|l| (alpha[t][l] + beta[t][l] - z).exp()).collect()).collect();
        let mut edge = vec![0.0f32; (n + 1) * n];
        for l in 0..n {
            edge[n * n + l] = node[0][l];
        }
        for t in 1..t_len {
            for k in 0..n {
                for l in 0..n {
                    let tr = self.transition(Some(k), l);
                    if tr <= NEG {
                        continue;
                    }
                    edge[k * n + l] += (alpha[t - 1][k] + tr + e[t][l] + beta[t][l] - z).exp();
                }
            }
        }
        (node, edge)
    }
}

fn logsumexp(v: &[f32]) -> f32 {
    let max = v.iter().copied().fold(NEG, f32::max);
    if max <= NEG {
        return NEG;
    }
    max + v.iter().map(|x| (x - max).exp()).sum::<f32>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Vec<String> {
        ["O", "B-when", "I-when"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn learns_spans_and_never_decodes_an_orphan_inside() {
        // Feature 1: a time word; 2: a word after one; 3: other words.
        let s =
            |f: Vec<u32>, l: Vec<usize>| Sentence { features: f.into_iter().map(|x| vec![x, 9]).collect(), labels: l };
        let data = vec![
            s(vec![3, 3, 1, 2], vec![0, 0, 1, 2]),
            s(vec![1, 2, 3], vec![1, 2, 0]),
            s(vec![3, 1, 3], vec![0, 1, 0]),
        ];
        let mut crf = Crf::new(labels(), 4);
        crf.train(&data, 30, 0.5, 0.0, 1);
        assert_eq!(crf.decode(&[vec![3, 9], vec![1, 9], vec![2, 9]]), vec![0, 1, 2]);
        // A lone "word after" with no time word before: never I-when at the start.
        let d = crf.decode(&[vec![2, 9], vec![3, 9]]);
        assert_ne!(d[0], 2);
        assert!(crf.decode(&[]).is_empty());
    }
}
