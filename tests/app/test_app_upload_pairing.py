"""The Upload page says, before anything is stored, how many example ids of an upload hold
other content than the store holds for other systems (#28 item 5), and the commit keeps them
apart.

The logs are lm-eval 0.4.13's own (tests/data/harness-logs-real/lm_eval/doc_hash): model-b's
doc 2 has other text than model-a's, so its ``doc_hash`` differs there and nowhere else.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from apptest_support import app, no_exception

from engine.harness import read_harness
from engine.store import open_store

DOC_HASH = Path(__file__).resolve().parents[1] / "data" / "harness-logs-real" / "lm_eval" / "doc_hash"


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(folder.iterdir()):
            z.write(p, f"{folder.name}/{p.name}")
    return buf.getvalue()


@pytest.mark.slow
def test_the_preview_says_which_examples_differ_from_the_store(db: Path) -> None:
    store = open_store(f"sqlite:///{db}")
    store.import_frame(read_harness(DOC_HASH / "sigtest__model-a").frame, filename="model-a")
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("model-b.zip", _zip(DOC_HASH / "sigtest__model-b"),
                                                "application/zip")
    at.run()
    no_exception(at)
    warned = [w.value.replace("\\", "") for w in at.warning  # shown as escaped Markdown
              if "not paired" in w.value]
    assert len(warned) == 1 and "1 example id of this upload holds other content (doc_hash)" \
        in warned[0]
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click()
    at.run()
    no_exception(at)
    assert any("is not paired with them" in s.value for s in at.success)
    b = open_store(f"sqlite:///{db}").load_frame(benchmark="sig_arith")
    assert sorted(b.loc[b["system"] == "sigtest/model-b", "example_id"].unique())[2].startswith("2#")
