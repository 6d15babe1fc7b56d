"""``python -m engine``: see :mod:`engine._cli`."""

import sys

from ._cli import main

sys.exit(main())
