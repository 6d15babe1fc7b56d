"""What the lm-eval and lighteval drivers share: the tiny local datasets and the offline settings.

Both drivers (``lm_eval_run.py``, ``lighteval_run.py``) run the same two tasks, so that their
logs hold the same examples: `sig_arith` (6 questions with a numeric answer) and
`sig_choice` (5 multiple-choice questions, `label` indexes `choices`). Each driver runs in
its harness's own virtual environment with this folder first on ``sys.path``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ARITH = [
    {"question": "What is 2 + 3?", "answer": "5"},
    {"question": "What is 7 * 6?", "answer": "42"},
    {"question": "What is 10 - 4?", "answer": "6"},
    {"question": "What is 9 + 8?", "answer": "17"},
    {"question": "What is 12 / 3?", "answer": "4"},
    {"question": "What is 5 * 5?", "answer": "25"},
]
CHOICE = [
    {"question": "Which is a fruit?", "choices": ["carrot", "apple", "potato"], "label": 1},
    {"question": "Which is a colour?", "choices": ["blue", "chair", "river"], "label": 0},
    {"question": "Which is a planet?", "choices": ["Moon", "Sun", "Mars"], "label": 2},
    {"question": "Which is a metal?", "choices": ["iron", "wood", "glass"], "label": 0},
    {"question": "Which is a bird?", "choices": ["salmon", "sparrow", "frog"], "label": 1},
]
#: Hugging Face libraries never reach the network (datasets are local JSONL files)
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as JSON Lines at ``path`` (one object per line)."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
