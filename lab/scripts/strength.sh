#!/usr/bin/env bash
# The strength programme behind docs/performance.md: paired arena matches (2 players, meadows).
# Usage: bash lab/scripts/strength.sh [DB] [WORKERS]   (resumable: rerun to continue)
set -euo pipefail
db=${1:-strength.sqlite}
workers=${2:-2}
arena() { .venv/bin/refuge arena --db "$db" --workers "$workers" --seed 1 "$@"; }
run() { arena "$@" --resume 2>/dev/null || arena "$@"; }
run --agent greedy=greedy --agent random=random --games 200
run --agent cautious=cautious --agent random=random --games 200
run --agent greedy=greedy --agent cautious=cautious --agent heuristic=heuristic --games 200
run --agent ismcts100-random=ismcts:iterations=100,rollout=random --agent random=random --games 200
run --agent ismcts1000=ismcts:iterations=1000 --agent greedy=greedy --games 200
run --agent ismcts1000=ismcts:iterations=1000 --agent random=random --games 200
run --agent ismcts1000=ismcts:iterations=1000 --agent cautious=cautious --games 200
run --agent ismcts1000=ismcts:iterations=1000 --agent heuristic=heuristic --games 200
run --agent ismcts250=ismcts:iterations=250 --agent greedy=greedy --games 200
run --agent ismcts4000=ismcts:iterations=4000 --agent greedy=greedy --games 200
