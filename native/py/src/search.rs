//! `refuge_native.search`: one whole search per call, the GIL released while it runs
//! (⇄ `search.ismcts.run_tree` for one worker's tree, called by `Position.native_search`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use refuge_core::evaluator::Model;
use refuge_core::endgames::SearchOracle;
use refuge_core::heuristic::Heuristic;
use refuge_core::ismcts::{
    run_step_tree, Config, Helpers, Limit, PlayerSums, Simultaneous, Sums, Table, TreeOutcome, Walked,
};
use refuge_core::rng::Rng;
use refuge_core::state::State;

use crate::endgames::EndgameProbes;
use crate::guard;

/// Per answer node (the searching player's first): per root action (action, visits, value sum,
/// score sum, policy sum) and per root action played every player's return sum, score sum and the
/// decider's squared-score sum; with several answers the joint cells; the node count; the
/// iterations run; with `keep_tree` the kept tree.
type RootStatistics = (Vec<(Sums, PlayerSums)>, Vec<(Vec<i32>, Vec<f64>)>, usize, u64, Option<KeptTree>);

/// A kept tree: every node of the table as `(key, [(action, visits, value_sum), ...])` in the order
/// added, and the edges walked with the nodes as indices into that list.
type KeptTree = (Vec<KeptNode>, Walked);

/// A kept node: its key and every action's (action, visits, value sum).
type KeptNode = (NodeKey, Vec<(i32, u64, f64)>);

/// A heuristic policy's parameters (aggression, max-value buying, draw gain, tie draw, behind, save
/// ratio, save margin), as `HeuristicPolicy` holds them.
type HeuristicParameters = (f64, bool, f64, f64, f64, f64, f64);

/// The heuristic of these parameters (⇄ `positions.kernel.heuristics.HeuristicPolicy.__init__`).
fn heuristic(parameters: Option<HeuristicParameters>) -> Option<Heuristic> {
    parameters.map(|(aggression, max_value, draw_gain, tie_draw, behind, save_ratio, save_margin)| Heuristic {
        aggression,
        max_value,
        draw_gain,
        tie_draw,
        behind,
        save_ratio,
        save_margin,
    })
}

/// A node table kept between one player's searches of a game (tree reuse; ⇄ the dict
/// `search(reuse=...)` grows in place).
#[pyclass(module = "refuge_native")]
#[derive(Default)]
pub struct SearchTable {
    inner: Table<(usize, u64, i32)>,
}

/// The table's nodes with every action's (visits, value sum), in the order added (⇄ the node
/// half of `search.ismcts._kept`).
fn kept_nodes(table: &Table<(usize, u64, i32)>) -> Vec<KeptNode> {
    table
        .entries()
        .map(|(key, node)| (*key, node.edges.iter().map(|(a, e)| (*a, e.visits, e.value_sum)).collect()))
        .collect()
}

/// A node's key as Python writes it: `(actor, (player, history, own))`.
type NodeKey = (i32, (usize, u64, i32));

/// An edge as exported: (action, visits, availability, value sum, score sum, regret, policy sum).
type ExportedEdge = (i32, u64, u64, f64, f64, f64, f64);

#[pymethods]
impl SearchTable {
    #[new]
    fn new() -> Self {
        SearchTable::default()
    }

    /// The information sets in the table (⇄ `len(nodes)`).
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Whether the table holds this information set (⇄ `key in nodes`); other keys are not in it.
    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        key.extract::<NodeKey>().is_ok_and(|key| self.inner.contains(&key))
    }

    /// Every node as `(key, [(action, visits, availability, value_sum, score_sum, regret,
    /// policy_sum), ...])`, in the order they were added: the table as Python's search keeps it.
    fn export(&self) -> Vec<(NodeKey, Vec<ExportedEdge>)> {
        self.inner
            .entries()
            .map(|(key, node)| {
                let edges = node
                    .edges
                    .iter()
                    .map(|(a, e)| (*a, e.visits, e.availability, e.value_sum, e.score_sum, e.regret, e.policy_sum))
                    .collect();
                (*key, edges)
            })
            .collect()
    }
}

/// Grow one tree from the position `ints` (`Position.to_ints()`) for `iterations` and/or `seconds`
/// (whichever comes first) with the stream `random.Random(seed)`; its root statistics, or `None`
/// where the native core cannot copy the Python search exactly (the caller runs Python). With
/// `oracle` (`(probes, leaf_max_nodes)`, an `ExactEndgames`'s probes for this tree) the leaves in
/// the exact endgames' scope take the solver's values, the probes learning as in Python. With `table` the tree grows on it in place (tree reuse); a search that returns
/// `None` leaves it as it was. With `also` (the later decisions of the same simultaneous step) the
/// tree grows from the step's start with an answer node per decision, `pinned` (decision index,
/// action) played in every iteration. With `keep_tree` also the tree: every node's (visits, value
/// sum) per action and the edges walked ([`KeptTree`]). Python twin: `search.ismcts.run_tree`.
#[pyfunction]
#[pyo3(signature = (ints, seed, iterations, seconds=None, *, also=Vec::new(), pinned=Vec::new(), exploration, exploration_below, widening, prior_weight,
                    cutoff, uniform_root, step_root, simultaneous, mixing, rollout, prior, evaluator,
                    oracle, table=None, keep_tree=false))]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    ints: Vec<i64>,
    seed: u64,
    iterations: Option<u64>,
    seconds: Option<f64>,
    also: Vec<Vec<i64>>,
    pinned: Vec<(usize, i32)>,
    exploration: f64,
    exploration_below: f64,
    widening: f64,
    prior_weight: f64,
    cutoff: Option<u32>,
    uniform_root: bool,
    step_root: bool,
    simultaneous: &str,
    mixing: f64,
    rollout: Option<HeuristicParameters>,
    prior: Option<HeuristicParameters>,
    evaluator: Option<(Vec<f64>, Vec<f64>)>,
    oracle: Option<(PyRefMut<'_, EndgameProbes>, usize)>,
    table: Option<PyRefMut<'_, SearchTable>>,
    keep_tree: bool,
) -> PyResult<Option<RootStatistics>> {
    let mut decisions = Vec::with_capacity(1 + also.len());
    for ints in std::iter::once(&ints).chain(&also) {
        let state = State::from_ints(ints).map_err(|e| PyValueError::new_err(format!("search: {e}")))?;
        if State::current_player(&state) < 0 {
            return Err(PyValueError::new_err("search: every position must be a player's decision"));
        }
        decisions.push(state);
    }
    let mut pins = vec![None; decisions.len()];
    for (index, action) in pinned {
        *pins.get_mut(index).ok_or_else(|| PyValueError::new_err(format!("search: no decision {index} to pin")))? =
            Some(action);
    }
    let simultaneous = match simultaneous {
        "uct" => Simultaneous::Uct,
        "rm" => Simultaneous::RegretMatching,
        "exp3" => Simultaneous::Exp3,
        other => return Err(PyValueError::new_err(format!("search: unknown simultaneous {other:?}"))),
    };
    let config = Config {
        exploration,
        exploration_below,
        widening,
        prior_weight,
        rollout_cutoff: cutoff,
        uniform_root,
        step_root,
        simultaneous,
        mixing,
        keep_tree,
    };
    let rollout = heuristic(rollout);
    let prior = heuristic(prior);
    let model = match evaluator {
        Some((win, score)) => Some(Model::new(&win, &score).map_err(PyValueError::new_err)?),
        None => None,
    };
    if oracle.is_some() && decisions.iter().any(SearchOracle::hands_back) {
        return Ok(None);
    }
    let mut oracle = oracle;
    let probes = oracle.as_mut().map(|(probes, leaf_max_nodes)| (&mut probes.inner, *leaf_max_nodes));
    let mut fresh = Table::default();
    let mut kept = table;
    let table = match kept.as_mut() {
        Some(kept) => &mut kept.inner,
        None => &mut fresh,
    };
    py.allow_threads(|| {
        guard(|| {
            let oracle = probes.map(|(probes, leaf_max_nodes)| SearchOracle::new(probes, leaf_max_nodes));
            let helpers = Helpers {
                rollout: rollout.as_ref().map(|h| h as _),
                prior: prior.as_ref().map(|h| h as _),
                evaluator: model.as_ref().map(|m| m as _),
                oracle: oracle.as_ref().map(|o| o as _),
            };
            // a leaf the core cannot value as Python would (Unsupported): None, the Python search runs
            let limit = Limit { iterations, seconds };
            let grown = run_step_tree(&decisions, &pins, &config, &helpers, Rng::new(seed), limit, table).ok();
            Ok(grown.map(|TreeOutcome { answers, joint, nodes, iterations, edges, .. }| {
                let kept = edges.map(|edges| (kept_nodes(table), edges));
                (answers, joint, nodes, iterations, kept)
            }))
        })
    })
}

/// Every player's (win share, projected final score) at the position `ints` by the summary model
/// of these weights. Python twin: `advisor.players.learned.LearnedEvaluator.evaluate`.
#[pyfunction]
fn evaluate(ints: Vec<i64>, win_weights: Vec<f64>, score_weights: Vec<f64>) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let state = State::from_ints(&ints).map_err(|e| PyValueError::new_err(format!("evaluate: {e}")))?;
    let model = Model::new(&win_weights, &score_weights).map_err(PyValueError::new_err)?;
    Ok(refuge_core::evaluator::evaluate(&model, &state))
}

/// Add the search's functions to the module (called by the module's `lib.rs`).
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<SearchTable>()?;
    module.add_function(wrap_pyfunction!(search, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate, module)?)
}
