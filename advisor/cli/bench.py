"""`refuge bench`: the command; the benchmark is :mod:`advisor.arena.bench`."""

from __future__ import annotations

import json
import time

import click

from advisor.arena.bench import BENCH_POSITIONS, BENCH_SEED, DEFAULT_ITERATIONS, run_bench


BENCH_AGENT = "ismcts:iterations={iterations},workers={workers},reuse=0"
"""What :func:`advisor.arena.bench.run_bench` searches with, as an agent spec."""


@click.command("bench")
@click.option("--iterations", type=click.IntRange(1), default=DEFAULT_ITERATIONS, show_default=True,
              help="search iterations per position")
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="root-parallel trees per search (threads natively); the signature is per worker count")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
def bench_command(iterations: int, workers: int, as_json: bool) -> None:
    """Search fixed positions with fixed seeds; print a deterministic signature and the speed.

    Example: refuge bench --iterations 400 --workers 2
    """
    if workers > iterations:
        raise click.BadParameter(f"{workers} workers for only {iterations} iterations", param_hint="--workers")
    labels = [label for label, *_ in BENCH_POSITIONS]
    agent = BENCH_AGENT.format(iterations=iterations, workers=workers)
    if not as_json:
        click.echo(f"bench: agent {agent} (the agent's defaults, a fresh tree each search) on "
                   f"{len(labels)} positions ({', '.join(labels)}), {iterations} iterations each, "
                   f"seeds from {BENCH_SEED}, {workers} worker{'s' if workers > 1 else ''}")
    started = time.perf_counter()
    result = run_bench(iterations, workers)
    if as_json:
        click.echo(json.dumps({"agent": agent, "positions": labels,
                               "iterations_per_position": iterations, "workers": workers, "signature": result.signature,
                               "iterations": result.iterations,
                               "seconds": round(result.seconds, 3),
                               "iterations_per_second": round(result.speed, 1),
                               "search": result.backend}))
        return
    for line in result.lines:
        top = max(line.visits, key=lambda v: v[1])
        click.echo(f"{line.label:<20} {line.chosen:<24} visits {top[1]:>5}/{line.iterations:<5} "
                   f"{line.iterations / line.seconds if line.seconds else 0:>8.0f} it/s")
    click.echo(f"iterations: {result.iterations}")
    click.echo(f"seconds: {time.perf_counter() - started:.2f}")
    click.echo(f"iterations/s: {result.speed:.0f}")
    click.echo(f"signature: {result.signature}")
    click.echo(f"search: {result.backend}")
