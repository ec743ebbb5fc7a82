"""``python -m recoursesim.cli``: the same as the ``recoursesim`` command."""

import sys

from recoursesim.cli import main

sys.exit(main())
