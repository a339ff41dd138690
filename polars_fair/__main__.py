"""``python -m polars_fair``: the command line."""

from __future__ import annotations

import sys

from polars_fair.io.cli import main

sys.exit(main())
