"""``python -m recoursesim.cli``: the same as the ``recoursesim`` command."""

import sys

from recoursesim.__main__ import main

sys.exit(main())
