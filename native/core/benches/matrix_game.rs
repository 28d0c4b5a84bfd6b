//! Criterion benchmarks of the exact matrix game solver (⇄ search/matrix_game.py): a 2×2 game
//! without a saddle point (the closed form: most steps the equilibrium solver meets) and 6×6
//! win-share games in twelfths (dominance removal, then Bland's-rule simplex).

use criterion::{criterion_group, criterion_main, Criterion};
use num_bigint::BigInt;
use num_rational::BigRational;

use refuge_core::matrix_game::solve_matrix_game;
use refuge_core::rng::Rng;

/// A game of `size`×`size` win shares in twelfths drawn from `rng`.
fn win_shares(size: usize, rng: &mut Rng) -> Vec<Vec<BigRational>> {
    (0..size)
        .map(|_| {
            (0..size)
                .map(|_| BigRational::new(BigInt::from(rng.below(13)), BigInt::from(12)))
                .collect()
        })
        .collect()
}

fn matrix_games(c: &mut Criterion) {
    let pennies: Vec<Vec<BigRational>> = [[3, 0], [1, 2]]
        .iter()
        .map(|row| row.iter().map(|&n| BigRational::from_integer(BigInt::from(n))).collect())
        .collect();
    c.bench_function("matrix game 2x2 closed form", |b| b.iter(|| solve_matrix_game(&pennies)));
    let mut rng = Rng::new(3);
    let games: Vec<_> = (0..20).map(|_| win_shares(6, &mut rng)).collect();
    c.bench_function("matrix game 6x6 win shares (20 games)", |b| {
        b.iter(|| games.iter().map(|game| solve_matrix_game(game)).collect::<Vec<_>>())
    });
}

criterion_group!(benches, matrix_games);
criterion_main!(benches);
