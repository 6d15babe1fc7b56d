"""`python -m engine` commands added with issues #13-#19: compare (A/B), power, mechanisms,
rank-intervals, overall, pairwise --across, import of harness logs, export, and the error cases
(missing store, unreachable database, upload limits, memory). In-process through
``engine.cli.main`` (the process boundary is tested in test_cli_stats.py); each JSON output is
parsed strictly (no NaN/Infinity) and its keys are SPEC's, "More commands and JSON fields".
"""

from __future__ import annotations

import argparse
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import engine
from engine._contract import USAGE_METRICS
from engine.cli import _common, _main, _stats_board, main
from engine.cli import store as store_cli
from engine.cli._text import fmt_number, interval

HARNESS = Path(__file__).resolve().parents[2] / "data" / "harness-logs"
FOLDERS = ("lm_eval", "inspect", "helm", "lighteval", "openai_evals", "promptfoo")
KEYS = ["benchmark", "system", "example_id", "metric"]


def _strict(text: str) -> Any:
    def no_constants(name: str) -> None:
        raise AssertionError(f"output contains {name}, which is not valid JSON")
    return json.loads(text, parse_constant=no_constants)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main([*argv, "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return _strict(out.out)


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command that must fail on bad input: exit 2, nothing on stdout, one line on stderr."""
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 2, (out.out, out.err)
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.err
    return lines[0]


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4 systems of clearly different skill, 2 benchmarks × 2 metrics (binary `acc`, numeric
    `score`), 60 examples, with a per-system `family` and a per-example `topic` column."""
    rng = np.random.default_rng(7)
    skill = {"alpha": 0.8, "beta": 0.6, "gamma": 0.45, "delta": 0.2}
    rows = []
    for bench in ("b1", "b2"):
        for s, p in skill.items():
            for i in range(60):
                acc = float(rng.random() < p)
                rows.append((bench, s, f"e{i:02d}", "acc", acc, s[0], f"t{i % 3}"))
                rows.append((bench, s, f"e{i:02d}", "score", p + rng.normal(0, 0.2), s[0],
                             f"t{i % 3}"))
    path = tmp_path_factory.mktemp("cli") / "results.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value", "family",
                                "topic"]).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Baseline and candidate with 3 runs per example on 40 examples (numeric scores)."""
    rng = np.random.default_rng(3)
    mu = rng.normal(0.5, 0.15, 40)
    rows = [("b", s, f"e{i:02d}", "score", mu[i] + shift + rng.normal(0, 0.05), r)
            for s, shift in (("base", 0.0), ("cand", 0.03)) for r in range(3) for i in range(40)]
    path = tmp_path_factory.mktemp("cli-runs") / "runs.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                "run"]).to_csv(path, index=False)
    return path


# ---------------------------------------------------------------- parser


def test_help_lists_every_command() -> None:
    text = _main.build_parser().format_help()
    for command in ("import", "export", "uploads", "delete", "restore", "leaderboard", "pairwise", "compare",
                    "overall", "health", "power", "mechanisms", "rank-intervals"):
        assert command in text


def test_cli_lists_the_engines_harness_formats() -> None:
    # spelt out in the CLI so that --help imports no pandas; must stay equal to the engine's
    assert store_cli.HARNESS_FORMATS == engine.HARNESS_FORMATS


# ---------------------------------------------------------------- harness logs, import, export


def _expected(folder: str) -> pd.DataFrame:
    want = pd.read_csv(HARNESS / folder / "expected_long.csv", dtype=str, keep_default_na=False)
    # the store keeps run 0 for a single run; expected_long.csv leaves it blank then
    return want.assign(value=want["value"].astype(float),
                       run=want["run"].replace("", "0").astype("int64"))


def _exported(text: str) -> pd.DataFrame:
    got = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert list(got.columns[:6]) == list(store_cli.CANONICAL_COLUMNS)
    return got.assign(value=got["value"].astype(float), run=got["run"].astype("int64"))


def _same_rows(got: pd.DataFrame, want: pd.DataFrame) -> None:
    keys = [*KEYS, "run"]
    assert not got.duplicated(keys).any()
    merged = want[[*keys, "value"]].merge(got[[*keys, "value"]], on=keys, how="outer",
                                          suffixes=("_want", "_got"), indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    np.testing.assert_allclose(merged["value_got"], merged["value_want"], rtol=0, atol=1e-12)
    assert len(got) == len(want)


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS)
def test_import_harness_folder_then_export_gives_expected_long(
        folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(HARNESS / folder), "--db", url]) == 0
    err = capsys.readouterr().err
    assert "scores imported from" in err  # the harness report (skipped values) on stderr
    assert main(["export", url]) == 0
    got = _exported(capsys.readouterr().out)
    # the logs' usage (tokens, times, cost) is stored too, beside the scores
    _same_rows(got[~got["metric"].isin(USAGE_METRICS)], _expected(folder))


@pytest.mark.slow
def test_analysis_commands_read_a_harness_folder_or_zip(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = HARNESS / "promptfoo"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, f"promptfoo/{p.relative_to(folder).as_posix()}")
    zipped = tmp_path / "promptfoo.zip"
    zipped.write_bytes(buf.getvalue())
    want = _expected("promptfoo")
    metric = str(want["metric"].iloc[0])
    boards = [_json(capsys, "leaderboard", str(src), "--metric", metric)
              for src in (folder, zipped)]
    assert boards[0] == boards[1]
    assert {s["system"] for s in boards[0]["systems"]} == set(want["system"])
    _same_rows(_exported_of(capsys, str(zipped)), want)


@pytest.mark.slow
def test_a_single_json_log_file_is_data_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = HARNESS / "promptfoo" / "output.json"  # the table reader refuses it; the log reader not
    want = _expected("promptfoo")
    _same_rows(_exported_of(capsys, str(log)), want)
    # a JSONL table over an upload limit is refused as such, never re-read as a log
    table = tmp_path / "big.jsonl"
    want.head(50).to_json(table, orient="records", lines=True)
    monkeypatch.setenv("SIGBOARD_MAX_ROWS", "10")
    assert "SIGBOARD_MAX_ROWS" in _error(capsys, "export", str(table))


def _exported_of(capsys: pytest.CaptureFixture[str], *data: str) -> pd.DataFrame:
    assert main(["export", *data]) == 0
    return _exported(capsys.readouterr().out)


@pytest.mark.slow
def test_import_one_log_file_with_system_and_forced_format(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # an lm-eval samples file without its results_*.json does not name the model
    sample = next((HARNESS / "lm_eval").rglob("samples_*.jsonl"))
    alone = tmp_path / sample.name
    alone.write_bytes(sample.read_bytes())
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["import", str(alone), "--db", url, "--log-format", "lm-eval", "--system", "mine",
                 "--format", "json"]) == 0
    out = capsys.readouterr()
    report = _strict(out.out)["uploads"][0]
    assert report["rows"] > 0 and report["upload_id"] == 1
    assert "lm-eval log:" in out.err
    assert set(_exported_of(capsys, url)["system"]) == {"mine"}


@pytest.mark.slow
def test_export_import_round_trip_through_sqlite(results_csv: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    first = f"sqlite:///{tmp_path / 'a.db'}"
    second = f"sqlite:///{tmp_path / 'b.db'}"
    assert main(["import", str(results_csv), "--db", first]) == 0
    capsys.readouterr()
    assert main(["export", first]) == 0
    text = capsys.readouterr().out
    dumped = tmp_path / "dump.csv"
    dumped.write_text(text)
    assert main(["import", str(dumped), "--db", second]) == 0
    capsys.readouterr()
    again = _exported_of(capsys, second)
    original = _exported(text)
    _same_rows(again, original)
    source = pd.read_csv(results_csv).assign(run=0)
    _same_rows(original, source.astype({"example_id": str}))
    # metadata columns come back after the canonical ones
    assert {"family", "topic"} <= set(original.columns[6:])
    merged = original.merge(source, on=[*KEYS], suffixes=("", "_src"))
    assert (merged["family"] == merged["family_src"]).all()
    assert (merged["topic"] == merged["topic_src"]).all()


@pytest.mark.slow
def test_export_of_a_file_and_one_benchmark(results_csv: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    got = _exported_of(capsys, str(results_csv), "--benchmark", "b2")
    assert set(got["benchmark"]) == {"b2"} and len(got) == 4 * 60 * 2
    assert (got["run"] == 0).all()
    line = _error(capsys, "export", str(results_csv), "--benchmark", "b9")
    assert "'b9' is not in DATA" in line


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("argv", [["leaderboard", "{url}"], ["pairwise", "{url}"],
                                  ["health", "{url}"], ["export", "{url}"],
                                  ["compare", "{url}", "--baseline", "a", "--candidate", "b"],
                                  ["uploads", "{url}"], ["uploads", "--db", "{url}"]])
def test_read_commands_refuse_a_missing_sqlite_store(argv: list[str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing.db"
    url = f"sqlite:///{path}"
    line = _error(capsys, *[a.format(url=url) for a in argv])
    assert f"no such store: {path}" in line
    assert not path.exists()  # a read never creates an empty store


@pytest.mark.slow
def test_import_creates_the_store(results_csv: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "new" / "store.db"
    assert main(["import", str(results_csv), "--db", f"sqlite:///{path}"]) == 0
    capsys.readouterr()
    assert path.exists()
    assert len(_json(capsys, "uploads", f"sqlite:///{path}")["uploads"]) == 1


def test_unusable_database_is_one_line_without_password(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "a-directory.db"  # exists, but SQLite cannot open a directory
    folder.mkdir()
    line = _error(capsys, "uploads", f"sqlite:///{folder}")
    assert "cannot use the results store" in line and "a-directory.db" in line
    assert _common.safe_url("postgresql+psycopg://me:s3cret@db:5432/x") == \
        "postgresql+psycopg://me:***@db:5432/x"
    assert _common.safe_url("sqlite:///var/a.db") == "sqlite:///var/a.db"


@pytest.mark.slow
def test_upload_limits_from_the_environment(results_csv: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SIGBOARD_MAX_ROWS", "100")
    line = _error(capsys, "leaderboard", str(results_csv), "--benchmark", "b1", "--metric", "acc")
    assert "SIGBOARD_MAX_ROWS" in line
    monkeypatch.setenv("SIGBOARD_MAX_ROWS", "lots")
    assert "SIGBOARD_MAX_ROWS" in _error(capsys, "leaderboard", str(results_csv))


@pytest.mark.parametrize("exc", [MemoryError, RecursionError])
def test_memory_and_recursion_errors_exit_2(exc: type[BaseException], results_csv: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def boom(_args: object) -> int:
        raise exc()
    monkeypatch.setattr(_stats_board, "_leaderboard", boom)
    _error(capsys, "leaderboard", str(results_csv))


@pytest.mark.slow
def test_misspelt_system_gets_did_you_mean(results_csv: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, "compare", str(results_csv), "--benchmark", "b1", "--metric", "acc",
                  "--baseline", "alpah", "--candidate", "beta")
    assert "baseline: unknown system 'alpah'; did you mean 'alpha'?" in line
    assert "delta" not in line  # not a list of every name
    line = _error(capsys, "compare", str(results_csv), "--benchmark", "b1", "--metric", "acc",
                  "--baseline", "alpha", "--candidate", "zzzzzz")
    assert "candidate: unknown system 'zzzzzz'; none of the 4 names is close" in line


@pytest.mark.slow
def test_misspelt_benchmark_and_metric_get_did_you_mean(
        results_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue #27: "did you mean" for benchmarks and metrics too, in every command
    line = _error(capsys, "leaderboard", str(results_csv), "--benchmark", "B1", "--metric", "acc")
    assert "benchmark 'B1' not found" in line and "did you mean 'b1'" in line
    line = _error(capsys, "leaderboard", str(results_csv), "--benchmark", "b1", "--metric", "ac")
    assert "did you mean 'acc'?" in line
    line = _error(capsys, "export", str(results_csv), "--benchmark", "B2")
    assert "did you mean 'b2'?" in line


@pytest.mark.slow
def test_long_name_lists_say_how_many_more(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # issue #27: a list cut at 10 names says so
    rows = [(f"bench{i:02d}", s, f"e{j}", "acc", float((i + j) % 2))
            for i in range(13) for s in ("x", "y") for j in range(4)]
    path = tmp_path / "many.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    line = _error(capsys, "leaderboard", str(path))
    assert "bench09 … and 3 more" in line and "bench10" not in line


@pytest.mark.slow
def test_restore_undoes_delete(results_csv: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    assert main(["import", str(results_csv), "--db", url]) == 0
    capsys.readouterr()
    before = _exported_of(capsys, url)
    assert _json(capsys, "delete", "1", url)["rows_removed"] == len(before)
    assert _exported_of(capsys, url).empty
    restored = _json(capsys, "restore", "1", url)
    assert restored["rows_restored"] == len(before)
    _same_rows(_exported_of(capsys, url), before)
    assert "deleted" in _error(capsys, "restore", "1", url), "a live upload cannot be restored"


# ---------------------------------------------------------------- compare with runs, power


@pytest.mark.slow
def test_compare_with_runs_json_and_text(runs_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "compare", str(runs_csv), "--baseline", "base", "--candidate", "cand")
    assert list(d)[:13] == ["baseline", "candidate", "benchmark", "metric", "n", "runs", "difference",
                       "ci_low", "ci_high", "pvalue", "model", "verdict", "exit_code"]
    assert (d["n"], d["runs"], d["exit_code"]) == (40, 3, 0)
    assert d["ci_low"] < d["difference"] < d["ci_high"]
    # reversed roles: the candidate is now significantly worse → exit 1
    code = main(["compare", str(runs_csv), "--baseline", "cand", "--candidate", "base"])
    text = capsys.readouterr().out
    assert code == 1
    first = text.splitlines()[0]
    assert first.startswith("base trails cand by ") and "candidate is significantly worse" in first
    assert "3 run(s) per example" in text and f"model: {d['model']} (" in text


@pytest.mark.slow
def test_power_json_shape(runs_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "power", str(runs_csv), "--benchmark", "b", "--difference", "0.05",
              "--examples", "30", "--runs", "2", "--n-sim", "40", "--seed", "1")
    assert list(d)[:4] == ["mdd", "examples_needed", "runs_needed", "power"]
    assert d["mdd"] > 0 and isinstance(d["examples_needed"], int)
    assert d["power"] and all(v is None or 0 <= v <= 1 for v in d["power"].values())
    again = _json(capsys, "power", str(runs_csv), "--benchmark", "b", "--difference", "0.05",
                  "--examples", "30", "--runs", "2", "--n-sim", "40", "--seed", "1")
    assert again == d  # seeded
    assert main(["power", str(runs_csv), "--n-sim", "40"]) == 0
    out = capsys.readouterr().out
    assert "minimum detectable difference" in out and "paired" in out
    assert "n_sim" in _error(capsys, "power", str(runs_csv), "--n-sim", "0")


# ---------------------------------------------------------------- mechanisms, rank intervals


@pytest.mark.slow
def test_mechanisms_json_and_side_by_side(results_csv: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    args = ("mechanisms", str(results_csv), "--benchmark", "b1", "--metric", "acc",
            "--n-permutations", "5")
    d = _json(capsys, *args)
    assert {"rankings", "kendall_tau", "winner_differs", "top3_differs"} <= set(d)
    for m in ("mean", "median", "bradley_terry", "elo", "trueskill"):
        assert sorted(d["rankings"][m]) == ["alpha", "beta", "delta", "gamma"]
    assert d["rankings"]["mean"][0] == "alpha"
    assert "mean|median" in d["kendall_tau"]
    assert isinstance(d["winner_differs"], bool) and isinstance(d["top3_differs"], bool)
    assert main(list(args)) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.split()[:1] == ["rank"]).split()
    assert header == ["rank", "mean", "median", "bradley_terry", "elo", "trueskill"]


@pytest.mark.slow
def test_rank_intervals_json(results_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "rank-intervals", str(results_csv), "--benchmark", "b1", "--metric", "score")
    systems = d["systems"]
    assert [s["system"] for s in systems][0] == "alpha"
    for s in systems:
        assert 1 <= s["tukey_rank_low"] <= s["rank"] <= s["tukey_rank_high"] <= 4
    assert main(["rank-intervals", str(results_csv), "--benchmark", "b1", "--metric",
                 "score"]) == 0
    assert "tukey_rank_low" in capsys.readouterr().out


# ---------------------------------------------------------------- overall, pairwise --across


@pytest.mark.slow
def test_overall_json_shape(results_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "overall", str(results_csv))
    assert list(d)[:3] == ["benchmarks", "systems", "cliques"] and d["benchmarks"] == ["b1", "b2"]
    assert [s["system"] for s in d["systems"]][0] == "alpha"
    for s in d["systems"]:
        assert {"system", "score", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "group",
                "cells"} <= set(s)
        assert set(s["cells"]) == {"b1", "b2"}
        assert set(s["cells"]["b1"]) == {"mean", "ci_low", "ci_high", "group"}
    one = _json(capsys, "overall", str(results_csv), "--benchmarks", "b2", "--metrics",
                "acc,score", "--weights", "3,1")
    assert one["benchmarks"] == ["b2"]
    assert "weights" in _error(capsys, "overall", str(results_csv), "--weights", "1,x")
    assert main(["overall", str(results_csv)]) == 0
    assert "score" in capsys.readouterr().out


@pytest.mark.parametrize(("across", "extra"), [("metrics", ["--benchmark", "b1"]),
                                               ("benchmarks", ["--metric", "acc"])])
@pytest.mark.slow
def test_pairwise_across_json_shape(across: str, extra: list[str], results_csv: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "pairwise", str(results_csv), "--across", across, *extra)
    assert d["across"] == across and len(d["pairs"]) == 6
    for p in d["pairs"]:
        assert list(p) == ["system_a", "system_b", "p_hmp", "p_hmp_adj", "effect",
                           "effect_ci_low", "effect_ci_high", "i2", "significant"]
        assert p["p_hmp_adj"] >= p["p_hmp"]
    assert main(["pairwise", str(results_csv), "--across", across, *extra]) == 0
    assert "harmonic mean p" in capsys.readouterr().out


@pytest.mark.slow
def test_pairwise_across_metrics_needs_one_benchmark(results_csv: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, "pairwise", str(results_csv), "--across", "metrics")
    assert "--benchmark" in line and "b1, b2" in line


# ---------------------------------------------------------------- text output


@pytest.mark.slow
def test_pairwise_table_sorted_by_adjusted_p_with_n_and_interval(
        results_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["pairwise", str(results_csv), "--benchmark", "b1", "--metric", "score"]
    pairs = _json(capsys, *base)["pairs"]
    assert main(base) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:6] == ["system_a", "system_b", "n", "paired", "difference", "ci"]
    rows = [line.split() for line in lines[1:7]]
    want = sorted(pairs, key=lambda p: (p["pvalue_adj"], p["pvalue"]))
    assert [(r[0], r[1]) for r in rows] == [(p["system_a"], p["system_b"]) for p in want]
    assert all(r[2] == "60" and r[5].startswith("[") for r in rows)
    assert main([*base, "--sort", "effect"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:7]]
    by_effect = sorted(pairs, key=lambda p: -abs(p["effect_size"]))
    assert [(r[0], r[1]) for r in rows] == [(p["system_a"], p["system_b"]) for p in by_effect]
    # JSON keeps the engine's pair order unless --sort asks otherwise
    assert [(p["system_a"], p["system_b"]) for p in _json(capsys, *base, "--sort", "pvalue")
            ["pairs"]] == [(p["system_a"], p["system_b"]) for p in want]


def test_numbers_are_rounded_for_reading_only() -> None:
    assert fmt_number(0.123456789) == "0.1235"
    assert fmt_number(3.0) == "3" and fmt_number(7) == "7" and fmt_number(True) == "yes"
    assert fmt_number(float("nan")) == "" and fmt_number(None) == ""
    assert fmt_number(1.23e-21, 2) == "1.2e-21"
    assert interval(0.11111, 0.22222) == "[0.1111, 0.2222]" and interval(float("nan"), 1) == ""


def test_json_output_is_strict() -> None:
    from engine.cli._common import jsonable

    got = jsonable({"a": np.array([1.0, np.nan]), "b": np.float64("inf"), "c": np.int64(3),
                    "d": pd.NA, "e": pd.Timestamp("2020-01-01"), 1: (True, None)})
    assert got == {"a": [1.0, None], "b": None, "c": 3, "d": None, "e": "2020-01-01 00:00:00",
                   "1": [True, None]}
    assert json.loads(json.dumps(got, allow_nan=False)) == got


@pytest.mark.slow
def test_compare_cluster_robust_by_a_column(results_csv: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = ("compare", str(results_csv), "--benchmark", "b1", "--metric", "score",
            "--baseline", "gamma", "--candidate", "beta")
    plain = _json(capsys, *args)
    clustered = _json(capsys, *args, "--cluster", "topic")
    assert plain["model"] == "paired-t" and clustered["model"].startswith("cluster")
    assert clustered["difference"] == pytest.approx(plain["difference"])  # same estimate
    assert "cluster: column 'nope'" in _error(capsys, *args, "--cluster", "nope")


@pytest.mark.slow
def test_import_format_flags(results_csv: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'f.db'}"
    line = _error(capsys, "import", str(results_csv), "--db", url, "--format", "table",
                  "--format", "json")
    assert "--format: at most one output format" in line
    # a table forced as a harness log is refused with the log reader's message
    line = _error(capsys, "import", str(results_csv), "--db", url, "--log-format", "promptfoo")
    assert "promptfoo" in line
    assert main(["import", str(results_csv), "--db", url, "--log-format", "long",
                 "--format", "json"]) == 0
    assert _strict(capsys.readouterr().out)["uploads"][0]["rows"] == 960


# ---------------------------------------------------------------- compare --margin, --report


@pytest.mark.slow
def test_compare_margin_is_a_non_inferiority_gate(runs_csv: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(runs_csv), "--baseline", "cand", "--candidate", "base"]
    assert main(argv) == 1  # 3 points worse: the two-sided gate fails
    capsys.readouterr()
    d = _json(capsys, *argv, "--margin", "0.1")  # worse, but by less than 0.1: passes
    assert d["exit_code"] == 0 and d["margin"] == 0.1 and d["ni_lower"] > -0.1
    assert d["verdict"].startswith("candidate is non-inferior")
    assert main([*argv, "--margin", "0.001"]) == 1
    text = capsys.readouterr().out
    assert "non-inferiority not shown" in text
    assert "non-inferiority: one-sided test of H0: candidate − baseline ≤ −0.001" in text
    assert "margin: must be a finite number > 0" in _error(capsys, *argv, "--margin", "-1")


def test_compare_help_documents_the_exit_codes() -> None:
    parser = _main.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices["compare"].format_help()
    assert "exit codes:" in text and "--margin" in text and "--report" in text
    for code in ("0  the candidate passes", "1  the candidate fails", "2  bad input"):
        assert code in text


@pytest.mark.parametrize("suffix", [".html", ".md"])
@pytest.mark.slow
def test_compare_and_leaderboard_write_reports(suffix: str, runs_csv: Path, results_csv: Path,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"ab{suffix}"
    d = _json(capsys, "compare", str(runs_csv), "--baseline", "base", "--candidate", "cand",
              "--report", str(out))  # stdout stays JSON; the report goes to the file
    text = out.read_text(encoding="utf-8")
    assert d["verdict"] in text and f"{d['difference']:+.4f}" in text
    assert ("<svg" in text) == (suffix == ".html") and "<script" not in text
    board = tmp_path / f"lb{suffix}"
    assert main(["leaderboard", str(results_csv), "--benchmark", "b1", "--metric", "acc",
                 "--report", str(board)]) == 0
    assert "report written to" in capsys.readouterr().err
    text = board.read_text(encoding="utf-8")
    assert "Leaderboard: b1 / acc" in text and "alpha" in text and "delta" in text


def test_report_name_must_say_its_format(runs_csv: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, "compare", str(runs_csv), "--baseline", "base", "--candidate", "cand",
                  "--report", str(tmp_path / "out.pdf"))
    assert "report: the file name must end in .html or .md" in line
    assert not (tmp_path / "out.pdf").exists()
