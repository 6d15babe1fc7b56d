"""The URL view (app/url.py) without Streamlit, the app's settings, and the cache keys of options."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pandas as pd
import pytest

from app.config import DEFAULT_DB_PATH, DEMO_DATA, Settings
from app.url import PAIRED_FLAGS, View, parse_view
from engine import TestOptions

ROOT = Path(__file__).resolve().parents[2]
CATALOG = pd.DataFrame({"benchmark": ["humaneval"], "metric": ["pass1"]})


@pytest.mark.slow
def test_url_module_does_not_import_streamlit() -> None:
    code = "import sys, app.url; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_view_defaults_are_the_engines() -> None:
    assert View().test_options() == TestOptions()


def test_view_builds_validated_test_options() -> None:
    raw = {"alpha": ["0.01"], "correction": ["bonferroni"], "paired": ["unpaired"],
           "seed": ["7"], "test": ["wilcoxon"], "compare": ["first"],
           "alternative": ["greater"], "criterion": ["small"]}
    view, problems = parse_view(raw, CATALOG)
    assert problems == []
    assert view.test_options() == TestOptions(
        alpha=0.01, correction="bonferroni", paired=False, seed=7, test="wilcoxon",
        compare="first", alternative="greater", criterion="small")
    assert {PAIRED_FLAGS[p] for p in PAIRED_FLAGS} == {None, True, False}


def test_a_combination_the_engine_rejects_falls_back_with_a_note() -> None:
    view, problems = parse_view({"test": ["permutation"], "criterion": ["medium"]}, CATALOG)
    assert (view.test, view.criterion) == ("permutation", "pvalue")
    assert len(problems) == 1 and "`criterion`" in problems[0] and "permutation" in problems[0]
    with pytest.raises(ValueError, match="criterion"):
        View(test="permutation", criterion="large").test_options()


@pytest.mark.parametrize(("labels", "keys"), [
    (["rank range", "CI", "win rate", "BT strength", "Elo"],
     ("rank_range", "ci", "win_rate", "bt_strength", "elo")),
    (["rank", "mean", "family"], ("rank", "mean", "family")),
])
def test_column_labels_of_older_links_become_keys(labels: list[str], keys: tuple[str, ...]
                                                  ) -> None:
    view, problems = parse_view({"cols": labels}, CATALOG)
    assert problems == [] and view.cols == keys
    assert view.params()["cols"] == list(keys), "links made now carry keys"


def _cache_key(options: TestOptions) -> str:
    from streamlit.runtime.caching.cache_type import CacheType
    from streamlit.runtime.caching.hashing import update_hash

    hasher = hashlib.new("md5", usedforsecurity=False)
    update_hash(options, hasher, CacheType.RESOURCE)
    return hasher.hexdigest()


def test_different_options_never_share_a_cache_entry() -> None:
    # st.cache_resource hashes a dataclass field by field (streamlit's hashing.py): every
    # option, and paired None / False / True, must change the key.
    base = TestOptions()
    variants = [base, base.with_(alpha=0.1), base.with_(correction="holm"),
                base.with_(compare="first"), base.with_(alternative="less"),
                base.with_(criterion="small"), base.with_(test="t"), base.with_(paired=True),
                base.with_(paired=False), base.with_(seed=1), base.with_(n_resamples=99)]
    assert len({f.name for f in fields(TestOptions)}) == 9
    keys = [_cache_key(o) for o in variants]
    assert len(set(keys)) == len(variants)
    assert _cache_key(TestOptions(alpha=0.1)) == keys[1], "equal options share their entry"


def test_settings_from_the_environment(tmp_path: Path) -> None:
    default = Settings.from_env({})
    assert default.db_url == f"sqlite:///{DEFAULT_DB_PATH}" and DEFAULT_DB_PATH.is_relative_to(ROOT)
    assert default.demo_data == DEMO_DATA == ROOT / "data" and default.upload_allow == frozenset()
    path = Settings.from_env({"SIGBOARD_DB_PATH": str(tmp_path / "x.db")})
    assert path.db_url == f"sqlite:///{tmp_path / 'x.db'}"
    url = Settings.from_env({"SIGBOARD_DB_URL": " postgresql+psycopg://u:pw@h/db ",
                             "SIGBOARD_DB_PATH": "ignored.db", "SIGBOARD_UPLOAD_TOKEN": "tok",
                             "SIGBOARD_UPLOAD_ALLOW": "A@x.org, ,b@y.org"})
    assert url.db_url == "postgresql+psycopg://u:pw@h/db" and url.upload_token == "tok"
    assert url.upload_allow == frozenset({"a@x.org", "b@y.org"})
    assert "pw" not in repr(url) and "tok" not in repr(url), "secrets stay out of repr"


def test_planned_difference_takes_only_positive_numbers() -> None:
    from app.url import View, planned_difference

    assert planned_difference(View()) == (None, [])
    assert planned_difference(View(pdiff="0.05")) == (0.05, [])
    for bad in ("-1", "0", "nan", "inf", "five"):
        difference, problems = planned_difference(View(pdiff=bad))
        assert difference is None and len(problems) == 1 and "`pdiff`" in problems[0]
