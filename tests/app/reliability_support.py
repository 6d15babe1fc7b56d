"""A benchmark of agents with repeated tries, for the reliability tests (a helper module).

``agent-tasks``: 4 agents × 40 tasks × 8 tries, each try scored 0/1 (metric ``success``,
tries as ``run`` 0–7). Made here, seeded, rather than stored: each task has a difficulty
drawn from Beta(0.5, 0.5) (U-shaped, as agent benchmarks are: most tasks nearly always or
nearly never solved, a few in between), each agent a skill on the logit scale; a try
succeeds with probability logistic(logit(difficulty) + skill). So some tasks are flaky and
the agents' pass^k fall apart as k grows, as on τ-bench (Yao et al. 2024, Fig. 1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

BENCHMARK, METRIC = "agent-tasks", "success"
AGENTS = {"agent-steady": 1.2, "agent-bold": 0.6, "agent-base": 0.0, "agent-rough": -0.8}
TASKS, TRIES, SEED = 40, 8, 2406


def tries_frame() -> pd.DataFrame:
    """The long table: benchmark, system, example_id, metric, value (0/1), run."""
    g = np.random.default_rng(SEED)
    difficulty = np.clip(g.beta(0.5, 0.5, TASKS), 0.02, 0.98)
    logit = np.log(difficulty / (1 - difficulty))
    rows = []
    for agent, skill in AGENTS.items():
        p = 1 / (1 + np.exp(-(logit + skill)))
        wins = g.random((TASKS, TRIES)) < p[:, None]
        for t in range(TASKS):
            for r in range(TRIES):
                rows.append((BENCHMARK, agent, f"task-{t:02d}", METRIC, float(wins[t, r]), r))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run"])


def write_csv(path: Path) -> Path:
    """The table as the CSV a user uploads (one row per try)."""
    tries_frame().to_csv(path, index=False)
    return path


if __name__ == "__main__":  # a file to upload by hand: python tests/app/reliability_support.py
    import sys

    print(write_csv(Path(sys.argv[1] if len(sys.argv) > 1 else "agent_tasks.csv")))
