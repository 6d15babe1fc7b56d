"""Hostile and huge uploads (issue #17) through the engine API, in-process.

The corpus is tests/engine/hostile/ (small files) plus the big cases its
make_corpus.py builds at test time. Every hostile case is rejected with its own
message naming the file, the rule (and the limit and its SIGBOARD_* variable) and the
fix; the files at a limit load. The subprocess paths (the CLI, parse_isolated over the
whole corpus, the child's memory cap) are in tests/engine/hostile/test_hostile_subprocess.py.
"""

from __future__ import annotations

import importlib.util
import json
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._contract import DataContractError, Problem
from engine.io._formats import frame_from_bytes
from engine.io._limits import ENV_NAMES, Limits, count_lines, nesting_depth
from engine.io._readers import read_results, read_results_bytes
from engine.io._worker import parse_isolated

CORPUS = Path(__file__).resolve().parents[1] / "hostile"
CASES: dict[str, dict[str, object]] = json.loads((CORPUS / "cases.json").read_text())
#: Bombs that inflate 512 MiB before the default limit stops them (seconds each on a
#: shared machine): here with a small limit, at the default in the subprocess tests.
STREAMING = {"bomb_single.csv.gz", "bomb_multi.csv.gz"}


def _load_corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostile_corpus", CORPUS / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _load_corpus()


def _reject(name: str, read: Callable[[], object]) -> str:
    with pytest.raises(DataContractError) as info:
        read()
    message = str(info.value)
    case = CASES[name]
    assert str(case["expect"]) in message, message
    assert message.startswith(name) and "Fix:" in message, message
    if "column" in case:
        assert info.value.problems[0].column == case["column"], message
    return message


def test_corpus_files_match_the_generator() -> None:
    on_disk = {p.name for p in CORPUS.iterdir() if not p.name.startswith("test_")} - {
        "make_corpus.py", "cases.json", "__pycache__"}
    assert on_disk == set(corpus.SMALL)
    assert json.loads(json.dumps(corpus.CASES)) == CASES
    assert set(CASES) == set(corpus.SMALL) | set(corpus.GENERATED)
    assert all(p.stat().st_size < 64_000 for p in CORPUS.iterdir() if p.is_file())


def test_gzip_repeat_builds_valid_gzip() -> None:
    # the bombs' builder: zlib (the reference inflater) checks the CRC and size trailer
    assert zlib.decompress(corpus.gzip_repeat(b"ab\n" * 999, 7, head=b"h"), 31) == (
        b"h" + b"ab\n" * 999 * 7)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in STREAMING))
def test_case_through_read_results(name: str) -> None:
    if CASES[name].get("generated"):
        def read() -> pd.DataFrame:
            return read_results_bytes(corpus.build(name), label=name)
    else:
        def read() -> pd.DataFrame:
            return read_results(CORPUS / name)
    if "expect" in CASES[name]:
        _reject(name, read)
    else:
        assert len(read()) > 0


def test_rejections_have_their_own_messages() -> None:
    messages = []
    for name in sorted(n for n in CASES if "expect" in CASES[n] and not CASES[n].get("generated")):
        with pytest.raises(DataContractError) as info:
            read_results(CORPUS / name)
        messages.append(str(info.value).split(": ", 1)[1])
    assert len(set(messages)) == len(messages)


@pytest.mark.parametrize(("name", "where"), [("bomb_single.csv.gz", "once decompressed ("),
                                             ("bomb_multi.csv.gz", "in gzip member 2")])
def test_bombs_stop_at_the_limit(name: str, where: str) -> None:
    # the 64 MiB members of the multi-member bomb pass a 16 MiB limit already in member 2
    with pytest.raises(DataContractError) as info:
        frame_from_bytes(corpus.build(name), name, limits=Limits(max_bytes=16 << 20))
    message = str(info.value)
    assert message.startswith(f"{name}: the file grows past the size limit"), message
    assert where in message and "(the limit per upload is 16 MiB)" in message, message


def test_values_that_look_like_dates_or_nested_metadata_are_kept() -> None:
    keys = read_results(CORPUS / "iso_date_keys.jsonl")
    assert sorted(keys["example_id"].unique()) == ["2024-01-01", "2024-01-02"]
    meta = read_results(CORPUS / "struct_metadata.parquet")
    assert json.loads(meta["config"].iloc[0]) == {"k": [1, 2], "t": 0.2}
    assert len(read_results(CORPUS / "two_members.csv.gz")) == 4


# --------------------------------------------------------------------------- each limit


def _csv(lines: list[str], header: str = "benchmark,system,example_id,metric,value") -> bytes:
    return (header + "\n" + "".join(f"{line}\n" for line in lines)).encode()


def _rows(n: int) -> bytes:
    return _csv([f"b,{'AB'[i % 2]},e{i},m,1" for i in range(n)])


def _rows_jsonl(n: int) -> bytes:
    return "".join(json.dumps({"system": "AB"[i % 2], "example_id": f"e{i}", "value": 1}) + "\n"
                   for i in range(n)).encode()


def _rows_gz(n: int) -> bytes:
    return zlib.compress(_rows(n), wbits=31)


def _systems(n: int) -> bytes:
    return _csv([f"b,s{i},e1,m,1" for i in range(n)])


def _metrics_long(n: int) -> bytes:
    return _csv([f"b,{s},e1,m{i},1" for i in range(n) for s in "AB"])


def _metrics_wide(n: int) -> bytes:
    header = "benchmark,system,example_id,size_note," + ",".join(f"m{i}" for i in range(n))
    return _csv([f"b,{s},e1,big," + ",".join("1" for _ in range(n)) for s in "AB"], header)


def _benchmarks(n: int) -> bytes:
    return _csv([f"b{i},{s},e1,m,1" for i in range(n) for s in "AB"])


def _depth(n: int) -> bytes:
    # the record object is level 1, so its field nests n - 1 more
    return (json.dumps({"system": "A", "value": 1, "x": json.loads("[" * (n - 1) + "]" * (n - 1))})
            + "\n").encode()


def _sized(n: int) -> bytes:
    """A valid file of exactly n bytes: its last note is padded."""
    head = _csv(["b,A,e1,m,1,"], "benchmark,system,example_id,metric,value,note") + b"b,B,e1,m,0,"
    return head + b"x" * (n - len(head) - 1) + b"\n"


def _sized_gz(n: int) -> bytes:
    return zlib.compress(_sized(n), wbits=31)


LIMIT_CASES = [  # (limit field, its value, builder of a file with n of it, file name)
    ("max_rows", 50, _rows, "r.csv"),
    ("max_rows", 50, _rows_jsonl, "r.jsonl"),
    ("max_rows", 50, _rows_gz, "r.csv.gz"),
    ("max_systems", 20, _systems, "s.csv"),
    ("max_metrics", 20, _metrics_long, "m.csv"),
    ("max_metrics", 20, _metrics_wide, "w.csv"),
    ("max_benchmarks", 20, _benchmarks, "b.csv"),
    ("max_depth", 10, _depth, "d.jsonl"),
    ("max_bytes", 4096, _sized, "z.csv"),
    ("max_bytes", 3 << 20, _sized_gz, "z.csv.gz"),  # several inflated chunks
]


@pytest.mark.parametrize(("field", "limit", "build", "name"), LIMIT_CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in LIMIT_CASES])
def test_at_the_limit_loads_one_past_is_rejected(field: str, limit: int,
                                                 build: Callable[[int], bytes],
                                                 name: str) -> None:
    limits = Limits(**{field: limit})  # type: ignore[arg-type]
    assert len(frame_from_bytes(build(limit), name, limits=limits)) > 0
    with pytest.raises(DataContractError) as info:
        frame_from_bytes(build(limit + 1), name, limits=limits)
    message = str(info.value)
    assert message.startswith(name) and ENV_NAMES[field] in message, message


# --------------------------------------------------------------------------- the depth scan


def _reference_depth(data: bytes) -> int:
    """Byte-by-byte state machine: the specification of nesting_depth."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        char = chr(byte)
        if char == "\n":
            in_string = False
        elif char == '"' and not escaped:
            in_string = not in_string
        elif not in_string and char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif not in_string and char in "]}":
            depth = max(depth - 1, 0)
        escaped = char == "\\" and not escaped  # a backslash escapes only a quote
    return deepest


@settings(max_examples=200)
@given(st.binary(max_size=200).map(lambda b: bytes(b'[]{}"\\\na '[x % 9] for x in b)),
       st.integers(1, 40))
def test_depth_scan_matches_a_byte_loop(data: bytes, chunk: int) -> None:
    assert nesting_depth(data, chunk=chunk) == _reference_depth(data)


_json = st.recursive(st.none() | st.integers() | st.text('[]{}"\\ab\n'),
                     lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.text('[]"\\k', max_size=3), kids, max_size=3),
                     max_leaves=20)


def _structural_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(_structural_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_structural_depth, value.values()), default=0)
    return 0


@settings(max_examples=100)
@given(_json, st.integers(1, 64))
def test_depth_scan_equals_the_depth_of_the_parsed_json(value: object, chunk: int) -> None:
    text = json.dumps(value, ensure_ascii=False).encode()
    assert nesting_depth(text, chunk=chunk) == _structural_depth(json.loads(text))


def test_count_lines() -> None:
    assert [count_lines(b"a\n\nb"), count_lines(bytearray(b"a\n\nb\n")), count_lines(b"")] == [
        3, 3, 0]


# --------------------------------------------------------------------------- Limits


def test_limits_from_the_environment() -> None:
    env = {"SIGBOARD_MAX_ROWS": "1_000", "SIGBOARD_MAX_BYTES": "64M", "SIGBOARD_MAX_DEPTH": " ",
           "SIGBOARD_PARSE_TIMEOUT": "2.5", "PATH": "/bin"}
    limits = Limits.from_mapping(env)
    assert (limits.max_rows, limits.max_bytes, limits.max_depth, limits.parse_timeout) == (
        1000, 64 << 20, 64, 2.5)
    # the environment entries that rebuild these limits: from_mapping inverts them
    as_env = {var: str(getattr(limits, field)) for field, var in ENV_NAMES.items()}
    assert Limits.from_mapping(as_env) == limits
    assert Limits.from_mapping({"SIGBOARD_MAX_PARSE_MEMORY": "2GiB"}).max_parse_memory == 2 << 30


@pytest.mark.parametrize(("env", "message"), [
    ({"SIGBOARD_MAX_ROWS": "lots"}, "SIGBOARD_MAX_ROWS: must be a whole number"),
    ({"SIGBOARD_MAX_SYSTEMS": "0"}, "SIGBOARD_MAX_SYSTEMS: must be a positive whole number; got 0"),
    ({"SIGBOARD_PARSE_TIMEOUT": "-1"}, "SIGBOARD_PARSE_TIMEOUT: must be a positive number"),
])
def test_bad_environment_names_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Limits.from_mapping(env)


def test_limits_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="max_depth: must be a positive whole number; got True"):
        Limits(max_depth=True)
    with pytest.raises(ValueError, match="parse_timeout: must be a positive number"):
        Limits(parse_timeout=float("inf"))


# --------------------------------------------------------------------------- parser failures


@pytest.mark.parametrize(("error", "expect"), [
    (MemoryError, "the file is too large to parse in memory"),
    (RecursionError, "the data is nested too deeply to parse"),
])
def test_parser_exhaustion_is_a_contract_error(monkeypatch: pytest.MonkeyPatch,
                                               error: type[Exception], expect: str) -> None:
    def exhausted(*args: object, **kwargs: object) -> pd.DataFrame:
        raise error()

    monkeypatch.setattr("engine.io._formats.parse", exhausted)
    with pytest.raises(DataContractError, match=expect) as info:
        frame_from_bytes(_rows(4), "r.csv")
    assert str(info.value).startswith("r.csv")


@pytest.mark.slow
def test_parse_isolated_survives_a_parser_crash() -> None:
    # with the depth check lifted, pyarrow's JSON reader segfaults on 20,000 levels
    limits = Limits(max_depth=1_000_000)
    with pytest.raises(DataContractError, match="the parser crashed on this file"):
        parse_isolated(corpus.build("deep_20000.jsonl"), "deep.jsonl", limits=limits)


def test_parse_isolated_time_limit() -> None:
    with pytest.raises(DataContractError, match="parsing took longer than 0.01 s"):
        parse_isolated(_rows(4), "r.csv", limits=Limits(parse_timeout=0.01))


def test_harness_detection_refuses_deep_json_before_parsing() -> None:
    """A .jsonl upload goes through harness detection first; it must not reach a JSON parser
    (Python's json raised RecursionError on 20,000 levels, pyarrow's reader segfaulted)."""
    from engine import read_harness
    from engine.harness import detect_format

    deep = b'{"doc_id": 0, "x": ' + b"[" * 20_000 + b"]" * 20_000 + b"}\n"
    for read in (detect_format, read_harness):
        with pytest.raises(DataContractError, match="nests brackets more than 64 levels"):
            read(("samples_deep.jsonl", deep))


@pytest.mark.parametrize("last_line", [
    "MemoryError",
    "OSError: [Errno 12] Cannot allocate memory: '/srv/sigboard/engine/harness'",
])
def test_a_child_out_of_memory_while_starting_names_the_limit(last_line: str) -> None:
    # seen in CI: under a 40 MiB cap the child's import system failed with ENOMEM while
    # listing a package folder, which is the memory limit too, not a crash to report raw
    import subprocess

    from engine.io._worker import _answer

    done = subprocess.CompletedProcess(["python"], 1, b"", f"Traceback\n  ...\n{last_line}\n"
                                       .encode())
    with pytest.raises(DataContractError, match="within the memory limit of 40 MiB"):
        _answer(done, "logs.zip", Limits(max_parse_memory=40 << 20))


def _size_problem() -> bytes:
    import dataclasses

    problem = Problem("lighteval.zip:details_t.parquet", rule="the Parquet file is too large "
                      "to decode", fix="split the file")
    return json.dumps([dataclasses.asdict(problem)]).encode()


@pytest.mark.parametrize(("stdout", "message"), [
    # refused, then aborted on its way out (Arrow's thread pools, apache/arrow#34314)
    (_size_problem(), "too large to decode"),
    (_size_problem()[:40], r"crashed on this file \(SIGABRT\)"),  # cut short: a crash
    (b"", r"crashed on this file \(SIGABRT\)"),
    (b"[]", r"crashed on this file \(SIGABRT\)"),
])
def test_a_child_killed_after_its_answer_gives_that_answer(stdout: bytes, message: str) -> None:
    import subprocess

    from engine.io._worker import _answer

    done = subprocess.CompletedProcess(["python"], -6, stdout, b"terminate called without an "
                                       b"active exception\n")
    with pytest.raises(DataContractError, match=message):
        _answer(done, "lighteval.zip", Limits())


@pytest.mark.slow
def test_the_child_leaves_without_native_destructors() -> None:
    """The worker's entry point ends with os._exit after flushing (no interpreter teardown,
    where Arrow's thread pools can abort): its answers and exit codes are as before, a
    large Arrow stream arrives whole."""
    import dataclasses
    import subprocess
    import sys

    import pyarrow as pa

    def child(data: bytes, limits: Limits) -> subprocess.CompletedProcess[bytes]:
        header = json.dumps({"name": "r.csv", "fmt": None, "harness": False,
                             "limits": dataclasses.asdict(limits)})
        return subprocess.run([sys.executable, "-m", "engine.io._worker", header], input=data,
                              capture_output=True, check=False, timeout=120)

    rows = "".join(f"b,s{i % 7},e{i},m,{i % 2}\n" for i in range(60_000))
    data = ("benchmark,system,example_id,metric,value\n" + rows).encode()
    done = child(data, Limits())
    assert done.returncode == 0
    assert pa.ipc.open_stream(pa.py_buffer(done.stdout)).read_all().num_rows == 60_000
    refused = child(data, Limits(max_rows=1000))
    assert refused.returncode == 3 and json.loads(refused.stdout)[0]["source"] == "r.csv"
