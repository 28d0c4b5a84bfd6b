//! A network model's tanh hidden layer (⇄ `advisor/players/learned.py` `HiddenLayer`): the term it
//! adds to one player's win logit.
//!
//! Bit for bit with Python, in this order (docs/evaluator.md, "Native inference"): per unit `j`,
//! `pre_j = (Σ_i row[i] * weights_in[i][j]) + bias[j]`, the sum left to right over the row's
//! features from `0.0`, a feature of `0` skipped (adding `±0.0` to a sum begun at `+0.0` leaves it
//! as it was, so skipping is exact); then `Σ_j tanh(pre_j) * weights_out[j]`, left to right from
//! `0.0`; `tanh` the platform libm's (as CPython's `math.tanh`).

/// Units summed at once on the stack (a wider layer is summed a block at a time, in the same order).
const BLOCK: usize = 64;

/// A hidden layer's weights as a model file holds them: one row per feature of one weight per unit,
/// a bias per unit, an output weight per unit.
pub type HiddenWeights<'a> = (&'a [Vec<f64>], &'a [f64], &'a [f64]);

/// A hidden layer's weights (⇄ `learned.HiddenLayer`).
#[derive(Clone, Debug, PartialEq)]
pub struct HiddenLayer {
    units: usize,
    /// One row per feature, `units` columns each (row-major, as the file keeps them).
    weights_in: Vec<f64>,
    bias: Vec<f64>,
    weights_out: Vec<f64>,
}

impl HiddenLayer {
    /// A layer over rows of `features` numbers (⇄ `learned.HiddenLayer.from_json`, which has
    /// already checked the weights); an error names what has the wrong length.
    pub fn new(weights_in: &[Vec<f64>], bias: &[f64], weights_out: &[f64], features: usize) -> Result<HiddenLayer, String> {
        let units = bias.len();
        if units == 0 {
            return Err("evaluator: a hidden layer needs at least one unit".into());
        }
        if weights_out.len() != units {
            return Err(format!("evaluator: {} hidden output weights, expected {units}", weights_out.len()));
        }
        if weights_in.len() != features {
            return Err(format!("evaluator: {} hidden weight rows, expected {features}", weights_in.len()));
        }
        if let Some((i, row)) = weights_in.iter().enumerate().find(|(_, row)| row.len() != units) {
            return Err(format!("evaluator: hidden weight row {i} has {} numbers, expected {units}", row.len()));
        }
        Ok(HiddenLayer { units, weights_in: weights_in.concat(), bias: bias.to_vec(), weights_out: weights_out.to_vec() })
    }

    /// The layer's term of the win logit of a player whose features are `row`
    /// (⇄ `learned.HiddenLayer.logit`).
    pub fn logit(&self, row: &[f64]) -> f64 {
        let mut total = 0.0;
        for start in (0..self.units).step_by(BLOCK) {
            let width = BLOCK.min(self.units - start);
            let mut sums = [0.0; BLOCK];
            let sums = &mut sums[..width];
            for (&x, weights) in row.iter().zip(self.weights_in.chunks_exact(self.units)) {
                if x != 0.0 {
                    for (sum, &w) in sums.iter_mut().zip(&weights[start..start + width]) {
                        *sum += x * w;
                    }
                }
            }
            let bias = &self.bias[start..start + width];
            let out = &self.weights_out[start..start + width];
            for ((&sum, &b), &o) in sums.iter().zip(bias).zip(out) {
                total += (sum + b).tanh() * o;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition written out: per unit the ordered sum with zeros included, then the output sum.
    fn reference(layer: &HiddenLayer, row: &[f64]) -> f64 {
        let mut total = 0.0;
        for j in 0..layer.units {
            let mut sum = 0.0;
            for (i, &x) in row.iter().enumerate() {
                sum += x * layer.weights_in[i * layer.units + j];
            }
            total += (sum + layer.bias[j]).tanh() * layer.weights_out[j];
        }
        total
    }

    fn layer(features: usize, units: usize, seed: u64) -> HiddenLayer {
        let mut rng = crate::rng::Rng::new(seed);
        let mut draw = || rng.random() * 2.0 - 1.0;
        let rows: Vec<Vec<f64>> = (0..features).map(|_| (0..units).map(|_| draw()).collect()).collect();
        let bias: Vec<f64> = (0..units).map(|_| draw()).collect();
        let out: Vec<f64> = (0..units).map(|_| draw()).collect();
        HiddenLayer::new(&rows, &bias, &out, features).unwrap()
    }

    proptest::proptest! {
        /// Skipping zero features and summing in blocks of units change no bit.
        #[test]
        fn blocks_and_skipped_zeros_equal_the_plain_sum(seed in 0u64..1000, units in 1usize..150,
                                                        zeros in proptest::collection::vec(proptest::bool::ANY, 12)) {
            let layer = layer(12, units, seed);
            let row: Vec<f64> = zeros.iter().enumerate().map(|(i, &z)| if z { 0.0 } else { i as f64 * 0.37 - 2.0 }).collect();
            proptest::prop_assert_eq!(layer.logit(&row).to_bits(), reference(&layer, &row).to_bits());
        }
    }

    #[test]
    fn a_layer_of_the_wrong_shape_is_refused() {
        let rows = vec![vec![0.0; 3]; 2];
        assert_eq!(HiddenLayer::new(&rows, &[0.0; 3], &[0.0; 3], 4).unwrap_err(), "evaluator: 2 hidden weight rows, expected 4");
        assert_eq!(HiddenLayer::new(&rows, &[0.0; 3], &[0.0; 2], 2).unwrap_err(), "evaluator: 2 hidden output weights, expected 3");
        assert_eq!(HiddenLayer::new(&[], &[], &[], 0).unwrap_err(), "evaluator: a hidden layer needs at least one unit");
        let ragged = vec![vec![0.0; 3], vec![0.0; 2]];
        assert_eq!(HiddenLayer::new(&ragged, &[0.0; 3], &[0.0; 3], 2).unwrap_err(),
                   "evaluator: hidden weight row 1 has 2 numbers, expected 3");
    }
}
