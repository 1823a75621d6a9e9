//! The intent: a linear classifier (multinomial logistic regression) over a message's hashed
//! features, trained by stochastic gradient descent with AdaGrad steps.
//!
//! Its scores are probabilities, so the caller can hold a change to the hub to a high
//! confidence. Invariant: prediction reads only the weights of the message's features and is
//! the same on every machine (the order of training is fixed by a seed).

use crate::rng::Rng;
use crate::table::Table;

/// Weights: one row of `classes` weights per feature bucket, and a bias per class.
#[derive(Debug, Clone, PartialEq)]
pub struct Classifier<'a> {
    pub classes: usize,
    pub bits: u32,
    pub weights: Table<'a>,
    pub bias: Vec<f32>,
}

/// One training example: feature buckets, its class, and how much it counts.
#[derive(Debug, Clone)]
pub struct Example {
    pub features: Vec<u32>,
    pub class: usize,
    pub weight: f32,
}

/// How training runs.
#[derive(Debug, Clone, Copy)]
pub struct Training {
    pub epochs: usize,
    pub rate: f32,
    pub l2: f32,
    pub seed: u64,
}

impl Classifier<'_> {
    pub fn new(classes: usize, bits: u32) -> Classifier<'static> {
        Classifier { classes, bits, weights: Table::F32(vec![0.0; classes << bits]), bias: vec![0.0; classes] }
    }

    /// The probability of each class.
    pub fn probabilities(&self, features: &[u32]) -> Vec<f32> {
        let mut s = self.bias.clone();
        for &f in features {
            self.weights.add_row(f as usize, self.classes, &mut s);
        }
        softmax(&mut s);
        s
    }

    /// Train on `examples` (their order is shuffled by `t.seed`).
    pub fn train(&mut self, examples: &[Example], t: Training) {
        let c = self.classes;
        if self.weights.trainable().is_none() {
            return;
        }
        let mut g2w = vec![1e-6f32; self.weights.len()];
        let mut g2b = vec![1e-6f32; c];
        let mut order: Vec<usize> = (0..examples.len()).collect();
        let mut rng = Rng::new(t.seed);
        for _ in 0..t.epochs {
            rng.shuffle(&mut order);
            for &i in &order {
                let e = &examples[i];
                let p = self.probabilities(&e.features);
                for k in 0..c {
                    let g = (p[k] - if k == e.class { 1.0 } else { 0.0 }) * e.weight;
                    if g.abs() < 1e-7 {
                        continue;
                    }
                    g2b[k] += g * g;
                    self.bias[k] -= t.rate * g / g2b[k].sqrt();
                    let Some(w) = self.weights.trainable() else { return };
                    for &f in &e.features {
                        let j = f as usize * c + k;
                        let gj = g + t.l2 * w[j];
                        g2w[j] += gj * gj;
                        w[j] -= t.rate * gj / g2w[j].sqrt();
                    }
                }
            }
        }
    }
}

/// Scores to probabilities, in place.
pub fn softmax(s: &mut [f32]) {
    let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in s.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    if sum > 0.0 {
        for v in s.iter_mut() {
            *v /= sum;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_separable_toy_problem() {
        let ex = |f: Vec<u32>, class| Example { features: f, class, weight: 1.0 };
        let examples = vec![ex(vec![1, 2], 0), ex(vec![1, 3], 0), ex(vec![4, 5], 1), ex(vec![4, 6], 1)];
        let mut c = Classifier::new(2, 4);
        c.train(&examples, Training { epochs: 20, rate: 0.5, l2: 0.0, seed: 7 });
        assert!(c.probabilities(&[1])[0] > 0.8);
        assert!(c.probabilities(&[4])[1] > 0.8);
        let p = c.probabilities(&[]);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
