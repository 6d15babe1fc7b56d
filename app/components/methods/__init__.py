"""The Methods page's text: which test runs when and why, the conventions, the references.

One module per group of sections, one markdown constant per ``###`` section;
:data:`SECTIONS` is the page in order (``app/views/methods.py`` shows it as one markdown
block, with ``MIN_OVERLAP`` replaced by the engine's value).
"""

from __future__ import annotations

from app.components.methods.conventions import CONVENTIONS, MANY_COMPARISONS
from app.components.methods.other_pages import DISTRIBUTIONS, HEALTH, MECHANISMS, SLICES_CONDITIONS
from app.components.methods.reading import OVERALL, READING
from app.components.methods.references import REFERENCES
from app.components.methods.watch_judge import JUDGES, WATCHING
from app.components.methods.which_test import INTRO, WHICH_TEST

#: The page's sections in the order shown.
SECTIONS = (INTRO, WHICH_TEST, CONVENTIONS, MANY_COMPARISONS, READING, OVERALL, MECHANISMS,
            SLICES_CONDITIONS, DISTRIBUTIONS, HEALTH, WATCHING, JUDGES, REFERENCES)
