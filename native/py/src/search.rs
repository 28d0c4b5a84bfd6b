//! `refuge_native.search`: one whole search per call, the GIL released while it runs
//! (⇄ `search.ismcts.run_tree` for one worker's tree, called by `Position.native_search`).

use std::cell::Cell;
use std::ptr::NonNull;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

use refuge_core::evaluator::Model;
use refuge_core::endgames::SearchOracle;
use refuge_core::heuristic::Heuristic;
use refuge_core::ismcts::{
    watch_step_tree, Config, Helpers, Limit, PlayerSums, Progress, Simultaneous, Sums, Table, TreeOutcome, Walked,
    Watch,
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

/// An information set's key in the table: (player, history, own pending choice).
type Key = (usize, u64, i32);

/// Where a report's tree lies: the table, and with `keep_tree` the edges walked.
type View = (NonNull<Table<Key>>, Option<NonNull<Walked>>);

/// The growing tree as a progress report shows it (⇄ `search.ismcts.LiveTree`), readable only
/// while that report runs: its node count, and with `keep_tree` the kept tree as it is then.
#[pyclass(module = "refuge_native", unsendable)]
pub struct LiveTree {
    nodes: usize,
    /// The table and the edges walked (with `keep_tree`) during the report; `None` after it.
    view: Cell<Option<View>>,
}

#[pymethods]
impl LiveTree {
    /// The information sets in the table at the report (⇄ `len(LiveTree)`).
    fn __len__(&self) -> usize {
        self.nodes
    }

    /// The kept tree as it is at the report, as `search` returns it ([`KeptTree`]), or `None`
    /// without `keep_tree` (⇄ `LiveTree.snapshot`); `RuntimeError` once the report is over.
    fn kept(&self) -> PyResult<Option<KeptTree>> {
        let (table, walked) = self
            .view
            .get()
            .ok_or_else(|| PyRuntimeError::new_err("search: the live tree is read only during its progress report"))?;
        // SAFETY: `view` holds pointers made from the shared borrows `&Table` and `&Walked` of the
        // `Progress` that `report_progress` is handling; it sets them before calling the hook and
        // clears them (`ClearView`, also on unwinding) before it returns, so they are only read
        // while those borrows live and nothing can mutate the tree (the search thread is blocked in
        // the hook; a kept `SearchTable` is mutably borrowed by the search, so Python cannot reach
        // it). The class is `unsendable`: only the search's thread can call this.
        let (table, walked) = unsafe { (table.as_ref(), walked.map(|w| w.as_ref())) };
        Ok(walked.map(|walked| (kept_nodes(table), walked.clone())))
    }
}

/// Clears a [`LiveTree`]'s view when dropped: the report is over.
struct ClearView<'a, 'py>(&'a Bound<'py, LiveTree>);

impl Drop for ClearView<'_, '_> {
    fn drop(&mut self) {
        self.0.borrow().view.set(None);
    }
}

/// Call the progress hook `hook(sums, player_sums, live)` with the searching player's answer so far
/// and the live tree; whether to go on (the hook returned anything but `False`). Python twin: the
/// `on_progress(so_far, live) is False` test of `search.ismcts.run_tree`.
fn report_progress(py: Python<'_>, hook: &PyObject, progress: &Progress<'_, Key>) -> PyResult<bool> {
    let view = (NonNull::from(progress.table), progress.walked.map(NonNull::from));
    let live = Bound::new(py, LiveTree { nodes: progress.table.len(), view: Cell::new(Some(view)) })?;
    let answered = {
        let _clear = ClearView(&live);
        let (sums, player_sums) = &progress.answer;
        hook.call1(py, (sums.clone(), player_sums.clone(), live.clone()))?
    };
    Ok(!answered.bind(py).is(&*PyBool::new(py, false)))
}

/// Grow one tree from the position `ints` (`Position.to_ints()`) for `iterations` and/or `seconds`
/// (whichever comes first) with the stream `random.Random(seed)`; its root statistics, or `None`
/// where the native core cannot copy the Python search exactly (the caller runs Python). With
/// `oracle` (`(probes, leaf_max_nodes)`, an `ExactEndgames`'s probes for this tree) the leaves in
/// the exact endgames' scope take the solver's values, the probes learning as in Python (a progress
/// hook may probe them too). With `table` the tree grows on it in place (tree reuse); a search that returns
/// `None` leaves it as it was. With `also` (the later decisions of the same simultaneous step) the
/// tree grows from the step's start with an answer node per decision, `pinned` (decision index,
/// action) played in every iteration. With `keep_tree` also the tree: every node's (visits, value
/// sum) per action and the edges walked ([`KeptTree`]). With `progress`, every `progress_every`
/// iterations `progress(sums, player_sums, live)` is called (the GIL taken for the call only) with
/// the searching player's answer so far and a [`LiveTree`]; `False` stops the search there, an
/// exception stops it and is raised (a kept table keeps the iterations run, as Python's dict).
/// Python twin: `search.ismcts.run_tree`.
#[pyfunction]
#[pyo3(signature = (ints, seed, iterations, seconds=None, *, also=Vec::new(), pinned=Vec::new(), exploration, exploration_below, widening, prior_weight,
                    cutoff, uniform_root, step_root, simultaneous, mixing, rollout, prior, evaluator,
                    oracle, table=None, keep_tree=false, progress=None, progress_every=64))]
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
    oracle: Option<(PyRef<'_, EndgameProbes>, usize)>,
    table: Option<PyRefMut<'_, SearchTable>>,
    keep_tree: bool,
    progress: Option<PyObject>,
    progress_every: u64,
) -> PyResult<Option<RootStatistics>> {
    if progress_every == 0 {
        return Err(PyValueError::new_err("search: progress_every must be at least 1"));
    }
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
    let probes = oracle.as_ref().map(|(probes, leaf_max_nodes)| (&probes.inner, *leaf_max_nodes));
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
            let mut failure = None;
            let mut report = |p: &Progress<'_, Key>| match &progress {
                Some(hook) => Python::with_gil(|py| report_progress(py, hook, p)).unwrap_or_else(|error| {
                    failure = Some(error);
                    false
                }),
                None => true,
            };
            let watch = progress.is_some().then_some(Watch { every: progress_every, report: &mut report });
            // a leaf the core cannot value as Python would (Unsupported): None, the Python search runs
            let limit = Limit { iterations, seconds };
            let grown =
                watch_step_tree(&decisions, &pins, &config, &helpers, Rng::new(seed), limit, table, watch).ok();
            if let Some(error) = failure {
                return Err(error);
            }
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
    module.add_class::<LiveTree>()?;
    module.add_function(wrap_pyfunction!(search, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate, module)?)
}
