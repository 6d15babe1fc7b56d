"""``python -m engine``: see :mod:`engine.cli`."""

import sys

from .cli import main

sys.exit(main())
