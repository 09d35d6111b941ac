"""``python -m errands``: the same as the ``errands`` command."""

import sys

from errands.cli import main

sys.exit(main())
