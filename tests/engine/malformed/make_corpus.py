"""Regenerate the malformed-input corpus: ``python tests/engine/malformed/make_corpus.py``.

Each file breaks the data contract in one way; ``cases.json`` holds what the rejection
message must say (a substring of the rule, and the column/rows it must name). The
files are committed; this script documents how each was made.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD = "benchmark,system,example_id,metric,value\n"
GOOD = "b,sysA,e1,acc,1\nb,sysA,e2,acc,0\nb,sysB,e1,acc,1\nb,sysB,e2,acc,1\n"

CASES: dict[str, tuple[bytes, dict[str, object]]] = {}


def case(name: str, data: bytes | str, expect: str, *, column: str | None = None,
         rows: list[int] | None = None, metrics: dict[str, dict[str, object]] | None = None,
         ) -> None:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    spec: dict[str, object] = {"expect": expect}
    if column is not None:
        spec["column"] = column
    if rows is not None:
        spec["rows"] = rows
    if metrics is not None:
        spec["metrics"] = metrics
    CASES[name] = (raw, spec)


case("missing_value_column.csv", "benchmark,system,example_id,metric\nb,s,e,acc\nb,t,e,acc\n",
     "required column(s) value missing", column="value")
case("no_metric_columns.csv", "benchmark,system,example_id,note\nb,s,e,fine\nb,t,e,ok\n",
     "no value column", column="value")
case("missing_system_column.csv", "benchmark,example_id,metric,value\nb,e1,acc,1\n",
     "required column(s) system missing", column="system")
case("duplicate_keys.csv", HEAD + GOOD + "b,sysA,e1,acc,0\n", "duplicate key", rows=[1, 5])
case("non_numeric_value.csv", HEAD + GOOD + "b,sysC,e1,acc,high\n", "value is not a number",
     column="value", rows=[5])
case("nan_value.csv", HEAD + GOOD + "b,sysC,e1,acc,NaN\n", "value is missing", column="value",
     rows=[5])
case("inf_value.csv", HEAD + GOOD + "b,sysC,e1,acc,inf\n", "value is infinite", column="value",
     rows=[5])
case("empty.csv", b"", "the table is empty")
case("whitespace_only.csv", "  \n\n \n", "the table is empty")
case("header_only.csv", HEAD, "the table has a header but no rows")
case("latin1_encoding.csv", (HEAD + "b,Système,e1,acc,1\n").encode("latin-1"),
     "not valid UTF-8", rows=[1])
case("utf16_encoding.csv", (HEAD + GOOD).encode("utf-16"), "it looks like UTF-16")
case("truncated.csv.gz", gzip.compress((HEAD + GOOD * 200).encode(), mtime=0)[:-40],
     "gzip data is truncated or corrupt")
case("mixed_types_wide.csv", "benchmark,system,example_id,acc\nb,s,e1,1\nb,s,e2,0\n"
     "b,s,e3,n/a?\nb,t,e1,1\n", "value is not a number", column="acc", rows=[3])
case("mixed_types_run.csv", "benchmark,system,example_id,metric,value,run\n"
     "b,s,e1,acc,1,0\nb,s,e1,acc,0,second\n", "run must be a non-negative whole number",
     column="run", rows=[2])
case("negative_run.csv", "benchmark,system,example_id,metric,value,run\nb,s,e1,acc,1,-1\n",
     "run must be a non-negative whole number", column="run", rows=[1])
case("binary_declared_fractional.csv", HEAD + GOOD + "b,sysC,e1,acc,0.5\n",
     "declared binary but has the value 0.5", rows=[5],
     metrics={"acc": {"binary": True}})
case("huge_field.csv", HEAD + f"b,{'x' * 5000},e1,acc,1\n", "5000 bytes long", column="system",
     rows=[1])
case("empty_key.csv", HEAD + GOOD + "b,,e3,acc,1\n", "empty value in a key column",
     column="system", rows=[5])
case("ragged_row.csv", HEAD + GOOD + "b,sysC,e1,acc,1,extra\n", "the row cannot be parsed",
     rows=[5])
case("unclosed_quote.csv", HEAD + 'b,"sysC,e1,acc,1\n' + GOOD, "the row cannot be parsed")
case("duplicate_column_names.csv", "benchmark,system,example_id,metric,value,value\n"
     "b,s,e1,acc,1,0\n", "duplicate column name(s): value", column="value")
case("blank_header.csv", "\n" + HEAD + GOOD, "the first line (the header) is empty")
case("truncated_line.jsonl",
     '{"benchmark_id":"b","model":"s","example_id":"e1","pass1":1}\n'
     '{"benchmark_id":"b","model":"s","example_id":"e2","pass1":0}\n'
     '{"benchmark_id":"b","model":"s","exam', "line 3 is not valid JSON", rows=[3])
case("array_line.jsonl", '{"benchmark_id":"b","model":"s","example_id":"e1","pass1":1}\n'
     "[1, 2, 3]\n", "line 2 is a JSON list, not an object", rows=[2])
case("scalar.json", "42\n", "the JSON is not a list of objects")
case("corrupt.parquet", b"PAR1" + b"\x00garbage" * 20 + b"PAR1", "not a readable Parquet file")
case("huge_run.csv", "benchmark,system,example_id,metric,value,run\nb,s,e1,acc,1,0\n"
     "b,s,e1,acc,0,99999999999\n", "run 99999999999 is larger than", column="run", rows=[2])
case("nul_in_name.csv", HEAD + "b,sys\x00A,e1,acc,1\n", "contains a NUL character",
     column="system", rows=[1])
case("spreadsheet.xlsx", b"PK\x03\x04" + b"\x00" * 60, "ZIP archive")
case("wide_missing_cell.csv", "benchmark,system,example_id,acc,f1\nb,s,e1,1,0.5\nb,s,e2,,0.7\n",
     "value is missing", column="acc", rows=[2])
case("null_value.jsonl",
     '{"benchmark":"b","system":"s","example_id":"e1","metric":"acc","value":1}\n'
     '{"benchmark":"b","system":"s","example_id":"e2","metric":"acc","value":null}\n',
     "value is missing", column="value", rows=[2])


def main() -> None:
    manifest = {}
    for name, (raw, spec) in CASES.items():
        (HERE / name).write_bytes(raw)
        manifest[name] = spec
    (HERE / "cases.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} cases written to {HERE}")


if __name__ == "__main__":
    main()
