"""`refuge spsa` (issue 27): fishtest-style SPSA of search options, seeded, logged and resumable."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from advisor.arena.spsa import (
    GameMatch, Parameter, SpsaError, SpsaSettings, Trial, check_base, parse_parameter, run_spsa,
    tuned_spec,
)
from advisor.cli.main import cli
from positions.errors import RefugeError
from search.seeds import derive_seed

OPTIMUM = {"exploration": 1.3, "cutoff": 20.0}
PARAMETERS = [Parameter("exploration", 0.4, 0.05, 3.0, 0.15, 0.1),
              Parameter("cutoff", 6.0, 2.0, 40.0, 2.0, 0.1)]


def noisy_match(seed: int):
    """A synthetic objective, a pure function of (seed, k, θ+, θ−): each side's strength falls with
    its squared (scaled) distance from OPTIMUM; the pair's result is the strength gap plus noise."""
    scale = {"exploration": 1.0, "cutoff": 10.0}

    def strength(theta: dict[str, float]) -> float:
        return -sum(((theta[n] - OPTIMUM[n]) / scale[n]) ** 2 for n in theta)

    def result(trial: Trial) -> float:
        noise = random.Random(derive_seed(seed, "noise", trial.k)).gauss(0.0, 0.5)
        return max(-2.0, min(2.0, strength(trial.plus) - strength(trial.minus) + noise))
    return lambda trials: [result(t) for t in trials]


def _distance(theta: dict[str, float]) -> float:
    return abs(theta["exploration"] - OPTIMUM["exploration"]) + abs(theta["cutoff"] - OPTIMUM["cutoff"]) / 10


def test_spsa_moves_theta_toward_the_optimum_the_same_way_every_time(tmp_path) -> None:
    settings = SpsaSettings(PARAMETERS, iterations=400, seed=7)
    first = list(run_spsa(settings, noisy_match(7), str(tmp_path / "a.jsonl")))
    again = list(run_spsa(settings, noisy_match(7), str(tmp_path / "b.jsonl")))
    assert first == again  # deterministic from the seed
    start = {p.name: p.start for p in PARAMETERS}
    assert _distance(first[-1].theta) < 0.1 * _distance(start)  # 2.3 -> about 0.05
    for done in first:  # bounds hold for θ and for both perturbed sides
        for p in PARAMETERS:
            for side in (done.theta, done.plus, done.minus):
                assert p.low <= side[p.name] <= p.high
    other = list(run_spsa(SpsaSettings(PARAMETERS, iterations=400, seed=8), noisy_match(8),
                          str(tmp_path / "c.jsonl")))
    assert [d.signs for d in other] != [d.signs for d in first]


@pytest.mark.parametrize("batch", [1, 4])
def test_a_stopped_run_resumes_on_the_identical_trajectory(tmp_path, batch: int) -> None:
    settings = SpsaSettings(PARAMETERS, iterations=60, seed=3, batch=batch)
    whole = list(run_spsa(settings, noisy_match(3), str(tmp_path / "whole.jsonl")))
    log = tmp_path / "stopped.jsonl"
    steps = run_spsa(settings, noisy_match(3), str(log))
    for _ in range(26):
        next(steps)
    steps.close()  # stopped after 26 iterations: with batch 4, in the middle of a batch
    with log.open("a") as out:
        out.write('{"k": 26, "signs": [1')  # and a line torn by a crash mid-write
    with pytest.raises(SpsaError, match="add --resume"):
        list(run_spsa(settings, noisy_match(3), str(log)))
    resumed = list(run_spsa(settings, noisy_match(3), str(log), resume=True))
    assert resumed == whole
    assert log.read_text() == (tmp_path / "whole.jsonl").read_text()


def test_a_log_of_another_run_is_refused(tmp_path) -> None:
    log = str(tmp_path / "log.jsonl")
    list(run_spsa(SpsaSettings(PARAMETERS, iterations=3, seed=3), noisy_match(3), log))
    with pytest.raises(SpsaError, match="another tuning run"):
        list(run_spsa(SpsaSettings(PARAMETERS, iterations=3, seed=4), noisy_match(4), log, resume=True))


def test_the_gains_follow_the_standard_sequences() -> None:
    settings = SpsaSettings(PARAMETERS, iterations=100)
    (a0, _), (c0, _) = settings.gains(0)
    (a9, _), (c9, _) = settings.gains(9)
    assert c0 / c9 == pytest.approx(10 ** 0.101)
    assert a0 / a9 == pytest.approx(((10 + 10) / (10 + 1)) ** 0.602)  # A = 10 % of 100
    (a_last, _), (c_last, _) = settings.gains(99)
    assert c_last == pytest.approx(PARAMETERS[0].c_end)  # fishtest: c_k reaches c_end at the end
    assert a_last == pytest.approx(PARAMETERS[0].r_end * PARAMETERS[0].c_end ** 2)


@pytest.mark.parametrize("text, message", [
    ("depth=1,0,2,1", "SPSA tunes"),
    ("exploration=0.7,0.1", "expected exploration=START,MIN,MAX,C_END"),
    ("exploration=a,0.1,2,0.1", "expected exploration=START"),
    ("exploration=3,0.1,2,0.1", "MIN <= START <= MAX"),
    ("exploration=0.7,0.1,2,0", "must be > 0"),
])
def test_bad_parameters_are_refused(text: str, message: str) -> None:
    with pytest.raises(SpsaError, match=message):
        parse_parameter(text)


def test_the_base_spec_is_checked_at_every_corner() -> None:
    cutoff = [parse_parameter("cutoff=8,2,32,2")]
    assert tuned_spec("ismcts:iterations=5", {"cutoff": 7.6}) == "ismcts:iterations=5,cutoff=8"
    assert tuned_spec("ismcts", {"exploration": 0.5}) == "ismcts:exploration=0.5"
    with pytest.raises(SpsaError, match="sets cutoff"):
        check_base("ismcts:cutoff=4", cutoff)
    with pytest.raises(SpsaError, match="tunes an ismcts agent"):
        check_base("greedy", cutoff)
    with pytest.raises(RefugeError, match="needs an evaluator"):
        check_base("ismcts:evaluator=rollout", cutoff)


def test_a_real_smoke_run_plays_two_iterations_and_resumes(tmp_path) -> None:
    log = tmp_path / "spsa.jsonl"
    argv = ["spsa", "--agent", "ismcts:iterations=2", "--param", "exploration=0.7,0.1,2,0.1",
            "--param", "cutoff=8,2,32,2", "--iterations", "2", "--seed", "5", "--log", str(log),
            "--every", "1", "--workers", "1"]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[0]["spsa"] == 1 and [row["k"] for row in lines[1:]] == [0, 1]
    assert all(-2 <= row["result"] <= 2 for row in lines[1:])
    assert "iteration 2/2" in result.output and "spec: ismcts:iterations=2,exploration=" in result.output
    again = CliRunner().invoke(cli, argv + ["--resume"])  # nothing left to play: the same θ
    assert again.exit_code == 0, again.output
    assert again.output.splitlines()[-2:] == result.output.splitlines()[-2:]
    assert len(log.read_text().splitlines()) == 3
    refused = CliRunner().invoke(cli, argv)
    assert refused.exit_code == 1 and "add --resume" in refused.output


def test_a_batch_perturbs_from_its_first_theta_and_updates_in_order(tmp_path) -> None:
    settings = SpsaSettings(PARAMETERS, iterations=8, seed=3, batch=4)
    steps = list(run_spsa(settings, noisy_match(3), str(tmp_path / "batch.jsonl")))
    start = {p.name: p.start for p in PARAMETERS}
    for done in steps[:4]:  # every side of the first batch straddles the start
        for p in PARAMETERS:
            assert done.plus[p.name] + done.minus[p.name] == pytest.approx(2 * start[p.name])
    for done in steps[4:]:
        for p in PARAMETERS:
            assert done.plus[p.name] + done.minus[p.name] == pytest.approx(2 * steps[3].theta[p.name])
    classic = list(run_spsa(SpsaSettings(PARAMETERS, iterations=8, seed=3), noisy_match(3),
                            str(tmp_path / "classic.jsonl")))
    assert [d.signs for d in classic] == [d.signs for d in steps] and classic[1:] != steps[1:]


def test_real_games_give_the_same_results_on_one_worker_or_two() -> None:
    trials = [Trial(k, {"exploration": 0.4}, {"exploration": 1.4}) for k in range(2)]
    results = []
    for workers in (1, 2):
        match = GameMatch("ismcts:iterations=2", seed=9, workers=workers)
        try:
            results.append(match(trials))
        finally:
            match.close()
    assert results[0] == results[1] and all(-2 <= r <= 2 for r in results[0])


def test_an_unusable_log_is_one_line(tmp_path) -> None:
    settings = SpsaSettings(PARAMETERS, iterations=2)
    with pytest.raises(SpsaError, match="cannot write the SPSA log"):
        list(run_spsa(settings, noisy_match(0), str(tmp_path / "no-such-dir" / "log.jsonl")))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00\n")
    with pytest.raises(SpsaError, match="cannot read the SPSA log"):
        list(run_spsa(settings, noisy_match(0), str(binary), resume=True))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    with pytest.raises(SpsaError, match="not an SPSA log"):
        list(run_spsa(settings, noisy_match(0), str(garbage), resume=True))


def test_a_file_that_is_not_a_log_is_left_untouched(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, no newline at the end")
    with pytest.raises(SpsaError, match="not an SPSA log"):
        list(run_spsa(SpsaSettings(PARAMETERS, iterations=2), noisy_match(0), str(notes), resume=True))
    assert notes.read_text() == "my notes, no newline at the end"


def test_a_header_torn_by_a_crash_is_written_again(tmp_path) -> None:
    settings = SpsaSettings(PARAMETERS, iterations=5, seed=2)
    whole = tmp_path / "whole.jsonl"
    list(run_spsa(settings, noisy_match(2), str(whole)))
    torn = tmp_path / "torn.jsonl"
    torn.write_text(whole.read_text().splitlines()[0][:30])
    list(run_spsa(settings, noisy_match(2), str(torn), resume=True))
    assert torn.read_text() == whole.read_text()
