//! What a search answers, from its trees' root sums (⇄ `search.request.SearchResult.from_trees`):
//! the workers' trees merged, every legal action's statistics and the chosen action, computed as
//! the Python reference computes them, operation for operation, so the floats are equal bit for bit
//! (tests/native/test_root_result.py). `x ** 2` is libm's `pow` as CPython calls it (not `x * x`).

use crate::ismcts::{PlayerSums, Sums};

/// The two-sided 95% normal quantile (⇄ `search.request.Z95`).
pub const Z95: f64 = 1.959963984540054;

/// One root action's statistics (⇄ `search.request.ActionStats`, its fields in order but `exact`).
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRow {
    pub action: i32,
    pub visits: u64,
    pub win: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub score: f64,
    pub wins: Vec<f64>,
    pub scores: Vec<f64>,
    pub score_noise: f64,
    pub share: Option<f64>,
    pub samples: u64,
}

/// A search's answer (⇄ `SearchResult.from_trees`'s `actions`, `chosen` and `per_worker_iterations`).
#[derive(Clone, Debug, PartialEq)]
pub struct RootResult {
    /// Every legal action's statistics, in the order of `legal`.
    pub actions: Vec<ActionRow>,
    /// The chosen action's index in `actions`.
    pub chosen: usize,
    pub per_worker: Vec<u64>,
}

/// One action's sums in one tree: (visits, value sum, score sum, policy sum) (⇄ `RootStats`).
type Stats = (u64, f64, f64, f64);

const UNVISITED: Stats = (0, 0.0, 0.0, 0.0);

/// Python's `max(a, b)` of floats (⇄ `builtins.max`): `a` unless `b` is greater.
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Python's `min(a, b)` of floats (⇄ `builtins.min`): `a` unless `b` is smaller.
fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Python's `x ** 2` of a float (⇄ `float.__pow__`): libm's `pow`, as CPython's `float_pow` calls
/// it, which LLVM would otherwise fold into `x * x` (not always the same last bit).
fn py_squared(x: f64) -> f64 {
    x.powf(std::hint::black_box(2.0))
}

/// The sums of `action` in one tree's root (⇄ `tree.sums.get(action, UNVISITED)`).
fn stats_of(sums: &Sums, action: i32) -> Option<Stats> {
    sums.iter().find(|row| row.0 == action).map(|&(_, visits, value, score, policy)| (visits, value, score, policy))
}

/// Several trees' root sums added up, per action in the order first met (⇄ `search.request._merged`).
pub fn merged(trees: &[(Sums, PlayerSums)]) -> (Vec<(i32, Stats)>, PlayerSums) {
    let mut sums: Vec<(i32, Stats)> = Vec::new();
    let mut players: PlayerSums = Vec::new();
    for (tree_sums, tree_players) in trees {
        for &(action, visits, value, score, policy) in tree_sums {
            match sums.iter_mut().find(|(a, _)| *a == action) {
                Some((_, s)) => *s = (s.0 + visits, s.1 + value, s.2 + score, s.3 + policy),
                None => sums.push((action, (visits, value, score, policy))),
            }
        }
        for (action, flat) in tree_players {
            match players.iter_mut().find(|(a, _)| a == action) {
                Some((_, mine)) => mine.iter_mut().zip(flat).for_each(|(m, v)| *m += v),
                None => players.push((*action, flat.clone())),
            }
        }
    }
    (sums, players)
}

/// The Wilson score interval of a success rate `mean` over `n` trials (⇄ `search.request.wilson_interval`).
pub fn wilson_interval(mean: f64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = Z95;
    let n = n as f64;
    let p = py_min(1.0, py_max(0.0, mean));
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    (py_max(0.0, centre - half), py_min(1.0, centre + half))
}

/// The 95% half-width of a merged mean implied by the spread between trees (⇄
/// `search.request.worker_spread`), from every tree's (mean, visits).
pub fn worker_spread(seen: &[(f64, u64)]) -> f64 {
    let seen: Vec<(f64, u64)> = seen.iter().copied().filter(|&(_, n)| n > 0).collect();
    if seen.len() < 2 {
        return 0.0;
    }
    let total = seen.iter().map(|&(_, n)| n).sum::<u64>() as f64;
    let merged = seen.iter().fold(0.0, |sum, &(m, n)| sum + m * n as f64) / total;
    let variance = seen.iter().fold(0.0, |sum, &(m, n)| sum + py_squared(n as f64 / total) * py_squared(m - merged));
    let k = seen.len() as f64;
    Z95 * (variance * k / (k - 1.0)).sqrt()
}

/// One action's statistics from its sums (⇄ `search.request.ActionStats.from_sums`): `flat` every
/// player's sums as the tree keeps them (returns, scores, squared score, iterations summed).
fn action_row(action: i32, (visits, value_sum, score_sum): (u64, f64, f64), flat: Option<&[f64]>, spread: f64,
              share: Option<f64>, player: usize) -> ActionRow {
    let n = visits as f64;
    let win = if visits > 0 { value_sum / n } else { 0.0 };
    let score = if visits > 0 { score_sum / n } else { 0.0 };
    let (mut ci_low, mut ci_high) = wilson_interval(win, visits);
    if spread > 0.0 && visits > 0 {
        ci_low = py_min(ci_low, py_max(0.0, win - spread));
        ci_high = py_max(ci_high, py_min(1.0, win + spread));
    }
    let mut row = ActionRow { action, visits, win, ci_low, ci_high, score, wins: Vec::new(), scores: Vec::new(),
                              score_noise: f64::INFINITY, share, samples: 0 };
    let Some(flat) = flat else { return row };
    let players = (flat.len() - 2) / 2;
    let (squared, count) = (flat[2 * players], flat[2 * players + 1]);
    if count == 0.0 {
        return row;
    }
    row.samples = count as u64;
    row.wins = flat[..players].iter().map(|v| v / count).collect();
    row.scores = flat[players..2 * players].iter().map(|v| v / count).collect();
    if count > 1.0 {
        let mean = row.scores[player];
        let variance = py_max(0.0, squared / count - mean * mean);
        row.score_noise = Z95 * (variance * count / (count - 1.0) / count).sqrt();
    }
    row
}

/// The result of independent trees' root sums (`trees`: each tree's searching player's answer)
/// for `player` with the root's `legal` actions; `by_win` under uniform root selection (⇄
/// `SearchResult.from_trees`: the sums added up, each interval widened to the spread between the
/// trees, the chosen action).
pub fn root_result(trees: &[(Sums, PlayerSums)], player: usize, legal: &[i32], by_win: bool) -> RootResult {
    let (merged_sums, merged_players);
    let (sums, players): (Vec<(i32, Stats)>, &PlayerSums) = if trees.len() == 1 {
        let (one, one_players) = &trees[0];
        (one.iter().map(|&(a, v, w, s, p)| (a, (v, w, s, p))).collect(), one_players)
    } else {
        (merged_sums, merged_players) = merged(trees);
        (merged_sums, &merged_players)
    };
    let policy_total = sums.iter().filter(|(a, _)| legal.contains(a)).fold(0.0, |total, (_, s)| total + s.3);
    let mut actions = Vec::with_capacity(legal.len());
    for &action in legal {
        let stats = sums.iter().find(|(a, _)| *a == action).map_or(UNVISITED, |(_, s)| *s);
        let share = (policy_total > 0.0).then(|| stats.3 / policy_total);
        let spread = if trees.len() > 1 {
            let seen: Vec<(f64, u64)> = trees
                .iter()
                .map(|(tree, _)| {
                    let (visits, value, ..) = stats_of(tree, action).unwrap_or(UNVISITED);
                    (if visits > 0 { value / visits as f64 } else { 0.0 }, visits)
                })
                .collect();
            worker_spread(&seen)
        } else {
            0.0
        };
        let flat = players.iter().find(|(a, _)| *a == action).map(|(_, flat)| flat.as_slice());
        actions.push(action_row(action, (stats.0, stats.1, stats.2), flat, spread, share, player));
    }
    let chosen = chosen(&actions, by_win, policy_total > 0.0);
    let per_worker = trees.iter().map(|(sums, _)| sums.iter().map(|row| row.1).sum()).collect();
    RootResult { actions, chosen, per_worker }
}

/// The action `from_trees` picks: the best mean win under uniform root selection (ties: more
/// visits, then the game's order); with a mean strategy its likeliest action (ties: more visits,
/// higher win, the game's order); else the most visited (ties: higher win, the game's order). Its
/// index (⇄ the `max(actions, key=...)` of `SearchResult.from_trees`).
fn chosen(actions: &[ActionRow], by_win: bool, by_share: bool) -> usize {
    let better = |a: &ActionRow, b: &ActionRow| -> bool {
        // whether `b` beats `a` (Python's `max` keeps the first of equals; the order breaks ties)
        let keys = |s: &ActionRow| -> [f64; 3] {
            if by_win {
                [s.win, s.visits as f64, 0.0]
            } else if by_share {
                [s.share.unwrap_or(0.0), s.visits as f64, s.win]
            } else {
                [s.visits as f64, s.win, 0.0]
            }
        };
        keys(b).partial_cmp(&keys(a)) == Some(std::cmp::Ordering::Greater)
    };
    let mut best = 0;
    for (index, action) in actions.iter().enumerate().skip(1) {
        if better(&actions[best], action) {
            best = index;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(rows: &[(i32, u64, f64)], players: &[(i32, [f64; 6])]) -> (Sums, PlayerSums) {
        (
            rows.iter().map(|&(a, v, w)| (a, v, w, 2.0 * w, 0.0)).collect(),
            players.iter().map(|(a, flat)| (*a, flat.to_vec())).collect(),
        )
    }

    #[test]
    fn one_tree_gives_its_means_and_the_most_visited_action() {
        let one = tree(&[(3, 30, 18.0), (5, 10, 2.0)], &[(3, [18.0, 12.0, 40.0, 20.0, 100.0, 30.0])]);
        let result = root_result(&[one], 0, &[5, 3, 7], false);
        assert_eq!(result.actions[result.chosen].action, 3);
        assert_eq!(result.per_worker, vec![40]);
        let [five, three, seven] = &result.actions[..] else { panic!() };
        assert_eq!((three.win, three.samples, three.wins.clone()), (0.6, 30, vec![0.6, 0.4]));
        assert_eq!((five.win, five.samples, five.wins.len()), (0.2, 0, 0)); // no player sums: none
        assert_eq!((seven.visits, seven.ci_low, seven.ci_high), (0, 0.0, 1.0));
        assert!(three.score_noise.is_finite() && five.score_noise.is_infinite());
    }

    #[test]
    fn a_kept_trees_visits_do_not_dilute_the_players_means() {
        // 30 visits, 10 of them this search's: the players' means are over those 10
        let kept = tree(&[(3, 30, 18.0)], &[(3, [6.0, 4.0, 50.0, 30.0, 260.0, 10.0])]);
        let row = &root_result(&[kept], 0, &[3], false).actions[0];
        assert_eq!((row.samples, row.wins.clone(), row.scores.clone()), (10, vec![0.6, 0.4], vec![5.0, 3.0]));
        assert_eq!(row.win, 0.6);
    }

    #[test]
    fn trees_merge_in_the_order_first_met_and_widen_to_their_spread() {
        let a = tree(&[(3, 20, 18.0), (5, 4, 1.0)], &[]);
        let b = tree(&[(5, 6, 3.0), (3, 10, 1.0)], &[]);
        let (sums, _) = merged(&[a.clone(), b.clone()]);
        assert_eq!(sums.iter().map(|(a, s)| (*a, s.0)).collect::<Vec<_>>(), vec![(3, 30), (5, 10)]);
        let result = root_result(&[a, b], 0, &[3, 5], false);
        let alone = wilson_interval(19.0 / 30.0, 30);
        assert!(result.actions[0].ci_low < alone.0 && result.actions[0].ci_high > alone.1);
        assert_eq!(result.per_worker, vec![24, 16]);
    }

    #[test]
    fn ties_keep_the_games_order() {
        let one = tree(&[(3, 10, 5.0), (5, 10, 5.0)], &[]);
        assert_eq!(root_result(std::slice::from_ref(&one), 0, &[5, 3], false).chosen, 0); // 5
        assert_eq!(root_result(&[one], 0, &[3, 5], true).chosen, 0); // 3
    }
}
