//! Criterion benchmarks of the kernel: copy, draw+apply, a heuristic playout of a 2-player game.
//! Run: `cargo bench -p refuge-core` (targets, issue 53: copy ≤ 50 ns, draw+apply ≤ 100 ns,
//! heuristic playout 2p ≤ 25 µs).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::{Playout, Rng, State};

/// A position a few turns into a 2-player game, at a chance event (a deal).
fn midgame() -> State {
    let mut pos = State::new_named(2, "meadows").unwrap();
    let mut rng = Rng::new(1);
    let mut events = 0;
    while events < 40 || !pos.is_chance() {
        if pos.is_chance() {
            let a = pos.sample_chance(&mut rng);
            pos.apply(a).unwrap();
        } else {
            let a = refuge_core::heuristic_choice(&pos, &mut rng);
            pos.apply(a).unwrap();
        }
        events += 1;
    }
    pos
}

fn benches(c: &mut Criterion) {
    let pos = midgame();
    // The closures return nothing large: criterion reads a routine's result through its own
    // (volatile, byte by byte) black_box, which would be timed too.
    c.bench_function("copy", |b| {
        b.iter(|| {
            let copy = black_box(&pos).copy();
            black_box(&copy);
        })
    });
    let mut rng = Rng::new(2);
    c.bench_function("draw+apply", |b| {
        b.iter_batched_ref(
            || pos,
            |p| {
                let a = p.sample_chance(&mut rng);
                p.apply(a).unwrap();
            },
            BatchSize::SmallInput,
        )
    });
    let start = State::new_named(2, "meadows").unwrap();
    let mut rng = Rng::new(3);
    c.bench_function("heuristic playout 2p", |b| {
        b.iter(|| {
            let mut p = start;
            p.playout(&mut rng, Playout::Heuristic(&DEFAULT_ROLLOUT));
            black_box(p.vp[0])
        })
    });
    c.bench_function("random playout 2p", |b| {
        b.iter(|| {
            let mut p = start;
            p.playout(&mut rng, Playout::Random);
            black_box(p.vp[0])
        })
    });
}

criterion_group!(kernel, benches);
criterion_main!(kernel);
