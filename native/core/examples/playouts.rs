//! N heuristic playouts of a 2-player game, for instruction counts that a loaded machine does not
//! blur: `cargo build --release --example playouts && valgrind --tool=callgrind
//! target/release/examples/playouts 200` (the sum of seat 0's VP is printed so nothing is optimised away).
fn main() {
    let n: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let start = refuge_core::State::new_named(2, "meadows").unwrap();
    let mut rng = refuge_core::Rng::new(1);
    let mut total = 0i64;
    for _ in 0..n {
        let mut p = start;
        p.playout(&mut rng, refuge_core::Playout::Heuristic(&refuge_core::catalogue::DEFAULT_ROLLOUT));
        total += p.vp[0] as i64;
    }
    println!("{total}");
}
