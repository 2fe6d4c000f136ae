"""Entry point: `python -m harness`."""

import sys

from harness.cli import main

sys.exit(main())
