//! `refuge_native.search`: one whole search per call, the GIL released while it runs, every
//! worker's tree on its own thread (⇄ `search.ismcts.run_tree` per worker's tree, called by
//! `Position.native_search`).

use std::cell::Cell;
use std::ptr::NonNull;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyTuple};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use refuge_core::evaluator::Model;
use refuge_core::endgames::{Probes, SearchOracle};
use refuge_core::heuristic::Heuristic;
use refuge_core::foreseen::{Foreseen, Streams};
use refuge_core::ismcts::{
    watch_step_tree, Config, Evaluator, Game, Helpers, Limit, Oracle, PlayerSums, Policy, Progress, Simultaneous, Sums,
    Table, TreeOutcome, Walked, Watch,
};
use refuge_core::rng::Rng;
use refuge_core::root_result::{root_result, RootResult};
use refuge_core::state::State;

use crate::endgames::EndgameProbes;
use crate::evaluator::LearnedModel;
use crate::guard;

/// Per answer node (the searching player's first): per root action (action, visits, value sum,
/// score sum, policy sum) and per root action played every player's return sum, score sum, the
/// decider's squared-score sum and the iterations summed; with several answers the joint cells;
/// the node count; the iterations run; with `keep_tree` the kept tree.
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
        .map(|(key, edges)| (*key, edges.iter().map(|(a, e)| (*a, e.visits, e.value_sum)).collect()))
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
            .map(|(key, edges)| {
                let edges = edges
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

/// One tree to grow: its stream's seed, its iteration budget and its oracle (`(probes,
/// leaf_max_nodes)`, an `ExactEndgames`'s probes for this tree).
type TreeJob<'py> = (u64, Option<u64>, Option<(PyRef<'py, EndgameProbes>, usize)>);

/// A tree's probes as its thread borrows them: the probes and the leaf budget.
type TreeProbes<'a> = Option<(&'a Mutex<Probes>, usize)>;

/// A game the native search grows trees of: the rules' state, or the omniscient agent's foreseen
/// position (which takes no exact-endgame oracle: its values assume random chance).
trait Searched: Game<Key = Key> + Sync
where
    Heuristic: Policy<Self>,
    Model: Evaluator<Self>,
{
    /// The tree's oracle as the search takes it (⇄ `SearchConfig.oracle`).
    fn oracle<'o>(oracle: Option<&'o SearchOracle<'o>>) -> Option<&'o dyn Oracle<Self>>;
}

impl Searched for State {
    /// The request's exact endgames (⇄ `ExactEndgames.exact_value` at the leaves).
    fn oracle<'o>(oracle: Option<&'o SearchOracle<'o>>) -> Option<&'o dyn Oracle<State>> {
        oracle.map(|o| o as _)
    }
}

impl Searched for Foreseen {
    /// None: `search` refuses an oracle with streams.
    fn oracle<'o>(_oracle: Option<&'o SearchOracle<'o>>) -> Option<&'o dyn Oracle<Foreseen>> {
        None
    }
}

/// What every tree of one search shares: the decisions, the pins, the constants and the helpers'
/// parameters (read by every worker's thread, never written).
struct Shared<G> {
    decisions: Vec<G>,
    pins: Vec<Option<i32>>,
    config: Config,
    rollout: Option<Heuristic>,
    prior: Option<Heuristic>,
    model: Option<Model>,
    seconds: Option<f64>,
}

impl<G: Searched> Shared<G>
where
    Heuristic: Policy<G>,
    Model: Evaluator<G>,
{
    /// Grow one tree on `table` with the stream `Random(seed)` (⇄ `search.ismcts.run_tree`):
    /// `None` where the core met a leaf it cannot value as Python would.
    fn grow(
        &self,
        seed: u64,
        iterations: Option<u64>,
        probes: TreeProbes<'_>,
        table: &mut Table<Key>,
        watch: Option<Watch<'_, Key>>,
    ) -> Option<RootStatistics> {
        let oracle = probes.map(|(probes, leaf_max_nodes)| SearchOracle::new(probes, leaf_max_nodes));
        let helpers = Helpers {
            rollout: self.rollout.as_ref().map(|h| h as _),
            prior: self.prior.as_ref().map(|h| h as _),
            evaluator: self.model.as_ref().map(|m| m as _),
            oracle: G::oracle(oracle.as_ref()),
        };
        let limit = Limit { iterations, seconds: self.seconds };
        let grown = watch_step_tree(&self.decisions, &self.pins, &self.config, &helpers, Rng::new(seed), limit, table, watch);
        grown.ok().map(|TreeOutcome { answers, joint, nodes, iterations, edges, .. }| {
            let kept = edges.map(|edges| (kept_nodes(table), edges));
            (answers, joint, nodes, iterations, kept)
        })
    }

    /// Grow every tree of `trees` (seed, budget, probes) on a fresh table each, the first on this
    /// thread and each other on a thread of its own (root parallelism, ⇄ `search.backend.native_trees`'s
    /// workers): every tree's statistics in order, `None` if one met a leaf the core cannot value.
    /// A tree depends only on its own seed and probes, so the answer is the same whatever the
    /// scheduling. Without a time limit the other trees run on [`helpers`]' kept threads when there
    /// are enough of them (starting a thread costs ≈ 35 µs, a few per cent of a 400-iteration
    /// search); a time-limited search starts its own, so that no tree waits for a helper and runs
    /// over its time. A panic in a worker's thread is raised again here (the caller's `guard` turns
    /// it into a Python error).
    fn grow_all(&self, trees: &[(u64, Option<u64>, TreeProbes<'_>)]) -> Option<Vec<RootStatistics>> {
        let grow = |&(seed, iterations, probes): &(u64, Option<u64>, TreeProbes<'_>)| {
            self.grow(seed, iterations, probes, &mut Table::default(), None)
        };
        let (first, others) = trees.split_first()?;
        let pool = helpers();
        let grown: Vec<Option<RootStatistics>> = match pool {
            Some(pool) if self.seconds.is_none() && others.len() <= pool.current_num_threads() => {
                let mut later: Vec<Option<RootStatistics>> = vec![None; others.len()];
                let finished = AtomicUsize::new(0);
                let first = pool.in_place_scope(|scope| {
                    for (tree, slot) in others.iter().zip(later.iter_mut()) {
                        let finished = &finished;
                        scope.spawn(move |_| {
                            let _counted = Finished(finished); // counted even if the tree panics
                            *slot = grow(tree)
                        });
                    }
                    let first = grow(first);
                    await_helpers(&finished, others.len());
                    first
                });
                std::iter::once(first).chain(later).collect()
            }
            _ => std::thread::scope(|scope| {
                let handles: Vec<_> = others.iter().map(|tree| scope.spawn(move || grow(tree))).collect();
                std::iter::once(grow(first))
                    .chain(handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))))
                    .collect()
            }),
        };
        grown.into_iter().collect()
    }
}

/// Counts a helper's tree as finished when dropped: at its end, or as a panic unwinds it (⇄ nothing
/// in Python: its workers are processes, `search.parallel.map_in_processes`).
struct Finished<'a>(&'a AtomicUsize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// How long the search's thread, its own tree grown, polls for the helpers' trees before it
/// sleeps in the scope's wait.
const AWAIT_HELPERS: Duration = Duration::from_micros(200);

/// Wait for `trees` helpers' trees to be counted in `finished` by polling, yielding the core, for
/// at most [`AWAIT_HELPERS`]: a tree of the same size as this thread's ends soon after it, and
/// waking from the scope's sleep costs ≈ 5–20 µs of a 400-iteration search. After that (a helper
/// busy with another search's tree) the scope's own wait sleeps. Python twin: the pool's `map`
/// waiting for its workers (`search.parallel.map_in_processes`).
fn await_helpers(finished: &AtomicUsize, trees: usize) {
    let start = Instant::now();
    while finished.load(Ordering::Acquire) < trees && start.elapsed() < AWAIT_HELPERS {
        std::thread::yield_now();
    }
}

/// The threads kept for the trees after the first of a search (one fewer than the cores, at least
/// one: the search's own thread grows the first tree; made at the first search with several
/// workers; `None` if they cannot be made: each search then starts its own). A process forked
/// after they were made has none of them, so it makes its own (the parent's are never waited for).
/// Python twin: the process pool `search.parallel.map_in_processes` keeps.
fn helpers() -> Option<&'static rayon::ThreadPool> {
    static POOL: Mutex<Option<(u32, &'static rayon::ThreadPool)>> = Mutex::new(None);
    let mut kept = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let process = std::process::id();
    if let Some((made_in, pool)) = *kept {
        if made_in == process {
            return Some(pool);
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.saturating_sub(1).max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("refuge-tree-{i}")).build().ok()?;
    let pool: &'static rayon::ThreadPool = Box::leak(Box::new(pool)); // kept for the process's life
    *kept = Some((process, pool));
    Some(pool)
}

/// Grow search trees from the position `ints` (`Position.to_ints()`), one per entry of `trees`
/// (`(seed, iterations, oracle)`: the stream `random.Random(seed)`, the iteration budget, and
/// `oracle` = `(probes, leaf_max_nodes)` or `None`), each for its iterations and/or `seconds`
/// (whichever comes first); every tree's root statistics in order, or `None` where the native core
/// cannot copy the Python search exactly (the caller runs Python). Several trees grow at once, each
/// on its own thread with the GIL released (root parallelism, ⇄ the workers of
/// `search.ismcts.search`). With an oracle the leaves in the exact endgames' scope take the
/// solver's values, the probes learning as in Python (a progress hook may probe them too). With
/// `table` (one tree only) the tree grows on it in place (tree reuse); a search that returns `None`
/// leaves it as it was. With `also` (the later decisions of the same simultaneous step) the tree
/// grows from the step's start with an answer node per decision, `pinned` (decision index,
/// action) played in every iteration. With `keep_tree` also the tree: every node's (visits, value
/// sum) per action and the edges walked ([`KeptTree`]). With `progress` (one tree only), every
/// `progress_every` iterations `progress(sums, player_sums, live)` is called (the GIL taken for the
/// call only) with the searching player's answer so far and a [`LiveTree`]; `False` stops the
/// search there, an exception stops it and is raised (a kept table keeps the iterations run, as
/// Python's dict). With `streams` (every chance stream's state as `DealStreams.states()` gives it:
/// words and index, the seats' then weather's then tie-breaks') chance is drawn from them, not from
/// the tree's stream: the omniscient agent's foreseen position (⇄ `advisor.players.omniscient.Foreseen`);
/// no oracle then. With `answer` the search's answer instead ([`answer_of`]: the trees merged,
/// every legal action's statistics and the chosen action, ⇄ `SearchResult.from_trees`). Python
/// twin: `search.ismcts.run_tree`, per worker.
#[pyfunction]
#[pyo3(signature = (ints, trees, exploration, exploration_below, widening, prior_weight, cutoff, uniform_root, step_root,
                    simultaneous, mixing, rollout, prior, evaluator, seconds=None, also=Vec::new(), pinned=Vec::new(),
                    table=None, keep_tree=false, progress=None, progress_every=64, streams=None, answer=false))]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    ints: Vec<i64>,
    trees: Vec<TreeJob<'_>>,
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
    evaluator: Option<PyRef<'_, LearnedModel>>,
    seconds: Option<f64>,
    also: Vec<Vec<i64>>,
    pinned: Vec<(usize, i32)>,
    table: Option<PyRefMut<'_, SearchTable>>,
    keep_tree: bool,
    progress: Option<PyObject>,
    progress_every: u64,
    streams: Option<Vec<(Vec<u32>, usize)>>,
    answer: bool,
) -> PyResult<PyObject> {
    if progress_every == 0 {
        return Err(PyValueError::new_err("search: progress_every must be at least 1"));
    }
    if trees.is_empty() {
        return Err(PyValueError::new_err("search: no tree to grow"));
    }
    if trees.len() > 1 && (table.is_some() || progress.is_some()) {
        return Err(PyValueError::new_err("search: a kept table or a progress hook needs a single tree"));
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
    let model = evaluator.map(|model| model.inner.clone());
    let jobs: Vec<_> = trees
        .iter()
        .map(|(seed, iterations, oracle)| {
            (*seed, *iterations, oracle.as_ref().map(|(probes, leaf_max_nodes)| (&probes.inner, *leaf_max_nodes)))
        })
        .collect();
    let (rollout, prior) = (heuristic(rollout), heuristic(prior));
    let root = (State::current_player(&decisions[0]) as usize, decisions[0].legal_actions());
    let uniform_root = config.uniform_root;
    let Some(streams) = streams else {
        let shared = Shared { decisions, pins, config, rollout, prior, model, seconds };
        let grown = grow_trees(py, &shared, &jobs, table, progress, progress_every)?;
        return answered(py, grown, answer.then_some((root, uniform_root)));
    };
    if jobs.iter().any(|(_, _, probes)| probes.is_some()) {
        return Err(PyValueError::new_err("search: no oracle with streams (its exact values assume random chance)"));
    }
    let mut foreseen = Vec::with_capacity(decisions.len());
    for state in decisions {
        if !state.hidden_bags.is_empty() {
            return Err(PyValueError::new_err("search: with streams no bag may be hidden (there is no future to foresee)"));
        }
        let streams = Streams::from_states(&streams, state.players).map_err(|e| PyValueError::new_err(format!("search: {e}")))?;
        foreseen.push(Foreseen { state, streams });
    }
    let shared = Shared { decisions: foreseen, pins, config, rollout, prior, model, seconds };
    let grown = grow_trees(py, &shared, &jobs, table, progress, progress_every)?;
    answered(py, grown, answer.then_some((root, uniform_root)))
}

/// The root's searching player and legal actions.
type Root = (usize, Vec<i32>);

/// What `search` returns for these trees: every tree's statistics, or with `answer` (the root, and
/// whether the root's selection was uniform) the search's answer ([`answer_of`]); `None` as is
/// (⇄ `positions.kernel.native_search._grown`'s result).
fn answered(py: Python<'_>, grown: Option<Vec<RootStatistics>>, answer: Option<(Root, bool)>) -> PyResult<PyObject> {
    match (grown, answer) {
        (Some(trees), Some(((player, legal), by_win))) => {
            Ok(answer_of(py, trees, player, &legal, by_win)?.into_any().unbind())
        }
        (grown, _) => Ok(grown.into_pyobject(py)?.unbind()),
    }
}

/// The search's answer from its trees (⇄ `search.request.SearchResult.from_trees`, merged in the
/// core): `(actions, chosen, per-worker iterations, kept trees)`, every legal action in the root's
/// order as the fields of an `ActionStats` after `action` (`exact` false), the chosen one's index
/// among them, the kept trees (with `keep_tree`) in worker order.
fn answer_of<'py>(py: Python<'py>, trees: Vec<RootStatistics>, player: usize, legal: &[i32], by_win: bool,
                  ) -> PyResult<Bound<'py, PyTuple>> {
    let mut roots = Vec::with_capacity(trees.len());
    let mut kept = Vec::new();
    for (mut answers, _, _, _, tree) in trees {
        roots.push(answers.swap_remove(0));
        kept.extend(tree);
    }
    answer_rows(py, root_result(&roots, player, legal, by_win), kept)
}

/// A merged answer as Python reads it: `(actions, chosen, per-worker iterations, kept trees)` (⇄
/// `search.backend.native_answer`, which makes the `ActionStats` of each row).
fn answer_rows<'py>(py: Python<'py>, answer: RootResult, kept: Vec<KeptTree>) -> PyResult<Bound<'py, PyTuple>> {
    let RootResult { actions, chosen, per_worker } = answer;
    let rows = actions
        .into_iter()
        .map(|row| {
            let (wins, scores) = (PyTuple::new(py, row.wins)?, PyTuple::new(py, row.scores)?);
            (row.visits, row.win, row.ci_low, row.ci_high, row.score, wins, scores, false, row.score_noise, row.share,
             row.samples)
                .into_pyobject(py)
        })
        .collect::<PyResult<Vec<_>>>()?;
    (rows, chosen, per_worker, kept).into_pyobject(py)
}

/// Every tree of `jobs` grown from `shared`'s decisions: on `table` and/or reporting to `progress`
/// when given (one tree), else each on a fresh table, in threads (the rest of `search`). Python
/// twin: the workers' `search.ismcts.run_tree` calls of `search.ismcts.search`.
fn grow_trees<G: Searched>(
    py: Python<'_>,
    shared: &Shared<G>,
    jobs: &[(u64, Option<u64>, TreeProbes<'_>)],
    table: Option<PyRefMut<'_, SearchTable>>,
    progress: Option<PyObject>,
    progress_every: u64,
) -> PyResult<Option<Vec<RootStatistics>>>
where
    Heuristic: Policy<G>,
    Model: Evaluator<G>,
{
    let mut kept = table;
    if kept.is_none() && progress.is_none() {
        return py.allow_threads(|| guard(|| Ok(shared.grow_all(jobs))));
    }
    let mut fresh = Table::default();
    let table = match kept.as_mut() {
        Some(kept) => &mut kept.inner,
        None => &mut fresh,
    };
    let (seed, iterations, probes) = jobs[0];
    py.allow_threads(|| {
        guard(|| {
            let mut failure = None;
            let mut report = |p: &Progress<'_, Key>| match &progress {
                Some(hook) => Python::with_gil(|py| report_progress(py, hook, p)).unwrap_or_else(|error| {
                    failure = Some(error);
                    false
                }),
                None => true,
            };
            let watch = progress.is_some().then_some(Watch { every: progress_every, report: &mut report });
            let grown = shared.grow(seed, iterations, probes, table, watch);
            if let Some(error) = failure {
                return Err(error);
            }
            Ok(grown.map(|tree| vec![tree]))
        })
    })
}

/// The answer of trees' root sums, each `(sums, player_sums)` as `search` returns a tree's first
/// answer, for `player` with the root's `legal` actions (`by_win`: uniform root selection), as
/// `search(..., answer=True)` merges them: `(actions, chosen, per-worker iterations, [])` (⇄
/// `search.request.SearchResult.from_trees`; the differential tests' entry to the merge).
#[pyfunction]
fn merge_answer<'py>(py: Python<'py>, trees: Vec<(Sums, PlayerSums)>, player: usize, legal: Vec<i32>, by_win: bool,
                     ) -> PyResult<Bound<'py, PyTuple>> {
    if trees.is_empty() {
        return Err(PyValueError::new_err("merge_answer: no tree"));
    }
    if legal.is_empty() {
        return Err(PyValueError::new_err("merge_answer: no legal action"));
    }
    let players = trees.iter().find_map(|(_, player_sums)| player_sums.first()).map(|(_, flat)| flat.len());
    for (_, player_sums) in &trees {
        for (_, flat) in player_sums {
            if flat.len() < 2 || flat.len() % 2 != 0 || Some(flat.len()) != players || player >= (flat.len() - 2) / 2 {
                let message = "merge_answer: every row of player sums must hold 2 × players + 2 values";
                return Err(PyValueError::new_err(message));
            }
        }
    }
    let answer = guard(|| Ok(root_result(&trees, player, &legal, by_win)))?;
    answer_rows(py, answer, Vec::new())
}

/// Add the search's functions to the module (called by the module's `lib.rs`).
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<SearchTable>()?;
    module.add_class::<LiveTree>()?;
    module.add("FORESEEN_SEARCH", true)?; // `search` takes `streams` (the omniscient agent)
    module.add_function(wrap_pyfunction!(merge_answer, module)?)?;
    module.add_function(wrap_pyfunction!(search, module)?)
}
