//! The omniscient agent's game: a position whose chance is foreseen, drawn from its own copy of the
//! deal's streams (one per seat's draws, one for weather, one for tie-breaks), never from the
//! search's stream (⇄ `advisor/players/omniscient.py` `Foreseen`, the streams ⇄
//! `advisor/players/games.py` `DealStreams`). The ordinary search runs on it unchanged: every
//! iteration replays the same true future along the same line of play.

use std::borrow::Cow;

use crate::catalogue::{TIEBREAK, WEATHER};
use crate::evaluator::{self, Model};
use crate::heuristic::Heuristic;
use crate::ismcts::{Evaluator, Game, PerPlayer, Policy, Values};
use crate::rng::Rng;
use crate::state::State;

/// The chance streams of one deal (⇄ `games.DealStreams`): the seats' draws, weather, tie-breaks.
#[derive(Clone, Debug)]
pub struct Streams {
    seats: Vec<Rng>,
    weather: Rng,
    tiebreak: Rng,
}

impl Streams {
    /// The streams at the states `DealStreams.states()` lists (every seat's, then weather's, then
    /// tie-breaks': 624 words and the index), for `players` seats (⇄ `DealStreams.copy` across the
    /// boundary); an error naming the first state that is not one.
    pub fn from_states(states: &[(Vec<u32>, usize)], players: usize) -> Result<Streams, String> {
        if states.len() != players + 2 {
            return Err(format!("{} streams for {players} players (expected {})", states.len(), players + 2));
        }
        let mut rngs = Vec::with_capacity(states.len());
        for (index, (words, at)) in states.iter().enumerate() {
            rngs.push(Rng::setstate(words, *at).ok_or_else(|| format!("stream {index} is not a Mersenne Twister state"))?);
        }
        let tiebreak = rngs.pop().expect("players + 2 streams");
        let weather = rngs.pop().expect("players + 2 streams");
        Ok(Streams { seats: rngs, weather, tiebreak })
    }

    /// The stream that decides `state`'s pending chance event (⇄ `DealStreams.stream`).
    pub fn stream(&mut self, state: &State) -> &mut Rng {
        match state.phase {
            WEATHER => &mut self.weather,
            TIEBREAK => &mut self.tiebreak,
            _ => &mut self.seats[state.actor as usize],
        }
    }
}

/// A position and the deal's streams (⇄ `omniscient.Foreseen`).
#[derive(Clone, Debug)]
pub struct Foreseen {
    /// The position (its bags are the true ones: no hidden bag).
    pub state: State,
    /// Its own copy of the chance streams.
    pub streams: Streams,
}

impl Game for Foreseen {
    type Key = (usize, u64, i32);

    fn players(&self) -> usize {
        self.state.players
    }

    fn current_player(&self) -> i32 {
        self.state.current_player()
    }

    fn is_simultaneous(&self) -> bool {
        self.state.is_simultaneous()
    }

    fn legal_actions(&self) -> Cow<'_, [i32]> {
        Game::legal_actions(&self.state)
    }

    fn apply(&mut self, action: i32) {
        Game::apply(&mut self.state, action)
    }

    /// ⇄ one event of `Foreseen.playout`: as the position plays it in a rollout.
    fn play(&mut self, action: i32) {
        Game::play(&mut self.state, action)
    }

    /// ⇄ `Foreseen.sample_chance`: the foreseen outcome, from the stream the game loop draws it
    /// from, whatever `rng`.
    fn sample_chance(&mut self, _rng: &mut Rng) -> i32 {
        let stream = self.streams.stream(&self.state);
        self.state.sample_chance(stream)
    }

    fn returns(&self) -> PerPlayer {
        Game::returns(&self.state)
    }

    fn scores(&self) -> PerPlayer {
        Game::scores(&self.state)
    }

    fn information_set_key(&self, player: i32) -> Self::Key {
        self.state.information_set_key(player as usize)
    }

    /// ⇄ `Foreseen.determinize` (`Position.determinize` on a copy with its streams): the others'
    /// unrevealed choices resampled, the true bags kept (there is no hidden bag).
    fn determinize(&self, player: i32, rng: &mut Rng) -> Self {
        Foreseen { state: self.state.determinize(player as usize, rng), streams: self.streams.clone() }
    }

    fn step_start(&self, player: i32) -> Option<Self> {
        self.state.step_start(player as usize).map(|state| Foreseen { state, streams: self.streams.clone() })
    }
}

impl Policy<Foreseen> for Heuristic {
    /// ⇄ `HeuristicPolicy.choose` on the foreseen position (it reads the position only).
    fn choose(&self, state: &Foreseen, rng: &mut Rng) -> i32 {
        Heuristic::choose(self, &state.state, rng)
    }
}

impl Evaluator<Foreseen> for Model {
    /// ⇄ `LearnedEvaluator.evaluate` on the foreseen position (it reads the position only).
    fn evaluate(&self, state: &Foreseen) -> Values {
        evaluator::evaluate(self, &state.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop_assert_eq, proptest};

    fn streams(seed: u64, players: usize) -> Streams {
        let states: Vec<(Vec<u32>, usize)> = (0..players as u64 + 2)
            .map(|i| {
                let (words, index) = Rng::new(seed * 10 + i).getstate();
                (words.to_vec(), index)
            })
            .collect();
        Streams::from_states(&states, players).unwrap()
    }

    /// Play `decisions` decisions (the `k`-th legal one each, cycling through `picks`) with chance
    /// from `world`'s streams and the search stream `rng`; the chance outcomes drawn.
    fn line(mut world: Foreseen, picks: &[usize], rng: &mut Rng) -> Vec<i32> {
        let mut drawn = Vec::new();
        for &pick in picks {
            while world.current_player() == -1 {
                let outcome = world.sample_chance(rng);
                drawn.push(outcome);
                Game::apply(&mut world, outcome);
            }
            if world.current_player() < 0 {
                break;
            }
            let legal = world.legal_actions().into_owned();
            Game::apply(&mut world, legal[pick % legal.len()]);
        }
        drawn
    }

    proptest! {
        #[test]
        fn the_same_line_draws_the_same_future_whatever_the_search_stream(
            seed in 0u64..1_000_000, players in 2usize..5, picks in proptest::collection::vec(0usize..8, 20..60),
            one in any::<u64>(), two in any::<u64>(),
        ) {
            let world = Foreseen { state: State::new_named(players, "meadows").unwrap(), streams: streams(seed, players) };
            let first = line(world.clone(), &picks, &mut Rng::new(one));
            prop_assert_eq!(&first, &line(world.clone(), &picks, &mut Rng::new(two)));
        }
    }

    #[test]
    fn a_copy_draws_alone() {
        let mut world = Foreseen { state: State::new_named(2, "meadows").unwrap(), streams: streams(3, 2) };
        let before = world.streams.clone();
        let mut twin = world.clone();
        let mut rng = Rng::new(0);
        while twin.current_player() >= 0 {
            let legal = twin.legal_actions().into_owned();
            Game::apply(&mut twin, legal[legal.len() - 1]); // the last: a draw, so chance comes

        }
        twin.sample_chance(&mut rng);
        assert_eq!(world.streams.seats[0].getstate(), before.seats[0].getstate());
        assert_ne!(twin.streams.seats[0].getstate(), before.seats[0].getstate());
        world.sample_chance(&mut rng);
        assert_eq!(world.streams.seats[0].getstate(), twin.streams.seats[0].getstate());
    }
}
