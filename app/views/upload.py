"""Upload: who may upload, then each file's review and commit (``app/components/upload.py``);
the history (read after any commit, so it shows it), deletes and metric definitions."""

from __future__ import annotations

import streamlit as st

from app import auth, config
from app.components import upload, upload_aliases
from app.data import store

st.title("Upload results")
policy = auth.Policy.from_settings(config.current())
allowed, uploader = auth.may_upload(policy)
if allowed:
    auth.signed_in_bar(uploader)
    upload.upload_files(store.token(), uploader)
else:
    auth.sign_in_panel(policy)
upload.history(store.token(), may_delete=allowed, who=uploader)
if allowed:
    upload.metric_editor(uploader)
upload_aliases.aliases(may_edit=allowed, who=uploader)
