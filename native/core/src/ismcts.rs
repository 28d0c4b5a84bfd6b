//! Multiple-observer information-set MCTS (⇄ `search/ismcts.py`'s `Tree`), generic over the game
//! verbs (⇄ `search/protocol.py`): the rules' state implements [`Game`]; tests use tiny games.
//!
//! One search is one call ([`run_tree`]; with a progress hook [`watch_step_tree`]): determinize, descend (UCT with the prior's bias; regret
//! matching or Exp3 at simultaneous nodes; round robin at a uniform root; progressive widening
//! below the root), expand one node, simulate (the oracle, else a rollout cut off and judged by the
//! evaluator), back up. Every draw comes from the tree's one stream in the order the Python tree
//! draws (native/SEARCH.md), and every float is computed in Python's order, so the root statistics
//! are equal to the Python search's bit for bit.

use std::borrow::Cow;
use std::hash::Hash;
use std::time::{Duration, Instant};

use crate::rng::Rng;
use crate::tree_hash::TreeMap;

/// `current_player()` at a chance event (⇄ `protocol.CHANCE_PLAYER`).
pub const CHANCE_PLAYER: i32 = -1;
/// `current_player()` once the game is over (⇄ `protocol.TERMINAL_PLAYER`).
pub const TERMINAL_PLAYER: i32 = -2;

/// A game state the search can copy, mutate and observe (⇄ `search.protocol.Game`).
pub trait Game: Clone {
    /// What a player knows (⇄ the value of `information_set_key`).
    type Key: Hash + Eq + Clone;
    /// ⇄ `players`.
    fn players(&self) -> usize;
    /// ⇄ `current_player()`.
    fn current_player(&self) -> i32;
    /// ⇄ `is_simultaneous()`.
    fn is_simultaneous(&self) -> bool;
    /// ⇄ `legal_actions()` at a decision, in the game's order (borrowed where the game keeps them).
    fn legal_actions(&self) -> Cow<'_, [i32]>;
    /// ⇄ `apply(action)`.
    fn apply(&mut self, action: i32);
    /// ⇄ one event of `playout` (the rollout fast path): a sampled outcome or a legal decision,
    /// played as `apply` plays it where a rollout can see; a game may skip what only the tree reads
    /// (Refuge: the legality check and the history fold).
    fn play(&mut self, action: i32) {
        self.apply(action);
    }
    /// ⇄ `sample_chance(rng)`; `&mut`: a game may draw from streams of its own (`foreseen`).
    fn sample_chance(&mut self, rng: &mut Rng) -> i32;
    /// ⇄ `returns()`.
    fn returns(&self) -> PerPlayer;
    /// ⇄ `scores()`.
    fn scores(&self) -> PerPlayer;
    /// ⇄ `information_set_key(player)`.
    fn information_set_key(&self, player: i32) -> Self::Key;
    /// ⇄ `determinize(player, rng)` (without a belief).
    fn determinize(&self, player: i32, rng: &mut Rng) -> Self;
    /// ⇄ `step_start(player)` (`search.protocol.StepStart`); `None` where the game has none.
    fn step_start(&self, _player: i32) -> Option<Self> {
        None
    }
}

/// Picks a decision for the current player (⇄ `search.protocol.Policy`).
pub trait Policy<G> {
    /// ⇄ `choose(state, rng)`.
    fn choose(&self, state: &G, rng: &mut Rng) -> i32;
}

/// The most players a searched game may have (Refuge's `state::MAX_PLAYERS`).
pub const MAX_SEATS: usize = 4;

/// One number per player, held inline so that an iteration's values allocate nothing
/// (⇄ a `list[float]` of `search/ismcts.py`, one entry per player); reads as a slice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerPlayer {
    len: usize,
    values: [f64; MAX_SEATS],
}

impl PerPlayer {
    /// `players` zeros (⇄ `[0.0] * players`).
    pub fn zeros(players: usize) -> PerPlayer {
        assert!(players <= MAX_SEATS, "at most {MAX_SEATS} players");
        PerPlayer { len: players, values: [0.0; MAX_SEATS] }
    }

    /// The numbers of `values`, one per player (⇄ `list(values)`).
    pub fn from_slice(values: &[f64]) -> PerPlayer {
        let mut out = PerPlayer::zeros(values.len());
        out.values[..values.len()].copy_from_slice(values);
        out
    }

    /// The numbers as a slice to write in.
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.values[..self.len]
    }
}

impl std::ops::Deref for PerPlayer {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        &self.values[..self.len]
    }
}

impl FromIterator<f64> for PerPlayer {
    /// One number per item, at most [`MAX_SEATS`] (⇄ `list(iterable)`).
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> PerPlayer {
        let mut out = PerPlayer::zeros(0);
        for value in iter {
            assert!(out.len < MAX_SEATS, "at most {MAX_SEATS} players");
            out.values[out.len] = value;
            out.len += 1;
        }
        out
    }
}

/// Every player's returns and final scores (⇄ the `(returns, scores)` pairs of `search/ismcts.py`).
pub type Values = (PerPlayer, PerPlayer);

/// `values` as two lists (⇄ the `(returns, scores)` lists Python holds), to hand them over.
pub fn value_lists((returns, scores): Values) -> (Vec<f64>, Vec<f64>) {
    (returns.to_vec(), scores.to_vec())
}

/// Every player's (return, final score) estimate at a cut-off (⇄ `search.protocol.Evaluator`).
pub trait Evaluator<G> {
    /// ⇄ `evaluate(state)`.
    fn evaluate(&self, state: &G) -> Values;
}

/// What an exact-value oracle says at a leaf (⇄ `search.protocol.ExactValues.exact_value`).
pub trait Oracle<G> {
    /// `Ok(None)`: out of its scope, roll out; `Ok(Some(values))`: exact values;
    /// `Err(Unsupported)`: in a scope the native core does not solve (the caller runs Python).
    fn exact_value(&self, state: &G) -> Result<Option<Values>, Unsupported>;

    /// Whether [`Oracle::exact_value`] may answer `Err(Unsupported)`: only then does a search on a
    /// kept table journal the nodes it changes, to undo them (an oracle that never refuses spares
    /// a copy of every kept node's edges a search reaches).
    fn may_refuse(&self) -> bool {
        true
    }
}

/// A search the native core cannot copy exactly (the Python search must run it instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// Selection at the nodes of simultaneous steps (⇄ `SearchRequest.simultaneous`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simultaneous {
    /// UCT like every node.
    Uct,
    /// Regret matching.
    RegretMatching,
    /// Exp3.
    Exp3,
}

/// The search's knobs the native core supports (⇄ the fields of `search.request.SearchRequest`).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// ⇄ `exploration`.
    pub exploration: f64,
    /// ⇄ `exploration_below` (already defaulted to `exploration`).
    pub exploration_below: f64,
    /// ⇄ `widening` (ignored without a rollout policy, as in Python).
    pub widening: f64,
    /// ⇄ `prior_weight`.
    pub prior_weight: f64,
    /// ⇄ `rollout_cutoff` (used only with an evaluator).
    pub rollout_cutoff: Option<u32>,
    /// ⇄ `root_selection == "uniform"`.
    pub uniform_root: bool,
    /// ⇄ `step_root`.
    pub step_root: bool,
    /// ⇄ `simultaneous`.
    pub simultaneous: Simultaneous,
    /// ⇄ `mixing`.
    pub mixing: f64,
    /// ⇄ `keep_tree`: record the edges walked ([`TreeOutcome::edges`]).
    pub keep_tree: bool,
}

impl Default for Config {
    /// ⇄ `SearchRequest()`'s defaults.
    fn default() -> Self {
        Config {
            exploration: 0.7,
            exploration_below: 0.7,
            widening: 0.0,
            prior_weight: 1.0,
            rollout_cutoff: None,
            uniform_root: false,
            step_root: true,
            simultaneous: Simultaneous::Uct,
            mixing: 0.1,
            keep_tree: false,
        }
    }
}

/// The game-specific helpers of a search (⇄ `SearchRequest.rollout`, `prior`, `evaluator`, `oracle`).
pub struct Helpers<'a, G> {
    /// The rollout policy; `None`: uniformly random.
    pub rollout: Option<&'a dyn Policy<G>>,
    /// The prior (progressive bias); `None`: no prior.
    pub prior: Option<&'a dyn Policy<G>>,
    /// The cut-off evaluator; `None`: roll out to the end.
    pub evaluator: Option<&'a dyn Evaluator<G>>,
    /// The exact-value oracle; `None`: estimates only.
    pub oracle: Option<&'a dyn Oracle<G>>,
}

impl<G> Default for Helpers<'_, G> {
    fn default() -> Self {
        Helpers { rollout: None, prior: None, evaluator: None, oracle: None }
    }
}

/// One action's statistics at a node (⇄ `ismcts.EdgeStats`; no score utility, so no `return_sum`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EdgeStats {
    /// Iterations that played the action here.
    pub visits: u64,
    /// Iterations in which the action was legal here (UCT's parent count).
    pub availability: u64,
    /// The chooser's return summed over the visits.
    pub value_sum: f64,
    /// The chooser's final score summed over the visits.
    pub score_sum: f64,
    /// Regret matching's cumulative regret or Exp3's estimated reward.
    pub regret: f64,
    /// The action's probability summed over the node's visits (regret matching, Exp3).
    pub policy_sum: f64,
}

/// An action and its statistics at a node.
pub type Edge = (i32, EdgeStats);

/// Where a node's edges sit in the table's one edge buffer: `start..start + len`, with room up
/// to `start + room` (one buffer for every node: no allocation per node, one to free per table).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Span {
    start: usize,
    len: usize,
    room: usize,
}

/// A node: every action tried or available there, in the order it was first met (⇄ `ismcts.Node`;
/// its edges in the table's buffer), and the prior's favourite (⇄ `Tree.favourites`).
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    span: Span,
    favourite: Option<i32>,
    /// The search that added the node: its favourite counts only there (Python's `favourites` is
    /// the tree's own, so a node kept from an earlier search has none).
    born: u32,
    /// The last search that saved the node's edges in the table's journal.
    saved: u32,
}

/// One node's edges, to read and grow in the table's buffer.
struct NodeEdges<'t> {
    span: &'t mut Span,
    buffer: &'t mut Vec<Edge>,
}

impl NodeEdges<'_> {
    /// The node's edges, in the order first met.
    fn edges(&self) -> &[Edge] {
        &self.buffer[self.span.start..self.span.start + self.span.len]
    }

    /// The statistics of the node's `edge`-th edge.
    #[inline]
    fn stats(&mut self, edge: usize) -> &mut EdgeStats {
        debug_assert!(edge < self.span.len, "an edge of the node");
        &mut self.buffer[self.span.start + edge].1
    }

    /// The index of `action`'s statistics, added if new (⇄ `ismcts._edge`): in place while the
    /// node's edges end the buffer or have room, else moved to its end with twice the room.
    fn edge(&mut self, action: i32) -> usize {
        if let Some(i) = self.edges().iter().position(|(a, _)| *a == action) {
            return i;
        }
        let span = &mut *self.span;
        let edge = (action, EdgeStats::default());
        if span.len < span.room {
            self.buffer[span.start + span.len] = edge;
        } else if span.start + span.room == self.buffer.len() {
            self.buffer.push(edge);
            span.room += 1;
        } else {
            let start = self.buffer.len();
            self.buffer.extend_from_within(span.start..span.start + span.len);
            self.buffer.push(edge);
            span.room = 2 * span.room.max(1);
            self.buffer.resize(start + span.room, (0, EdgeStats::default()));
            span.start = start;
        }
        span.len += 1;
        span.len - 1
    }

    /// [`Node::edge`] for the `i`-th legal action: a node's edges are usually its legal actions in
    /// the game's order, so the `i`-th edge is tried first (an action has one edge: the same index)
    /// (⇄ `ismcts._edge`).
    #[inline]
    fn edge_at(&mut self, i: usize, action: i32) -> usize {
        match self.edges().get(i) {
            Some((a, _)) if *a == action => i,
            _ => self.edge(action),
        }
    }
}

/// What undoes a search: the node and edge counts before it, and the older nodes' edges as they
/// were before it changed them.
#[derive(Clone, Debug, Default)]
struct Journal {
    nodes: usize,
    edges: usize,
    saved: Vec<(usize, Span, Vec<Edge>)>,
}

/// The node table: every information set's node, kept between one player's searches of a game
/// (⇄ the `nodes` dict `search(reuse=...)` grows in place), with a journal that undoes a search
/// stopped as [`Unsupported`] so that the Python search can run it from the same table.
#[derive(Clone, Debug)]
pub struct Table<K> {
    index: TreeMap<(i32, K), usize>,
    nodes: Vec<Node>,
    /// Every node's edges (each node's [`Span`]).
    edges: Vec<Edge>,
    keys: Vec<(i32, K)>,
    /// The current search (1, 2, ...).
    search: u32,
    /// What undoes the current search.
    journal: Journal,
    /// Whether the current search saves the older nodes' edges in the journal (it may be undone).
    journaling: bool,
}

impl<K: Hash + Eq + Clone> Default for Table<K> {
    fn default() -> Self {
        Table {
            index: TreeMap::default(),
            nodes: Vec::new(),
            edges: Vec::new(),
            keys: Vec::new(),
            search: 0,
            journal: Journal::default(),
            journaling: true,
        }
    }
}

impl<K: Hash + Eq + Clone> Table<K> {
    /// The information sets in the table (⇄ `len(nodes)`).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether the table holds this information set's node (⇄ `key in nodes`).
    pub fn contains(&self, key: &(i32, K)) -> bool {
        self.index.contains_key(key)
    }

    /// Every node's key and edges, in the order they were added (⇄ the `nodes` dict's items).
    pub fn entries(&self) -> impl Iterator<Item = (&(i32, K), &[Edge])> {
        self.keys.iter().zip(&self.nodes).map(|(key, node)| (key, self.span_edges(node.span)))
    }

    /// The edges of `span`.
    fn span_edges(&self, span: Span) -> &[Edge] {
        &self.edges[span.start..span.start + span.len]
    }

    /// The edges of node `node`, in the order first met.
    fn edges_of(&self, node: usize) -> &[Edge] {
        self.span_edges(self.nodes[node].span)
    }

    /// Node `node`'s edges, to read and grow.
    #[inline]
    fn node_edges(&mut self, node: usize) -> NodeEdges<'_> {
        NodeEdges { span: &mut self.nodes[node].span, buffer: &mut self.edges }
    }

    /// Start a search; `journaling`: it may be undone, so the older nodes' edges are saved before
    /// it changes them.
    fn begin(&mut self, journaling: bool) {
        self.search += 1;
        self.journal = Journal { nodes: self.nodes.len(), edges: self.edges.len(), saved: Vec::new() };
        self.journaling = journaling;
    }

    /// Save a node's edges before the current search first changes them (when it may be undone).
    #[inline]
    fn touch(&mut self, node: usize) {
        if !self.journaling {
            return;
        }
        let entry = &mut self.nodes[node];
        if entry.saved != self.search && entry.born != self.search {
            entry.saved = self.search;
            let span = entry.span;
            self.journal.saved.push((node, span, self.span_edges(span).to_vec()));
        }
    }

    /// Undo the current search: its nodes removed, the older nodes' edges as they were.
    fn rollback(&mut self) {
        debug_assert!(self.journaling, "only a journaled search is undone");
        let journal = std::mem::take(&mut self.journal);
        for key in self.keys.drain(journal.nodes..) {
            self.index.remove(&key);
        }
        self.nodes.truncate(journal.nodes);
        // a kept node's old edges are never overwritten by another node's: restored in place
        for (node, span, edges) in journal.saved {
            self.nodes[node].span = span;
            self.edges[span.start..span.start + span.len].copy_from_slice(&edges);
        }
        self.edges.truncate(journal.edges);
    }
}

/// A regret-matching or Exp3 pick: every legal action's edge index, the chosen one's probability.
type Mix = (Vec<usize>, f64);

/// One decision of an iteration's walk: node, edge index, chooser, mix (⇄ `ismcts.Step`).
type Step = (usize, usize, usize, Option<Mix>);

/// Per root action: `(action, visits, value_sum, score_sum, policy_sum)`, in the node's order.
pub type Sums = Vec<(i32, u64, f64, f64, f64)>;
/// Per root action played: every player's return sum, score sum, the decider's squared-score sum
/// and the iterations summed (this search's own: a kept tree's visits may hold more), in the order
/// the actions were first backed up (⇄ `search.records.PlayerSums`).
pub type PlayerSums = Vec<(i32, Vec<f64>)>;

/// The edges walked, in the order first walked: per (node index, action) where an edge starts,
/// every next node (index) with the times walked, in the order first reached (⇄ the `edges` dict
/// of `ismcts.Tree`, `search.request.Following`, with nodes as indices into the table).
pub type Walked = Vec<((usize, i32), Vec<(usize, u64)>)>;

/// The edges walked while they grow: [`Walked`] and where each start sits in it (⇄ `Tree.edges`).
#[derive(Clone, Debug, Default)]
struct Following {
    index: TreeMap<(usize, i32), usize>,
    walked: Walked,
}

impl Following {
    /// Count one walk from `start` (node, action) to the node `next` (⇄ `Tree.descend`'s
    /// `walked[key] = walked.get(key, 0) + 1`).
    fn walk(&mut self, start: (usize, i32), next: usize) {
        let walked = &mut self.walked;
        let at = *self.index.entry(start).or_insert_with(|| {
            walked.push((start, Vec::new()));
            walked.len() - 1
        });
        let children = &mut walked[at].1;
        match children.iter_mut().find(|(child, _)| *child == next) {
            Some((_, times)) => *times += 1,
            None => children.push((next, 1)),
        }
    }
}

/// One tree's root statistics (⇄ `ismcts.TreeOutcome`).
#[derive(Clone, Debug, PartialEq)]
pub struct TreeOutcome {
    /// The searching player's answer node's sums (`answers[0].0`).
    pub sums: Sums,
    /// The searching player's answer node's player sums (`answers[0].1`).
    pub player_sums: PlayerSums,
    /// Iterations run.
    pub iterations: u64,
    /// Information sets in the table.
    pub nodes: usize,
    /// Every answer node's statistics: the searching player's, then those of the later decisions
    /// of the same step searched with it (⇄ `TreeOutcome.answers`).
    pub answers: Vec<(Sums, PlayerSums)>,
    /// With several answer nodes: per joint action of theirs (-1: not reached), the iterations,
    /// then every player's return sum and score sum, in the order first met (⇄ `Tree.joint`).
    pub joint: Vec<(Vec<i32>, Vec<f64>)>,
    /// With `keep_tree`, the edges walked (⇄ `TreeOutcome.tree`'s `following`, the nodes being
    /// the table's).
    pub edges: Option<Walked>,
}

/// One tree's growth (⇄ `ismcts.Tree`, without a belief, chance widening or score utility).
pub struct Tree<'a, G: Game> {
    config: &'a Config,
    helpers: &'a Helpers<'a, G>,
    rng: Rng,
    player: i32,
    root: G,
    answers: Vec<(i32, G::Key)>,
    answer_players: Vec<i32>,
    table: &'a mut Table<G::Key>,
    answer_sums: Vec<PlayerSums>,
    answer_actions: Vec<i32>,
    pinned: Vec<Option<i32>>,
    joint: Vec<(Vec<i32>, Vec<f64>)>,
    widening: f64,
    path: Vec<Step>,
    edges: Option<Following>,
}

impl<'a, G: Game> Tree<'a, G> {
    /// A tree for the decision `decision` drawing from `rng` (⇄ `Tree.__init__`; `rng` is
    /// `random.Random(seed)`).
    /// With `table` (kept from the same player's earlier searches of this game) the tree grows on
    /// it in place.
    pub fn new(
        decision: &G,
        config: &'a Config,
        helpers: &'a Helpers<'a, G>,
        rng: Rng,
        table: &'a mut Table<G::Key>,
    ) -> Self {
        Tree::for_step(std::slice::from_ref(decision), &[None], config, helpers, rng, table)
    }

    /// A tree for several seats' decisions of one simultaneous step (in seat order, the first the
    /// searching player's), grown from the step's start, each answer read at its seat's node; a
    /// `pinned` action (per decision) is played there in every iteration (⇄ `Tree.__init__` with
    /// `also` and `pinned`).
    pub fn for_step(
        decisions: &[G],
        pinned: &[Option<i32>],
        config: &'a Config,
        helpers: &'a Helpers<'a, G>,
        rng: Rng,
        table: &'a mut Table<G::Key>,
    ) -> Self {
        let player = decisions[0].current_player();
        let root = tree_root(decisions.last().expect("one decision or more"), config);
        let answer_players: Vec<i32> = decisions.iter().map(|d| d.current_player()).collect();
        let answers = decisions.iter().zip(&answer_players).map(|(d, &p)| (p, d.information_set_key(p))).collect();
        table.begin(helpers.oracle.is_some_and(|oracle| oracle.may_refuse()));
        Tree {
            config,
            helpers,
            rng,
            player,
            root,
            answers,
            answer_players,
            table,
            answer_sums: vec![Vec::new(); decisions.len()],
            answer_actions: vec![-1; decisions.len()],
            pinned: pinned.to_vec(),
            joint: Vec::new(),
            widening: if helpers.rollout.is_some() { config.widening } else { 0.0 },
            path: Vec::new(),
            edges: if config.keep_tree { Some(Following::default()) } else { None },
        }
    }

    /// One iteration: determinization, selection and expansion, simulation, backup
    /// (⇄ `Tree.iterate`).
    pub fn iterate(&mut self) -> Result<(), Unsupported> {
        let mut state = self.root.determinize(self.player, &mut self.rng);
        self.descend(&mut state);
        let (returns, scores) = self.simulate(&mut state)?;
        self.backup(&returns, &scores);
        Ok(())
    }

    /// Selection and expansion (⇄ `Tree.descend`): `state` is left where the simulation starts,
    /// the walk in `self.path`.
    fn descend(&mut self, state: &mut G) {
        self.path.clear();
        let mut expanded = false;
        let mut remaining = self.answers.len();
        self.answer_actions.iter_mut().for_each(|a| *a = -1);
        let mut came_from: Option<(usize, i32)> = None;
        loop {
            let actor = state.current_player();
            if actor < 0 {
                if actor == TERMINAL_PLAYER {
                    return;
                }
                let outcome = state.sample_chance(&mut self.rng);
                state.apply(outcome);
                continue;
            }
            let key = (actor, state.information_set_key(actor));
            let index = if remaining > 0 { self.answers.iter().position(|a| *a == key) } else { None };
            let at_answer = index.is_some_and(|i| self.answer_actions[i] < 0);
            if remaining > 0 && !at_answer && !state.is_simultaneous() {
                remaining = 0;
            }
            let node = match self.table.index.get(&key) {
                Some(&node) => {
                    self.table.touch(node);
                    node
                }
                None => {
                    if expanded {
                        return;
                    }
                    let node = self.expand(key, state);
                    expanded = remaining == 0 || (at_answer && remaining == 1);
                    node
                }
            };
            if let (Some(edges), Some(start)) = (self.edges.as_mut(), came_from) {
                edges.walk(start, node);
            }
            let pinned = if at_answer { index.and_then(|i| self.pinned[i]) } else { None };
            let (edge, action, mix) = match pinned {
                Some(action) => {
                    let mut entry = self.table.node_edges(node);
                    let edge = entry.edge(action);
                    entry.stats(edge).availability += 1;
                    (edge, action, None)
                }
                None => self.select(node, state, at_answer, remaining > 0),
            };
            if let (true, Some(i)) = (at_answer, index) {
                remaining -= 1;
                self.answer_actions[i] = action;
            }
            self.path.push((node, edge, actor as usize, mix));
            came_from = Some((node, action));
            state.apply(action);
        }
    }

    /// Add the node of an information set first reached, with the prior's favourite (⇄ `Tree.expand`).
    fn expand(&mut self, key: (i32, G::Key), state: &G) -> usize {
        let favourite = self.helpers.prior.map(|prior| prior.choose(state, &mut self.rng));
        let table = &mut *self.table;
        let search = table.search;
        let span = Span { start: table.edges.len(), len: 0, room: 0 };
        table.nodes.push(Node { span, favourite, born: search, saved: search });
        table.index.insert(key.clone(), table.nodes.len() - 1);
        table.keys.push(key);
        table.nodes.len() - 1
    }

    /// The action a node plays in this iteration: (edge index, action, mix) (⇄ `Tree.select`).
    fn select(&mut self, node: usize, state: &G, at_answer: bool, above: bool) -> (usize, i32, Option<Mix>) {
        let config = self.config;
        let mut legal = state.legal_actions();
        let above = above || at_answer;
        if self.widening != 0.0 && !above && legal.len() > 1 {
            let rollout = self.helpers.rollout.expect("widening needs a rollout policy");
            let guide = rollout.choose(state, &mut self.rng);
            legal = Cow::Owned(widened_actions(&legal, self.table.edges_of(node), self.widening, guide));
        }
        let search = self.table.search;
        let Node { favourite, born, .. } = self.table.nodes[node];
        let node = &mut self.table.node_edges(node);
        if at_answer && config.uniform_root {
            let (edge, action) = least_visited(node, &legal);
            return (edge, action, None);
        }
        let favourite = if self.helpers.prior.is_some() && born == search { favourite } else { None };
        if config.simultaneous != Simultaneous::Uct && legal.len() > 1 && state.is_simultaneous() {
            let exp3 = config.simultaneous == Simultaneous::Exp3;
            let (edge, action, mix) = matched(node, &legal, exp3, config.mixing, favourite, &mut self.rng);
            return (edge, action, Some(mix));
        }
        let c = if above { config.exploration } else { config.exploration_below };
        let (edge, action) = uct(node, &legal, c, favourite, config.prior_weight, &mut self.rng);
        (edge, action, None)
    }

    /// Every player's return and final score from where the walk left the tree (⇄ `Tree.simulate`).
    fn simulate(&mut self, state: &mut G) -> Result<Values, Unsupported> {
        if state.current_player() == TERMINAL_PLAYER {
            return Ok((state.returns(), state.scores()));
        }
        if let Some(oracle) = self.helpers.oracle {
            if let Some(values) = oracle.exact_value(state)? {
                return Ok(values);
            }
        }
        Ok(rollout(state, &mut self.rng, self.helpers, self.config.rollout_cutoff))
    }

    /// Back the outcome up the walk (⇄ `Tree.backup`, one answer node, no score utility).
    fn backup(&mut self, returns: &[f64], scores: &[f64]) {
        let exp3 = self.config.simultaneous == Simultaneous::Exp3;
        for (node, edge, actor, mix) in &self.path {
            let value = returns[*actor];
            let mut node = self.table.node_edges(*node);
            let stats = node.stats(*edge);
            stats.visits += 1;
            stats.value_sum += value;
            stats.score_sum += scores[*actor];
            if let Some((edges, probability)) = mix {
                if !exp3 {
                    for &other in edges {
                        node.stats(other).regret -= value;
                    }
                }
                node.stats(*edge).regret += value / probability;
            }
        }
        let players = returns.len();
        if self.answers.len() > 1 {
            let at = match self.joint.iter().position(|(joint, _)| *joint == self.answer_actions) {
                Some(i) => i,
                None => {
                    self.joint.push((self.answer_actions.clone(), vec![0.0; 1 + 2 * players]));
                    self.joint.len() - 1
                }
            };
            let cell = &mut self.joint[at].1;
            cell[0] += 1.0;
            for p in 0..players {
                cell[1 + p] += returns[p];
                cell[1 + players + p] += scores[p];
            }
        }
        for (index, &action) in self.answer_actions.iter().enumerate() {
            if action < 0 {
                continue;
            }
            let sums = &mut self.answer_sums[index];
            let at = match sums.iter().position(|(a, _)| *a == action) {
                Some(i) => i,
                None => {
                    sums.push((action, vec![0.0; 2 * players + 2]));
                    sums.len() - 1
                }
            };
            let sums = &mut sums[at].1;
            for p in 0..players {
                sums[p] += returns[p];
                sums[players + p] += scores[p];
            }
            let mine = scores[self.answer_players[index] as usize];
            sums[2 * players] += mine * mine;
            sums[2 * players + 1] += 1.0;
        }
    }

    /// An answer node's statistics so far, 0 the searching player's (⇄ `Tree.root_sums`).
    pub fn root_sums(&self, index: usize) -> (Sums, PlayerSums) {
        let sums = self
            .table
            .index
            .get(&self.answers[index])
            .map(|&i| {
                self.table
                    .edges_of(i)
                    .iter()
                    .map(|(a, s)| (*a, s.visits, s.value_sum, s.score_sum, s.policy_sum))
                    .collect()
            })
            .unwrap_or_default();
        (sums, self.answer_sums[index].clone())
    }

    /// What a progress hook sees after `iterations` (⇄ `run_tree`'s `so_far` root sums and its
    /// `LiveTree(tree.nodes, tree.edges)`).
    pub fn progress(&self, iterations: u64) -> Progress<'_, G::Key> {
        Progress {
            iterations,
            answer: self.root_sums(0),
            table: self.table,
            walked: self.edges.as_ref().map(|edges| &edges.walked),
        }
    }

    /// Every answer node's statistics so far (⇄ `Tree.root_sums` and `information_sets`).
    pub fn outcome(&self, iterations: u64) -> TreeOutcome {
        let answers: Vec<(Sums, PlayerSums)> = (0..self.answers.len()).map(|index| self.root_sums(index)).collect();
        let (sums, player_sums) = answers[0].clone();
        let edges = self.edges.as_ref().map(|edges| edges.walked.clone());
        TreeOutcome { sums, player_sums, iterations, nodes: self.table.len(), answers, joint: self.joint.clone(), edges }
    }
}

/// Where the search of `decision` starts (⇄ `ismcts.tree_root`).
pub fn tree_root<G: Game>(decision: &G, config: &Config) -> G {
    if config.step_root && decision.is_simultaneous() {
        if let Some(start) = decision.step_start(decision.current_player()) {
            return start;
        }
    }
    decision.clone()
}

/// A search's limit (⇄ `SearchRequest.iterations` and `seconds`): whichever comes first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limit {
    /// Iterations; `None`: no iteration limit.
    pub iterations: Option<u64>,
    /// Wall-clock seconds from the start of the search; `None`: no time limit.
    pub seconds: Option<f64>,
}

impl From<u64> for Limit {
    fn from(iterations: u64) -> Limit {
        Limit { iterations: Some(iterations), seconds: None }
    }
}

/// Grow one tree from `decision` on `table` (empty, or kept from the same player's earlier
/// searches) until `limit`; its root statistics (⇄ `ismcts.run_tree` without a progress hook).
/// A search stopped as [`Unsupported`] leaves `table` as it found it.
pub fn run_tree<G: Game>(
    decision: &G,
    config: &Config,
    helpers: &Helpers<'_, G>,
    rng: Rng,
    limit: impl Into<Limit>,
    table: &mut Table<G::Key>,
) -> Result<TreeOutcome, Unsupported> {
    run_step_tree(std::slice::from_ref(decision), &[None], config, helpers, rng, limit, table)
}

/// [`run_tree`] for several seats' decisions of one simultaneous step, each answer read at its
/// seat's node, `pinned` actions played in every iteration (⇄ `ismcts.run_tree` with `also` and
/// `pinned`, as `search_step` calls it).
pub fn run_step_tree<G: Game>(
    decisions: &[G],
    pinned: &[Option<i32>],
    config: &Config,
    helpers: &Helpers<'_, G>,
    rng: Rng,
    limit: impl Into<Limit>,
    table: &mut Table<G::Key>,
) -> Result<TreeOutcome, Unsupported> {
    watch_step_tree(decisions, pinned, config, helpers, rng, limit, table, None)
}

/// What a progress hook sees of a growing tree (⇄ `ismcts.run_tree`'s `so_far` and `LiveTree`).
pub struct Progress<'t, K> {
    /// Iterations run so far.
    pub iterations: u64,
    /// The searching player's answer node's sums and player sums (⇄ `Tree.root_sums()`).
    pub answer: (Sums, PlayerSums),
    /// The node table (⇄ `LiveTree.nodes`).
    pub table: &'t Table<K>,
    /// With `keep_tree`, the edges walked (⇄ `LiveTree.edges`; `None` without).
    pub walked: Option<&'t Walked>,
}

/// A progress hook (⇄ `run_tree`'s `on_progress` and `progress_every`): `report` is called after
/// every `every` iterations (`every` ≥ 1); returning `false` stops the search there.
pub struct Watch<'w, K> {
    /// Iterations between reports.
    pub every: u64,
    /// The report; `false` stops the search.
    pub report: &'w mut dyn FnMut(&Progress<'_, K>) -> bool,
}

/// [`run_step_tree`] with an optional progress hook (⇄ `ismcts.run_tree` with `on_progress`): the
/// same tree, reported on every `watch.every` iterations; a report answering `false` stops the
/// search after that iteration (its outcome then is that of the iterations run). The time limit is
/// checked before every iteration, after the report, as Python checks it.
#[allow(clippy::too_many_arguments)]
pub fn watch_step_tree<G: Game>(
    decisions: &[G],
    pinned: &[Option<i32>],
    config: &Config,
    helpers: &Helpers<'_, G>,
    rng: Rng,
    limit: impl Into<Limit>,
    table: &mut Table<G::Key>,
    mut watch: Option<Watch<'_, G::Key>>,
) -> Result<TreeOutcome, Unsupported> {
    let limit = limit.into();
    let deadline = limit.seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let mut tree = Tree::for_step(decisions, pinned, config, helpers, rng, table);
    let mut done = 0;
    while limit.iterations.is_none_or(|n| done < n) && deadline.is_none_or(|d| Instant::now() < d) {
        if let Err(unsupported) = tree.iterate() {
            tree.table.rollback();
            return Err(unsupported);
        }
        done += 1;
        if let Some(watch) = watch.as_mut() {
            if done % watch.every == 0 && !(watch.report)(&tree.progress(done)) {
                break;
            }
        }
    }
    Ok(tree.outcome(done))
}

/// Play `state` on in place to the end, or `cutoff` decisions then judge it (⇄ `ismcts.rollout`;
/// the game's `playout` fast path draws the same, so the step-by-step loop stands for it).
pub fn rollout<G: Game>(
    state: &mut G,
    rng: &mut Rng,
    helpers: &Helpers<'_, G>,
    cutoff: Option<u32>,
) -> Values {
    let cutoff = if helpers.evaluator.is_some() { cutoff } else { None };
    let mut decisions = 0u32;
    loop {
        let actor = state.current_player();
        if actor == TERMINAL_PLAYER {
            return (state.returns(), state.scores());
        }
        if actor == CHANCE_PLAYER {
            let outcome = state.sample_chance(rng);
            state.play(outcome);
            continue;
        }
        if let (Some(limit), Some(evaluator)) = (cutoff, helpers.evaluator) {
            if decisions >= limit {
                return evaluator.evaluate(state);
            }
        }
        let action = match helpers.rollout {
            Some(policy) => policy.choose(state, rng),
            None => {
                let legal = state.legal_actions();
                legal[(rng.random() * legal.len() as f64) as usize]
            }
        };
        state.play(action);
        decisions += 1;
    }
}

/// Progressive widening: the guide, then `int(widening * sqrt(visits))` others in the game's order
/// (⇄ `ismcts.widened_actions`).
pub fn widened_actions(legal: &[i32], edges: &[Edge], widening: f64, guide: i32) -> Vec<i32> {
    let visits: u64 = edges.iter().map(|(_, s)| s.visits).sum();
    let room = (widening * (visits as f64).sqrt()) as usize;
    std::iter::once(guide).chain(legal.iter().copied().filter(|&a| a != guide).take(room)).collect()
}

/// Round robin: the least visited legal action, first in the game's order (⇄ `ismcts._least_visited`).
fn least_visited(node: &mut NodeEdges<'_>, legal: &[i32]) -> (usize, i32) {
    let mut chosen: Option<(usize, i32)> = None;
    for (i, &candidate) in legal.iter().enumerate() {
        let edge = node.edge_at(i, candidate);
        node.stats(edge).availability += 1;
        let fewer = match chosen {
            None => true,
            Some((best, _)) => node.stats(edge).visits < node.stats(best).visits,
        };
        if fewer {
            chosen = Some((edge, candidate));
        }
    }
    chosen.expect("a decision has a legal action")
}

/// UCT over the availability counts: the prior's untried favourite, then a uniform pick among
/// untried actions (reservoir sampling), then the best mean plus exploration plus bias
/// (⇄ `ismcts._uct`). An availability's logarithm is kept for the next edge, which mostly has the
/// same availability (the same `ln` of the same number: the same bits).
fn uct(
    node: &mut NodeEdges<'_>,
    legal: &[i32],
    c: f64,
    favourite: Option<i32>,
    prior_weight: f64,
    rng: &mut Rng,
) -> (usize, i32) {
    let mut chosen: Option<(usize, i32)> = None;
    let mut best = f64::NEG_INFINITY;
    let mut untried = 0u64;
    let mut pinned = false;
    let mut log: Option<(u64, f64)> = None;
    for (i, &candidate) in legal.iter().enumerate() {
        let edge = node.edge_at(i, candidate);
        let stats = node.stats(edge);
        stats.availability += 1;
        let visits = stats.visits;
        if visits == 0 {
            if Some(candidate) == favourite {
                chosen = Some((edge, candidate));
                best = f64::INFINITY;
                pinned = true;
            } else if !pinned {
                untried += 1;
                if untried == 1 || rng.random() * (untried as f64) < 1.0 {
                    chosen = Some((edge, candidate));
                    best = f64::INFINITY;
                }
            }
        } else if best != f64::INFINITY {
            let n = visits as f64;
            let ln = match log {
                Some((availability, ln)) if availability == stats.availability => ln,
                _ => {
                    let ln = (stats.availability as f64).ln();
                    log = Some((stats.availability, ln));
                    ln
                }
            };
            let mut value = stats.value_sum / n + c * (ln / n).sqrt();
            if Some(candidate) == favourite {
                value += prior_weight / (visits + 1) as f64;
            }
            if value > best {
                chosen = Some((edge, candidate));
                best = value;
            }
        }
    }
    chosen.expect("a decision has a legal action")
}

/// Decoupled simultaneous-move selection by regret matching or Exp3, mixed with `mixing` uniform
/// exploration (⇄ `ismcts._matched`): (edge index, action, mix for the backup).
fn matched(
    node: &mut NodeEdges<'_>,
    legal: &[i32],
    exp3: bool,
    mixing: f64,
    favourite: Option<i32>,
    rng: &mut Rng,
) -> (usize, i32, Mix) {
    let edges: Vec<usize> = legal.iter().enumerate().map(|(i, &a)| node.edge_at(i, a)).collect();
    let k = edges.len();
    let regret = |i: usize| node.edges()[edges[i]].1.regret;
    let weights: Vec<f64> = if exp3 {
        let rate = mixing / k as f64;
        let top = (0..k).map(regret).fold(f64::NEG_INFINITY, f64::max);
        let low = (0..k).map(regret).fold(f64::INFINITY, f64::min);
        if top != 0.0 || low != 0.0 {
            (0..k).map(|i| (rate * (regret(i) - top)).exp()).collect()
        } else {
            vec![0.0; k]
        }
    } else {
        (0..k).map(|i| if regret(i) > 0.0 { regret(i) } else { 0.0 }).collect()
    };
    let total = weights.iter().fold(0.0, |sum, w| sum + w);
    let strategy: Vec<f64> = if total > 0.0 {
        weights.iter().map(|w| w / total).collect()
    } else if let Some(f) = favourite.filter(|f| legal.contains(f)) {
        legal.iter().map(|&a| if a == f { 1.0 } else { 0.0 }).collect()
    } else {
        vec![1.0 / k as f64; k]
    };
    let mut draw = rng.random();
    let mut index: Option<usize> = None;
    for (i, &edge) in edges.iter().enumerate() {
        let stats = node.stats(edge);
        stats.availability += 1;
        stats.policy_sum += strategy[i];
        if index.is_none() {
            draw -= (1.0 - mixing) * strategy[i] + mixing / k as f64;
            if draw < 0.0 {
                index = Some(i);
            }
        }
    }
    let index = index.unwrap_or(k - 1);
    let probability = (1.0 - mixing) * strategy[index] + mixing / k as f64;
    (edges[index], legal[index], (edges, probability))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search on a fresh table.
    fn run<G: Game>(
        decision: &G,
        config: &Config,
        helpers: &Helpers<'_, G>,
        rng: Rng,
        limit: impl Into<Limit>,
    ) -> Result<TreeOutcome, Unsupported> {
        run_tree(decision, config, helpers, rng, limit, &mut Table::default())
    }

    /// ⇄ `tests/toy_games.py` `DiceGame`: roll a die of faces 1-3 or stop; a 1 busts to 0;
    /// reaching the target wins. With target 3, rolling from 0 is worth 5/9, stopping 0.
    #[derive(Clone)]
    struct Dice {
        target: i32,
        total: i32,
        rolling: bool,
        over: bool,
    }

    const STOP: i32 = 0;
    const ROLL: i32 = 1;

    impl Game for Dice {
        type Key = (i32, bool, bool);
        fn players(&self) -> usize { 1 }
        fn current_player(&self) -> i32 {
            if self.over { TERMINAL_PLAYER } else if self.rolling { CHANCE_PLAYER } else { 0 }
        }
        fn is_simultaneous(&self) -> bool { false }
        fn legal_actions(&self) -> Cow<'_, [i32]> { Cow::Borrowed(&[STOP, ROLL]) }
        fn apply(&mut self, action: i32) {
            if self.rolling {
                let face = action - 10;
                self.rolling = false;
                if face == 1 {
                    self.total = 0;
                    self.over = true;
                } else {
                    self.total += face;
                    self.over = self.total >= self.target;
                }
            } else if action == STOP {
                self.over = true;
            } else {
                self.rolling = true;
            }
        }
        fn sample_chance(&mut self, rng: &mut Rng) -> i32 { 11 + (rng.random() * 3.0) as i32 }
        fn returns(&self) -> PerPlayer { PerPlayer::from_slice(&[if self.over && self.total >= self.target { 1.0 } else { 0.0 }]) }
        fn scores(&self) -> PerPlayer { PerPlayer::from_slice(&[self.total as f64]) }
        fn information_set_key(&self, _player: i32) -> Self::Key { (self.total, self.rolling, self.over) }
        fn determinize(&self, _player: i32, _rng: &mut Rng) -> Self { self.clone() }
    }

    /// ⇄ `tests/toy_games.py` `MatrixGame`: a one-shot simultaneous 2x2 constant-sum game whose
    /// equilibrium mixes row 0 with probability 1/5.
    #[derive(Clone)]
    struct Matrix {
        picks: [i32; 2],
    }

    const PAYOFF: [[f64; 2]; 2] = [[1.0, 0.2], [0.4, 0.6]];

    impl Game for Matrix {
        type Key = i32;
        fn players(&self) -> usize { 2 }
        fn current_player(&self) -> i32 {
            if self.picks[0] < 0 { 0 } else if self.picks[1] < 0 { 1 } else { TERMINAL_PLAYER }
        }
        fn is_simultaneous(&self) -> bool { self.picks[1] < 0 }
        fn legal_actions(&self) -> Cow<'_, [i32]> { Cow::Borrowed(&[0, 1]) }
        fn apply(&mut self, action: i32) {
            let seat = self.current_player() as usize;
            self.picks[seat] = action;
        }
        fn sample_chance(&mut self, _rng: &mut Rng) -> i32 { unreachable!("no chance") }
        fn returns(&self) -> PerPlayer {
            let first = PAYOFF[self.picks[0] as usize][self.picks[1] as usize];
            PerPlayer::from_slice(&[first, 1.0 - first])
        }
        fn scores(&self) -> PerPlayer { self.returns() }
        /// Player 1 does not see player 0's pick: only whose turn it is.
        fn information_set_key(&self, player: i32) -> Self::Key { player }
        fn determinize(&self, player: i32, rng: &mut Rng) -> Self {
            let mut world = self.clone();
            if player == 1 && world.picks[0] >= 0 {
                world.picks[0] = (rng.random() * 2.0) as i32;
            }
            world
        }
    }

    struct Always(i32);

    impl<G> Policy<G> for Always {
        fn choose(&self, _state: &G, _rng: &mut Rng) -> i32 { self.0 }
    }

    struct Constant;

    impl Evaluator<Dice> for Constant {
        fn evaluate(&self, _state: &Dice) -> Values { (PerPlayer::from_slice(&[0.25]), PerPlayer::from_slice(&[7.0])) }
    }

    struct Refuses;

    impl Oracle<Dice> for Refuses {
        fn exact_value(&self, _state: &Dice) -> Result<Option<Values>, Unsupported> {
            Err(Unsupported("in scope".into()))
        }
    }

    fn dice() -> Dice { Dice { target: 3, total: 0, rolling: false, over: false } }

    fn edge(outcome: &TreeOutcome, action: i32) -> (u64, f64, f64) {
        let (_, visits, value, score, _) = *outcome.sums.iter().find(|s| s.0 == action).unwrap();
        (visits, value, score)
    }

    #[test]
    fn the_dice_game_learns_that_rolling_is_worth_five_ninths() {
        let outcome = run(&dice(), &Config::default(), &Helpers::default(), Rng::new(1), 20_000).unwrap();
        let (rolls, wins, score) = edge(&outcome, ROLL);
        let (stops, stop_wins, _) = edge(&outcome, STOP);
        assert!(rolls > 10 * stops, "rolls {rolls}, stops {stops}");
        assert!((wins / rolls as f64 - 5.0 / 9.0).abs() < 0.02, "{}", wins / rolls as f64);
        assert!((score / rolls as f64 - 2.0).abs() < 0.1);
        assert_eq!(stop_wins, 0.0);
        assert_eq!(rolls + stops, 20_000);
        // every player's sums at the answer node: the one player's return sum is the edge's
        let (_, player) = outcome.player_sums.iter().find(|(a, _)| *a == ROLL).unwrap();
        assert_eq!(player[0], wins);
        assert_eq!(player[1], score);
        assert_eq!(player[3], rolls as f64); // the iterations summed: every visit of a fresh tree
    }

    #[test]
    fn the_same_seed_gives_the_same_statistics_and_another_seed_others() {
        let run = |seed| run(&dice(), &Config::default(), &Helpers::default(), Rng::new(seed), 500).unwrap();
        assert_eq!(run(7), run(7));
        assert_ne!(run(7).sums, run(8).sums);
    }

    #[test]
    fn every_root_action_is_available_in_every_iteration() {
        let outcome = run(&dice(), &Config::default(), &Helpers::default(), Rng::new(3), 300).unwrap();
        assert_eq!(outcome.sums.iter().map(|s| s.1).sum::<u64>(), 300);
        // root, after 0 and after 2 (a 3 ends the game): at most three information sets
        assert!(outcome.nodes <= 3 && outcome.nodes >= 2, "{}", outcome.nodes);
    }

    #[test]
    fn a_uniform_root_shares_the_iterations_equally() {
        let config = Config { uniform_root: true, ..Config::default() };
        let outcome = run(&dice(), &config, &Helpers::default(), Rng::new(5), 301).unwrap();
        assert_eq!((edge(&outcome, STOP).0, edge(&outcome, ROLL).0), (151, 150));
    }

    #[test]
    fn the_prior_favourite_is_tried_first() {
        let prior = Always(STOP);
        let helpers = Helpers { prior: Some(&prior), ..Helpers::default() };
        let outcome = run(&dice(), &Config::default(), &helpers, Rng::new(5), 1).unwrap();
        assert_eq!(edge(&outcome, STOP).0, 1);
        assert_eq!(edge(&outcome, ROLL).0, 0);
    }

    #[test]
    fn a_cut_off_rollout_takes_the_evaluators_values() {
        // cut off at once: every non-terminal leaf is judged (0.25, 7)
        let config = Config { rollout_cutoff: Some(0), ..Config::default() };
        let evaluator = Constant;
        let stop = Always(STOP);
        let helpers = Helpers { evaluator: Some(&evaluator), rollout: Some(&stop), ..Helpers::default() };
        let outcome = run(&dice(), &config, &helpers, Rng::new(2), 1).unwrap();
        let played: Vec<_> = outcome.sums.iter().filter(|s| s.1 == 1).collect();
        assert_eq!(played.len(), 1);
        // stop ends the game (0, 0); roll leaves a decision at 2 or 3 or ends on a bust
        let (action, _, value, score, _) = *played[0];
        assert!(action == STOP && (value, score) == (0.0, 0.0) || action == ROLL);
    }

    #[test]
    fn an_unsupported_oracle_scope_stops_the_search() {
        let oracle = Refuses;
        let helpers = Helpers { oracle: Some(&oracle), ..Helpers::default() };
        // with target 20 the tree, one node an iteration, soon ends above the end of the game
        let far = Dice { target: 20, ..dice() };
        let result = run(&far, &Config::default(), &helpers, Rng::new(2), 1_000);
        assert_eq!(result.unwrap_err(), Unsupported("in scope".into()));
    }

    #[test]
    fn regret_matching_mixes_the_matrix_game_near_its_equilibrium() {
        let config = Config { simultaneous: Simultaneous::RegretMatching, ..Config::default() };
        let outcome = run(&Matrix { picks: [-1, -1] }, &config, &Helpers::default(), Rng::new(9), 20_000)
            .unwrap();
        let policy: f64 = outcome.sums.iter().map(|s| s.4).sum();
        let row0 = outcome.sums.iter().find(|s| s.0 == 0).unwrap().4 / policy;
        assert!((row0 - 0.2).abs() < 0.05, "row 0's share {row0}");
    }

    #[test]
    fn widening_keeps_a_thin_node_to_the_guide() {
        assert_eq!(widened_actions(&[0, 1, 2, 3], &[], 0.5, 2), vec![2]);
        let visited = [(0, EdgeStats { visits: 16, ..EdgeStats::default() })];
        assert_eq!(widened_actions(&[0, 1, 2, 3], &visited, 0.5, 2), vec![2, 0, 1]);
    }

    #[test]
    fn a_node_grown_after_another_moves_its_edges_and_keeps_them_in_order() {
        // as a search adds them: each node is given its first edges as it is added
        let mut table: Table<i32> = Table::default();
        let add = |table: &mut Table<i32>, key| {
            table.nodes.push(Node { span: Span { start: table.edges.len(), ..Span::default() }, ..Node::default() });
            table.keys.push((0, key));
        };
        add(&mut table, 0);
        let mut first = table.node_edges(0);
        assert_eq!((first.edge(10), first.edge(11), first.edge(10)), (0, 1, 0));
        first.stats(1).visits = 7;
        add(&mut table, 1);
        table.node_edges(1).edge(20);
        let mut first = table.node_edges(0);
        assert_eq!((first.edge(12), first.edge(13), first.edge(14)), (2, 3, 4));
        assert_eq!(table.nodes[0].span.start, 3, "moved past the second node's edges");
        let actions = |table: &Table<i32>, node| table.edges_of(node).iter().map(|e| e.0).collect::<Vec<_>>();
        assert_eq!(actions(&table, 0), vec![10, 11, 12, 13, 14]);
        assert_eq!(actions(&table, 1), vec![20]);
        assert_eq!(table.edges_of(0)[1].1.visits, 7, "the statistics move with the edges");
    }

    #[test]
    fn a_kept_tree_counts_every_walk_below_the_root() {
        // every decision of a walk but the first is reached along an edge: the edges walked add up
        // to the visits of every node minus one per iteration
        let config = Config { keep_tree: true, ..Config::default() };
        let mut table = Table::default();
        let outcome = run_tree(&dice(), &config, &Helpers::default(), Rng::new(3), 300, &mut table).unwrap();
        let edges = outcome.edges.expect("keep_tree records the edges");
        let walked: u64 = edges.iter().flat_map(|(_, children)| children.iter().map(|c| c.1)).sum();
        let visits: u64 = table.entries().flat_map(|(_, edges)| edges.iter().map(|e| e.1.visits)).sum();
        assert_eq!(walked, visits - 300);
        // an edge starts at a node's played action and ends at a node of the table
        for ((start, action), children) in &edges {
            assert!(table.edges_of(*start).iter().any(|(a, s)| a == action && s.visits > 0));
            assert!(children.iter().all(|(next, times)| *next < table.len() && *times > 0));
        }
        let plain = run(&dice(), &Config::default(), &Helpers::default(), Rng::new(3), 300).unwrap();
        assert_eq!(plain.edges, None);
        assert_eq!(plain.sums, outcome.sums, "keeping the tree changes no statistic");
    }

    #[test]
    fn a_kept_table_grows_on_and_counts_the_earlier_visits() {
        let mut table = Table::default();
        let first = run_tree(&dice(), &Config::default(), &Helpers::default(), Rng::new(4), 200, &mut table).unwrap();
        let kept = table.len();
        let second = run_tree(&dice(), &Config::default(), &Helpers::default(), Rng::new(5), 100, &mut table).unwrap();
        assert_eq!(second.sums.iter().map(|s| s.1).sum::<u64>(), 300);
        assert!(second.nodes >= kept && first.nodes == kept);
        assert!(table.contains(&(0, (0, false, false))));
    }

    #[test]
    fn a_stopped_search_leaves_the_table_as_it_found_it() {
        let far = Dice { target: 20, ..dice() };
        let mut table = Table::default();
        run_tree(&far, &Config::default(), &Helpers::default(), Rng::new(6), 5, &mut table).unwrap();
        let before: Vec<_> = table.entries().map(|(k, edges)| (*k, edges.to_vec())).collect();
        let oracle = Refuses;
        let helpers = Helpers { oracle: Some(&oracle), ..Helpers::default() };
        assert!(run_tree(&far, &Config::default(), &helpers, Rng::new(7), 1_000, &mut table).is_err());
        let after: Vec<_> = table.entries().map(|(k, edges)| (*k, edges.to_vec())).collect();
        assert_eq!(before, after);
    }

    #[test]
    fn a_kept_node_has_no_favourite_in_a_later_search() {
        // two iterations try both actions; where rolling won, a strong bias for stopping would turn
        // the third iteration to stop if the kept root still had its favourite (Python's
        // favourites are each tree's own, so it has none: UCT rolls)
        let config = Config { prior_weight: 100.0, ..Config::default() };
        let prior = Always(STOP);
        let helpers = Helpers { prior: Some(&prior), ..Helpers::default() };
        let mut table = Table::default();
        let seed = (0..100)
            .find(|&seed| {
                let first = run(&dice(), &config, &helpers, Rng::new(seed), 2).unwrap();
                edge(&first, ROLL).1 > 0.0
            })
            .expect("a seed where the roll won");
        run_tree(&dice(), &config, &helpers, Rng::new(seed), 2, &mut table).unwrap();
        let fresh = run(&dice(), &config, &helpers, Rng::new(seed), 3).unwrap();
        assert_eq!(edge(&fresh, STOP).0, 2, "within one search the favourite's bias holds");
        let kept = run_tree(&dice(), &config, &helpers, Rng::new(seed), 1, &mut table).unwrap();
        assert_eq!((edge(&kept, STOP).0, edge(&kept, ROLL).0), (1, 2));
    }

    /// Every report of a watched search of `iterations`, as (iterations, answer, nodes, walked
    /// edges), stopping after `reports` reports; and its outcome.
    #[allow(clippy::type_complexity)]
    fn watched(
        config: &Config,
        every: u64,
        reports: usize,
        iterations: u64,
    ) -> (Vec<(u64, (Sums, PlayerSums), usize, Option<Walked>)>, TreeOutcome) {
        let mut seen = Vec::new();
        let mut report = |progress: &Progress<'_, (i32, bool, bool)>| {
            seen.push((progress.iterations, progress.answer.clone(), progress.table.len(), progress.walked.cloned()));
            seen.len() < reports
        };
        let watch = Watch { every, report: &mut report };
        let outcome = watch_step_tree(&[dice()], &[None], config, &Helpers::default(), Rng::new(8), iterations,
                                      &mut Table::default(), Some(watch)).unwrap();
        (seen, outcome)
    }

    #[test]
    fn a_watched_search_reports_the_tree_as_a_search_of_that_length_ends() {
        let config = Config { keep_tree: true, ..Config::default() };
        let (seen, outcome) = watched(&config, 25, usize::MAX, 110);
        assert_eq!(seen.iter().map(|r| r.0).collect::<Vec<_>>(), vec![25, 50, 75, 100]);
        for (iterations, answer, nodes, walked) in &seen {
            let plain = run(&dice(), &config, &Helpers::default(), Rng::new(8), *iterations).unwrap();
            assert_eq!(answer, &(plain.sums, plain.player_sums));
            assert_eq!((*nodes, walked), (plain.nodes, &plain.edges));
        }
        let plain = run(&dice(), &config, &Helpers::default(), Rng::new(8), 110).unwrap();
        assert_eq!(outcome, plain, "watching changes nothing");
        let (unkept, _) = watched(&Config::default(), 25, usize::MAX, 30);
        assert_eq!(unkept[0].3, None, "no edges without keep_tree");
    }

    #[test]
    fn a_report_answering_false_stops_the_search_there() {
        let (seen, outcome) = watched(&Config::default(), 10, 3, 1_000);
        assert_eq!(seen.len(), 3);
        assert_eq!(outcome, run(&dice(), &Config::default(), &Helpers::default(), Rng::new(8), 30).unwrap());
    }

    #[test]
    fn a_time_limit_stops_the_search_on_the_clock() {
        let limit = Limit { iterations: Some(u64::MAX), seconds: Some(0.02) };
        let outcome = run(&dice(), &Config::default(), &Helpers::default(), Rng::new(1), limit).unwrap();
        assert!(outcome.iterations > 0 && outcome.iterations < u64::MAX);
        assert_eq!(outcome.sums.iter().map(|s| s.1).sum::<u64>(), outcome.iterations);
    }
}
