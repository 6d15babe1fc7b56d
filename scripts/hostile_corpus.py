"""Hostile uploads (archive bombs, harness logs, too many systems), built as small byte
strings (tests build them into tmp_path).

``python scripts/hostile_corpus.py OUT_DIR`` writes every case to OUT_DIR; the tests
import the builders and write only what they need. Each builder returns the file's bytes
and says in its docstring what it attacks.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

DATE = "2025-03-14T10-22-31.482913"


def _results(model: str, task: str) -> str:
    return json.dumps({
        "results": {task: {"alias": task, "acc,none": 0.5}},
        "configs": {task: {"task": task, "repeats": 1, "num_fewshot": 0,
                           "filter_list": [{"name": "none", "filter": []}]}},
        "versions": {task: 1.0}, "n-shot": {task: 0}, "higher_is_better": {task: {"acc": True}},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "limit": 4.0},
        "model_name": model, "model_name_sanitized": model.replace("/", "__"),
        "chat_template_sha": None, "lm_eval_version": "0.4.8", "date": 0.0})


def _samples(examples: int, seed: int, text: str = "x") -> str:
    return "".join(json.dumps({
        "doc_id": j, "doc": {"q": f"question {j}"}, "target": "1",
        "arguments": {"gen_args_0": {"arg_0": "Q:", "arg_1": "A"}}, "resps": [[text]],
        "filtered_resps": [text], "doc_hash": f"h{j}", "prompt_hash": "p", "target_hash": "t",
        "filter": "none", "metrics": ["acc"], "acc": float((j + seed) % 3 == 0)}) + "\n"
        for j in range(examples))


def lm_eval_systems(n: int, *, examples: int = 3, text: str = "x") -> bytes:
    """A zip of lm-eval output folders for ``n`` systems (one task each): limits on what
    harness logs produce (``SIGBOARD_MAX_SYSTEMS``; the report had 20,000 of them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(n):
            model = f"org/model-{i}"
            folder = model.replace("/", "__")
            zf.writestr(f"{folder}/results_{DATE}.json", _results(model, "arc_easy"))
            zf.writestr(f"{folder}/samples_arc_easy_{DATE}.jsonl", _samples(examples, i, text))
    return buffer.getvalue()


def lm_eval_long_texts(chars: int) -> bytes:
    """Two systems whose outputs hold ``chars`` characters each (``SIGBOARD_MAX_TEXT_BYTES``)."""
    return lm_eval_systems(2, examples=2, text="y" * chars)


def malformed_lm_eval() -> bytes:
    """An lm-eval results file that is not JSON: a malformed log (one line, exit 2)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"m/results_{DATE}.json", "{not json")
        zf.writestr(f"m/samples_arc_easy_{DATE}.jsonl", "{also not json\n")
    return buffer.getvalue()


CASES: dict[str, Callable[[], bytes]] = {
    "lm_eval_30_systems.zip": lambda: lm_eval_systems(30),
    "lm_eval_long_texts.zip": lambda: lm_eval_long_texts(4096),
    "malformed_lm_eval.zip": malformed_lm_eval,
}


def write(out: Path) -> list[Path]:
    """Every case into ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in CASES.items():
        (out / name).write_bytes(build())
        written.append(out / name)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/hostile")):
        print(f"{path} {path.stat().st_size:,} bytes")
