"""The upload history: every upload with local times, confirmed and undoable deletes, and
the deleted uploads with a restore button.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pandas as pd
import streamlit as st

from app.data import store
from engine.app_support import md_text

__all__ = ["history", "local_times"]

def local_times(values: pd.Series) -> pd.Series:
    """Stored UTC ISO times as readable local times ("2025-03-14 11:22 CET")."""
    zone_name = getattr(st.context, "timezone", None) or "UTC"
    try:
        zone = ZoneInfo(str(zone_name))
    except Exception:  # an unknown zone from the browser
        zone = ZoneInfo("UTC")

    def one(value: object) -> str:
        if not isinstance(value, str) or not value:
            return ""
        try:
            moment = datetime.fromisoformat(value).astimezone(zone)
        except ValueError:
            return value
        return moment.strftime("%Y-%m-%d %H:%M %Z")
    return values.map(one)


#: The history's headers in words (the store's column names were shown: "rows_stored",
#: "on_conflict"); other columns keep their names, "_" as a space.
_HEADERS = {"upload_id": "upload", "rows_stored": "rows stored",
            "on_conflict": "if already stored"}
#: Each header's tooltip; the upload and its file pinned, so that on a phone
#: the other columns scroll sideways beside them.
_COLUMNS = {
    "upload": st.column_config.NumberColumn(pinned=True, help="The upload's number"),
    "filename": st.column_config.TextColumn(pinned=True, help="The file (or files) uploaded"),
    "rows": st.column_config.NumberColumn(help="Result rows the upload brought"),
    "rows stored": st.column_config.NumberColumn(
        help="Of those, the rows still in the store (a later upload may have replaced some)"),
    "uploaded": st.column_config.TextColumn(help="When, in your browser's time zone"),
    "uploader": st.column_config.TextColumn(help="Who uploaded it (the signed-in name)"),
    "note": st.column_config.TextColumn(help="The uploader's note"),
    "if already stored": st.column_config.TextColumn(
        help="What the upload did with results already stored for the same system and "
             "example: reject (refuse the upload), replace them, or add-run (store a new "
             "run beside them)"),
    "deleted": st.column_config.TextColumn(help="When it was deleted (restore undoes it)"),
}


def _history_table(uploads: pd.DataFrame) -> pd.DataFrame:
    shown = uploads.drop(columns=["content_hash"]).rename(columns={"created_at": "uploaded"})
    shown["uploaded"] = local_times(shown["uploaded"])
    if shown["deleted_at"].notna().any():
        shown["deleted_at"] = local_times(shown["deleted_at"])
        shown = shown.rename(columns={"deleted_at": "deleted"})
    else:
        shown = shown.drop(columns=["deleted_at"])
    return shown.rename(columns=lambda c: _HEADERS.get(c, str(c).replace("_", " ")))


def _do_delete(upload_id: int, who: str) -> None:
    """Button callback: delete once the typed id matches; a fresh box for the next one."""
    box = f"confirm-delete-{upload_id}"
    typed = str(st.session_state.get(box, "")).strip().lstrip("#")
    if typed != str(upload_id):
        st.session_state["upload_flash"] = ("warning", f"Type {upload_id} in the box to "
                                            f"confirm; nothing was deleted.")
        return
    st.session_state[box] = ""
    try:
        removed = store.writer().delete_upload(upload_id, deleted_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["upload_flash"] = ("error", str(exc))
        return
    st.session_state["upload_flash"] = ("success", f"Upload #{upload_id} deleted ({removed} rows "
                                        "left the store; rows it had replaced are back). It "
                                        "can be restored below.")


def _do_restore(upload_id: int, who: str) -> None:
    try:
        back = store.writer().restore_upload(upload_id, restored_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["upload_flash"] = ("error", str(exc))
        return
    st.session_state["upload_flash"] = ("success",
                                        f"Upload #{upload_id} restored ({back} rows back).")


def _flash() -> None:
    kind, message = st.session_state.pop("upload_flash", (None, ""))
    if kind is not None:
        {"warning": st.warning, "error": st.error, "success": st.success}[kind](md_text(message))


def _delete_form(uploads: pd.DataFrame, who: str) -> None:
    names = uploads.set_index("upload_id")["filename"]
    upload_id = int(st.selectbox("Delete an upload", uploads["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · {names.at[i]}",
                                 key="delete-which"))
    contents = store.current().upload_contents(upload_id)
    st.text(f"Deleting upload #{upload_id} ({names.at[upload_id]}) removes "
            f"{int(contents['rows'].sum())} rows from every page:")
    st.dataframe(contents, hide_index=True, width="stretch")
    st.caption("Rows it replaced come back. The delete can be undone (restore) until the "
               "deleted upload is purged.")
    st.text_input(f"Type {upload_id} to confirm", key=f"confirm-delete-{upload_id}")
    st.button(f"Delete upload #{upload_id}", icon=":material/delete:", key="delete-button",
              on_click=_do_delete, args=(upload_id, who))


def history(token: str, *, may_delete: bool, who: str = "") -> None:
    """Every upload, newest first (times local); with ``may_delete``, a confirmed delete and
    the deleted uploads with a restore button."""
    st.subheader("Upload history")
    _flash()
    uploads = store.uploads(token)
    st.dataframe(_history_table(uploads), hide_index=True, width="stretch",
                 column_config=_COLUMNS)
    if not may_delete:
        return
    if not uploads.empty:
        _delete_form(uploads, who)
    deleted = store.current().uploads(deleted=True)
    if deleted.empty:
        return
    with st.expander(f"Deleted uploads ({len(deleted)})"):
        st.dataframe(_history_table(deleted), hide_index=True, width="stretch",
                     column_config=_COLUMNS)
        names = deleted.set_index("upload_id")["filename"]
        which = int(st.selectbox("Restore an upload", deleted["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · {names.at[i]}",
                                 key="restore-which"))
        st.button(f"Restore upload #{which}", icon=":material/restore:", key="restore-button",
                  on_click=_do_restore, args=(which, who))
