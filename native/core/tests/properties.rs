//! Property tests of the kernel's invariants (proptest): over random games from any seed, 2-4
//! players, every route, every state round-trips through the encoding, tiles and weather tiles are
//! conserved (C1, C3, C4), chance weights sum to their total, every legal decision applies, and an
//! illegal action changes nothing.

use proptest::prelude::*;
use refuge_core::catalogue::{KIND_COUNT, ROUTES, STORM};
use refuge_core::rules::supply;
use refuge_core::{heuristic_choice, Rng, State};

/// Every tile of the game is somewhere: a player's bag, hand, path or set-aside tiles, the tile
/// being resolved, the market, the box; a player's Storms are in their bag or on the track (C1, C3, C5); the weather tiles are
/// on the track, in the deck or in the reserve (C4, C13).
fn conserved(pos: &State) -> Result<(), String> {
    let players = pos.players;
    for kind in 0..KIND_COUNT as u8 {
        let mut held = pos.market[kind as usize] as i32 + pos.box_.count(kind) as i32 + (pos.tile == kind as i32) as i32;
        for p in 0..players {
            held += (pos.bags[p].count(kind) + pos.hands[p].count(kind) + pos.paths[p].count(kind)
                + pos.set_aside[p].count(kind)) as i32;
        }
        if kind == STORM {
            held += pos.owned_storms[..players].iter().sum::<i32>();
        }
        if held != supply(pos, kind) {
            return Err(format!("kind {kind}: {held} held, {} in the game", supply(pos, kind)));
        }
    }
    let r = &pos.ruleset;
    if pos.track_suns + pos.deck_suns != r.deck_suns
        || pos.track_storms + pos.deck_storms + pos.reserve != r.deck_storms + r.reserve_storms
    {
        return Err("weather tiles are not conserved".into());
    }
    Ok(())
}

fn check(pos: &State) -> Result<(), TestCaseError> {
    prop_assert!(pos.counts_agree(), "each bag's counts equal its tiles");
    let again = State::from_ints(&pos.to_ints()).map_err(|e| TestCaseError::fail(e.0))?;
    prop_assert_eq!(&again, pos);
    conserved(pos).map_err(TestCaseError::fail)?;
    if pos.is_chance() {
        let weights = pos.chance_weights();
        let total: u64 = weights.iter().map(|&(_, w)| w).sum();
        let (_, expected) = refuge_core::rules::chance_weights(pos);
        prop_assert_eq!(total, expected);
        prop_assert!(weights.iter().all(|&(a, _)| pos.copy().apply(a).is_ok()));
    } else if !pos.is_terminal() {
        prop_assert!(pos.decisions().len() >= 2, "every stop is a real choice");
        prop_assert!(pos.decisions().iter().all(|&a| pos.copy().apply(a).is_ok()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn games_keep_their_invariants(seed in any::<u64>(), players in 2usize..=4, route in 0usize..ROUTES.len(),
                                   heuristic in any::<bool>(), probe in -10i32..2100) {
        let mut pos = State::new_game(players, ROUTES[route].1, refuge_core::state::Ruleset::default_ruleset()).unwrap();
        let mut rng = Rng::new(seed);
        while !pos.is_terminal() {
            check(&pos)?;
            let mut copy = pos;
            if copy.apply(probe).is_err() {
                prop_assert_eq!(copy, pos, "an illegal action changes nothing");
            }
            let action = if pos.is_chance() {
                pos.sample_chance(&mut rng)
            } else if heuristic {
                heuristic_choice(&pos, &mut rng)
            } else {
                pos.decisions()[rng.below(pos.decisions().len())]
            };
            pos.apply(action).unwrap();
        }
        check(&pos)?;
        prop_assert!((pos.returns().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn playout_ends_where_step_by_step_play_ends(seed in any::<u64>(), players in 2usize..=4) {
        // The fast path skips only the history folds of decisions and outcomes (rules.py `playout`).
        let start = State::new_named(players, "forest").unwrap();
        let (mut fast, mut slow) = (start, start);
        let (mut a, mut b) = (Rng::new(seed), Rng::new(seed));
        fast.playout(&mut a, refuge_core::Playout::Heuristic(&refuge_core::catalogue::DEFAULT_ROLLOUT));
        while !slow.is_terminal() {
            let action = if slow.is_chance() { slow.sample_chance(&mut b) } else { heuristic_choice(&slow, &mut b) };
            slow.apply(action).unwrap();
        }
        slow.history = fast.history;
        prop_assert_eq!(fast, slow);
        prop_assert_eq!(a.getstate(), b.getstate());
    }

    /// Each bag's per-kind counts stay equal to its tiles whatever happens to the bags: any event
    /// sequence (legal ones of any policy, illegal ones refused), hidden bags dealt afresh
    /// (`determinize`), the rollout fast path (`play`), and the encoding's round trip.
    #[test]
    fn bag_counts_follow_the_bags(seed in any::<u64>(), players in 2usize..=4, route in 0usize..ROUTES.len(),
                                  events in prop::collection::vec((0u8..4, -10i32..2100), 0..400)) {
        let mut pos = State::new_game(players, ROUTES[route].1, refuge_core::state::Ruleset::default_ruleset()).unwrap();
        pos.hidden_bags = refuge_core::state::Tiles::from_slice(&[1]).unwrap();
        let mut rng = Rng::new(seed);
        for (how, probe) in events {
            if pos.is_terminal() {
                break;
            }
            match how {
                0 => { let _ = pos.apply(probe); }
                1 => pos = pos.determinize(0, &mut rng),
                2 => {
                    let action = if pos.is_chance() { pos.sample_chance(&mut rng) } else { heuristic_choice(&pos, &mut rng) };
                    refuge_core::rules::play(&mut pos, action);
                }
                _ => {
                    let action = if pos.is_chance() {
                        pos.sample_chance(&mut rng)
                    } else {
                        pos.decisions()[rng.below(pos.decisions().len())]
                    };
                    pos.apply(action).unwrap();
                }
            }
            prop_assert!(pos.counts_agree(), "each bag's counts equal its tiles");
            prop_assert_eq!(State::from_ints(&pos.to_ints()).unwrap(), pos);
        }
    }
}
