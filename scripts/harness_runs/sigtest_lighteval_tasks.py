"""Two tiny lighteval tasks on local JSONL data (for scripts/harness_runs/lighteval_run.py).

`hf_repo` is a local folder (set by the driver in SIGTEST_LIGHTEVAL_DATA) holding
`arith/test.jsonl` and `choice/test.jsonl`; the `datasets` library reads it offline.
"""

from __future__ import annotations

import os

from lighteval.metrics.metrics import Metrics
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

DATA = os.environ["SIGTEST_LIGHTEVAL_DATA"]


def arith_prompt(line: dict, task_name: str = "") -> Doc:  # type: ignore[type-arg]
    return Doc(task_name=task_name, query=f"Question: {line['question']}\nAnswer:",
               choices=[line["answer"]], gold_index=0)


def choice_prompt(line: dict, task_name: str = "") -> Doc:  # type: ignore[type-arg]
    return Doc(task_name=task_name, query=f"Question: {line['question']}\nAnswer:",
               choices=[f" {c}" for c in line["choices"]], gold_index=line["label"])


TASKS_TABLE = [
    LightevalTaskConfig(
        name="sig_arith", prompt_function=arith_prompt, hf_repo=f"{DATA}/arith", hf_subset="default",
        hf_avail_splits=["test"], evaluation_splits=["test"], few_shots_split=None,
        few_shots_select=None, generation_size=16, stop_sequence=["\n"],
        metrics=[Metrics.exact_match], version=0,
    ),
    LightevalTaskConfig(
        name="sig_choice", prompt_function=choice_prompt, hf_repo=f"{DATA}/choice", hf_subset="default",
        hf_avail_splits=["test"], evaluation_splits=["test"], few_shots_split=None,
        few_shots_select=None, generation_size=-1, stop_sequence=None,
        metrics=[Metrics.loglikelihood_acc], version=0,
    ),
]
