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
from engine import UnsafeStoreError
from engine.app_support import md_text

st.set_page_config(page_title="sigboard", page_icon=FAVICON, layout="wide")


def _page(name: str, title: str, icon: str | None = None, url_path: str = "", *,
          default: bool = False, hidden: bool = False) -> st.Page:
    """The page ``views/<name>.py`` at ``/<url_path>`` (default: its name)."""
    return st.Page(f"views/{name}.py", title=title, icon=icon, url_path=url_path or name,
                   default=default, visibility="hidden" if hidden else "visible")


PAGES = {
    "overall": _page("overall", "Overall", ":material/trophy:", "home", default=True),
    "leaderboard": _page("leaderboard", "Leaderboard", ":material/leaderboard:"),
    "benchmarks": _page("benchmarks", "Benchmarks", ":material/dashboard:"),
    "pairwise": _page("pairwise", "Pairwise", ":material/grid_on:"),
    "compare": _page("compare", "A/B compare", ":material/compare_arrows:"),
    "examples": _page("examples", "Examples", ":material/quiz:"),
    "distributions": _page("distributions", "Distributions", ":material/candlestick_chart:"),
    "mechanisms": _page("mechanisms", "Mechanisms", ":material/balance:"),
    "slices": _page("slices", "Slices", ":material/splitscreen:"),
    "conditions": _page("conditions", "Conditions", ":material/alt_route:"),
    "watch": _page("watch", "Watch", ":material/visibility:"),
    "pareto": _page("pareto", "Trade-offs", ":material/scatter_plot:"),
    "judge": _page("judge", "Judge + humans", ":material/gavel:"),
    "upload": _page("upload", "Upload", ":material/upload:"),
    "audit": _page("audit", "Audit a board", ":material/fact_check:"),
    "methods": _page("methods", "Methods", ":material/menu_book:"),
}

#: The sidebar's sections: pages grouped by the job they do. A registered page no section
#: names is listed under "More" (so a page added to ``PAGES`` is never unreachable).
SECTIONS: dict[str, tuple[str, ...]] = {
    "Leaderboards": ("overall", "leaderboard", "benchmarks", "judge"),
    "Compare": ("pairwise", "compare", "watch", "pareto"),
    "Diagnose": ("examples", "distributions", "mechanisms", "slices", "conditions"),
    "Data": ("upload", "audit"),
    "Help": ("methods",),
}

#: Pages reachable by their address but not listed: the landing page is served at ``/``, and
#: ``/overall`` (its address before it became the landing page) opens it too; ``/overview``
#: is the Benchmarks page's old address; Plan is A/B compare's planning panel, linked from
#: A/B compare (``/plan`` keeps working).
HIDDEN = {
    "overall": _page("overall", "Overall", url_path="overall", hidden=True),
    "benchmarks": _page("benchmarks", "Benchmarks", url_path="overview", hidden=True),
    "plan": _page("plan", "Plan the next run", ":material/calculate:", hidden=True),
}
#: Pages links may open besides the listed ones (name -> page).
LINKED = {"plan": HIDDEN["plan"]}
LOG = logging.getLogger("sigboard")




def sections() -> dict[str, list[str]]:
    """Each section's registered pages in order; pages no section names under "More"."""
    listed = {name for names in SECTIONS.values() for name in names}
    grouped = {title: [n for n in names if n in PAGES] for title, names in SECTIONS.items()}
    extra = [name for name in PAGES if name not in listed]
    return {title: names for title, names in {**grouped, "More": extra}.items() if names}


navigation = st.navigation([*PAGES.values(), *HIDDEN.values()], position="hidden")
state.register_pages({**PAGES, **LINKED})
state.set_page(next((name for name, page in [*PAGES.items(), *HIDDEN.items()]
                     if page is navigation), ""))

# st.html, first of all elements: besides the mark, it makes the browser fetch the small HTML
# renderer while the page still runs, so the leaderboard's ranked table (also st.html) is
# less likely to wait for it.
st.sidebar.html(BRAND_HTML)
links = st.sidebar.empty()
config.load()  # the environment, read once per run
try:
    catalog = store.catalog(store.token())
except Exception as exc:  # the store is unreachable or refused: say which, never the password
    if not config.is_store_error(exc):
        raise
    LOG.warning("results store: %s", config.store_problem(exc))
    st.error(md_text(config.store_problem(exc)) + (
        "" if isinstance(exc, UnsafeStoreError) else ". Check `SIGBOARD_DB_URL` (or "
        "`SIGBOARD_DB_PATH`) and that the database is running, then reload."),
        icon=":material/database_off:")
    st.stop()
view, problems = url.parse_view(state.raw_params(), catalog)
state.set_view(view)
state.warn(problems)


def _draw_links() -> None:
    with links.container():
        for title, names in sections().items():
            st.caption(f"**{title}**")
            for name in names:
                state.link(name, PAGES[name].title, icon=PAGES[name].icon)
        st.caption("Every setting is in the address bar: copy it to share this exact view.")


# Before the page's own work, on every run (a direct link or a reload included): the links
# are there while the page computes, and stay whatever way the page ends.
_draw_links()
try:
    navigation.run()
except Exception:  # not st.stop/st.rerun (BaseException): a bug, logged; no traceback shown
    LOG.exception("page %r failed", state.page_name())
    st.error(f"{state.FAILED} It has been logged; try other "
             "settings or another page.", icon=":material/error:")
else:  # again after a page that ran to its end: the links carry its final view
    _draw_links()
