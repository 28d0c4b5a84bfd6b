//! Action notation. Python twin: positions/kernel/actions.py (`str(Action)`, `action_from_code`).

use crate::catalogue::*;
use crate::state::Action;

/// The notation of the action with this code, `None` if no action has it (Python twin:
/// `str(action_from_code(code))`).
pub fn name(code: Action) -> Option<String> {
    let kind_name = |base: Action| TILE_NAMES.get((code - base) as usize).map(|n| n.to_string());
    Some(match code {
        RETURN_CODE => "return".into(),
        DRAW_CODE => "draw".into(),
        PASS_CODE => "pass".into(),
        DISCARD_NONE_CODE => "discard none".into(),
        DISCARD_SECOND_CODE => "discard second".into(),
        SUN_CODE => "weather sun".into(),
        WEATHER_STORM_CODE => "weather storm".into(),
        c if (OPTION_BASE..OPTION_BASE + OPTION_NAMES.len() as i32).contains(&c) => {
            format!("option {}", OPTION_NAMES[(c - OPTION_BASE) as usize])
        }
        c if (PLAY_BASE..PLAY_BASE + KIND_COUNT as i32).contains(&c) => format!("play {}", kind_name(PLAY_BASE)?),
        c if (BUY_BASE..BUY_BASE + KIND_COUNT as i32).contains(&c) => format!("buy {}", kind_name(BUY_BASE)?),
        c if (DISCARD_PATH_BASE..DISCARD_PATH_BASE + KIND_COUNT as i32).contains(&c) => {
            format!("discard path {}", kind_name(DISCARD_PATH_BASE)?)
        }
        c if (DRAWN_ONE_BASE..DRAWN_ONE_BASE + KIND_COUNT as i32).contains(&c) => {
            format!("drawn {}", kind_name(DRAWN_ONE_BASE)?)
        }
        c if (TIEBREAK_BASE..TIEBREAK_BASE + 4).contains(&c) => format!("tiebreak {}", c - TIEBREAK_BASE),
        c if (DRAWN_TWO_BASE..ACTION_SPACE).contains(&c) => {
            let (a, b) = ((c - DRAWN_TWO_BASE) as usize / KIND_COUNT, (c - DRAWN_TWO_BASE) as usize % KIND_COUNT);
            if a > b {
                return None;
            }
            format!("drawn {} {}", TILE_NAMES[a], TILE_NAMES[b])
        }
        _ => return None,
    })
}
