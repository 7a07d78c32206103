"""``python -m fem`` is the ``fem`` command."""

import sys

from .cli import main

sys.exit(main())
