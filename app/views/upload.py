"""Upload: who may upload, then each file's review and commit (``app/components/upload.py``); history."""

from __future__ import annotations

import streamlit as st

from app import auth, cache, config
from app.components import upload

st.title("Upload results")
policy = auth.Policy.from_settings(config.current())
allowed, uploader = auth.may_upload(policy)
token = cache.token()
if allowed:
    upload.upload_files(token, uploader)
else:
    auth.sign_in_panel(policy)
upload.history(token, may_delete=allowed)
