"""sigboard's Streamlit entry: page config, the one navigation registry, URL state, sidebar links.

Served by ``streamlit run app/server.py`` from the repository root (``app/server.py`` wraps
this script with a faster first visit); ``streamlit run app/main.py`` works too.
"""

from __future__ import annotations

import logging

import streamlit as st

from app import config, state, url
from app.branding import BRAND_HTML, FAVICON
from app.data import store

st.set_page_config(page_title="sigboard", page_icon=FAVICON, layout="wide")

PAGES = {
    "overall": st.Page("views/overall.py", title="Overall", icon=":material/trophy:",
                       url_path="home", default=True),
    "overview": st.Page("views/overview.py", title="Overview", icon=":material/dashboard:",
                        url_path="overview"),
    "leaderboard": st.Page("views/leaderboard.py", title="Leaderboard",
                           icon=":material/leaderboard:", url_path="leaderboard"),
    "pairwise": st.Page("views/pairwise.py", title="Pairwise", icon=":material/grid_on:",
                        url_path="pairwise"),
    "compare": st.Page("views/compare.py", title="A/B compare", icon=":material/compare_arrows:",
                       url_path="compare"),
    "plan": st.Page("views/plan.py", title="Plan", icon=":material/calculate:", url_path="plan"),
    "distributions": st.Page("views/distributions.py", title="Distributions",
                             icon=":material/candlestick_chart:", url_path="distributions"),
    "mechanisms": st.Page("views/mechanisms.py", title="Mechanisms", icon=":material/balance:",
                          url_path="mechanisms"),
    "conditions": st.Page("views/conditions.py", title="Conditions", icon=":material/alt_route:",
                          url_path="conditions"),
    "slices": st.Page("views/slices.py", title="Slices", icon=":material/splitscreen:",
                      url_path="slices"),
    "examples": st.Page("views/examples.py", title="Examples", icon=":material/quiz:",
                        url_path="examples"),
    "upload": st.Page("views/upload.py", title="Upload", icon=":material/upload:",
                      url_path="upload"),
    "methods": st.Page("views/methods.py", title="Methods", icon=":material/menu_book:",
                       url_path="methods"),
}

#: The landing page (the team's overall leaderboard) is served at ``/``; ``/overall``, the
#: address its links had before it became the landing page, opens it too.
ALIASES = {"overall": st.Page("views/overall.py", title="Overall", url_path="overall",
                              visibility="hidden")}
LOG = logging.getLogger("sigboard")

navigation = st.navigation([*PAGES.values(), *ALIASES.values()], position="hidden")
state.register_pages(PAGES)
state.set_page(next((name for name, page in [*PAGES.items(), *ALIASES.items()]
                     if page is navigation), ""))

# st.html, first of all elements: besides the mark, it makes the browser fetch the small HTML
# renderer while the page still runs, so the leaderboard's ranked table (also st.html) is
# less likely to wait for it.
st.sidebar.html(BRAND_HTML)
links = st.sidebar.empty()
config.load()  # the environment, read once per run
view, problems = url.parse_view(state.raw_params(), store.catalog(store.token()))
state.set_view(view)
state.warn(problems)


def _draw_links() -> None:
    with links.container():
        for name, page in PAGES.items():
            state.link(name, page.title, icon=page.icon)
        st.caption("Every setting is in the address bar: copy it to share this exact view.")


if st.session_state.get("sigboard_links_drawn"):
    _draw_links()  # at once, so no link from the previous run lingers while the page runs
st.session_state["sigboard_links_drawn"] = True
try:
    navigation.run()
except Exception:  # not st.stop/st.rerun (BaseException): a bug, logged; no traceback shown
    LOG.exception("page %r failed", state.page_name())
    st.error(f"{state.FAILED} It has been logged; try other "
             "settings or another page.", icon=":material/error:")
finally:  # again after the page (even one that stopped early): links carry its final view
    _draw_links()
