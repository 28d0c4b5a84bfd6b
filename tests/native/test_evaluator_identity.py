"""The learned evaluator of every layout (summary, mix, position, network) equals its Python
reference bit for bit in the native core (native/core/src/evaluator.rs, layout_rows.rs,
hidden_layer.rs): the rows, the win shares and projected scores on a corpus of positions, and the
root statistics of a search cut off by it (docs/evaluator.md, "Native inference")."""

from __future__ import annotations

import random

import pytest

from advisor.players.learned import LAYOUTS, SCORE_FEATURES, FEATURES, HiddenLayer, LearnedEvaluator, Model, layout_rows
from positions.kernel import native_search
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from search.backend import native_request
from search.ismcts import run_tree
from search.request import SearchRequest
from test_search_identity import decision_examples, grow, played_positions

refuge_native = pytest.importorskip("refuge_native")
if not hasattr(refuge_native, "LearnedModel"):
    pytest.skip("refuge_native has no LearnedModel (built without native/py/src/evaluator.rs)", allow_module_level=True)


def seeded_model(layout: str, seed: int, units: int = 16) -> Model:
    """A model of `layout` with weights drawn from `seed` (a network with `units` tanh units), of
    the sizes a fitted model has: small weights, so that the logits stay in the softmax's range."""
    rng = random.Random(seed)
    width = len(LAYOUTS[layout][1])
    win = tuple(rng.gauss(0, 0.05) for _ in range(width))
    score = tuple(rng.gauss(0, 0.3) for _ in range(width + len(SCORE_FEATURES) - len(FEATURES)))
    hidden = None
    if layout == "network":
        hidden = HiddenLayer(tuple(tuple(rng.gauss(0, 0.1) for _ in range(units)) for _ in range(width)),
                             tuple(rng.gauss(0, 0.5) for _ in range(units)),
                             tuple(rng.gauss(0, 0.5) for _ in range(units)))
    return Model(win, score, {"seed": seed}, layout, hidden)


@pytest.fixture(scope="module")
def corpus() -> list:  # type: ignore[type-arg]
    """Decisions of seeded random games of 2 to 4 players on every route."""
    positions = played_positions(30, every=2)
    assert len(positions) > 500
    return positions


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_rows_and_the_evaluation_equal_python_on_a_corpus(corpus: list, layout: str) -> None:  # type: ignore[type-arg]
    evaluator = LearnedEvaluator(seeded_model(layout, 7))
    native = evaluator.native_weights()
    assert native is not None and native is evaluator.native_weights()  # built once per evaluator
    for position in corpus:
        ints = position.to_ints()
        assert native.rows(ints) == [[float(x) for x in row] for row in layout_rows(position, layout)], position
        wins, scores = evaluator.evaluate(position)
        assert native.evaluate(ints) == (wins, scores), position


def test_the_shipped_summary_model_equals_python() -> None:
    evaluator = LearnedEvaluator()
    native = evaluator.native_weights()
    for position in played_positions(6):
        assert native.evaluate(position.to_ints()) == tuple(evaluator.evaluate(position))


@pytest.mark.parametrize("units", [1, 5, 130])  # 130: more than one block of the core's units
def test_a_network_of_any_width_equals_python(units: int) -> None:
    evaluator = LearnedEvaluator(seeded_model("network", units, units))
    native = evaluator.native_weights()
    for position in played_positions(6):
        assert native.evaluate(position.to_ints()) == tuple(evaluator.evaluate(position))


@pytest.mark.parametrize("layout", ["mix", "position", "network"])
@pytest.mark.parametrize("seed", [1, 2712])
def test_root_statistics_with_a_richer_model_equal_the_python_search(
        monkeypatch: pytest.MonkeyPatch, layout: str, seed: int) -> None:
    """A search cut off by the model after 4 decisions grows natively, as Python grows it."""
    iterations = 120
    request = SearchRequest.of(iterations=iterations, rollout=DEFAULT_ROLLOUT, prior=DEFAULT_ROLLOUT,
                               rollout_cutoff=4, evaluator=LearnedEvaluator(seeded_model(layout, seed)))
    assert native_search.unsupported(native_request(request)) == ""
    compared = 0
    for name, position in decision_examples()[:5]:
        monkeypatch.delenv("REFUGE_BACKEND", raising=False)
        native = grow(position, native_request(request), seed, iterations)
        assert native is not None, name
        monkeypatch.setenv("REFUGE_BACKEND", "python")
        python = run_tree(position, request, seed, iterations)
        [(sums, player_sums)], _, nodes, done = native
        assert done == iterations
        assert (sums, player_sums, nodes) == (python.sums, python.player_sums, python.nodes), name
        compared += 1
    assert compared == 5


@pytest.mark.parametrize("arguments, message", [
    (("deep", [0.0] * 13, [0.0] * 15), "evaluator: unknown layout \"deep\""),
    (("mix", [0.0] * 13, [0.0] * 15), "evaluator: 13 win weights, expected 44"),
    (("position", [0.0] * 84, [0.0] * 85), "evaluator: 85 score weights, expected 86"),
    (("network", [0.0] * 84, [0.0] * 86), "evaluator: a network model needs its hidden layer"),
    (("summary", [0.0] * 13, [0.0] * 15, ([[0.0]] * 13, [0.0], [0.0])),
     "evaluator: only a network model has a hidden layer"),
    (("network", [0.0] * 84, [0.0] * 86, ([[0.0, 0.0]] * 84, [0.0, 0.0], [0.0])),
     "evaluator: 1 hidden output weights, expected 2"),
])
def test_a_model_that_does_not_fit_is_refused_in_one_line(arguments: tuple, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message):
        refuge_native.LearnedModel(*arguments)


def test_a_bad_position_is_refused_in_one_line() -> None:
    native = LearnedEvaluator().native_weights()
    with pytest.raises(ValueError, match="^evaluate: "):
        native.evaluate([1, 2, 3])
