"""``python -m recoursesim`` and the ``recoursesim`` command: the command line, Ctrl-C handled from the start.

The command line's modules (pandas, pyarrow, ...) take a moment to import; :func:`main` imports
them inside the same guard as the command itself, so Ctrl-C at any point ends with one line and
exit status 130, never a traceback.
"""

from __future__ import annotations

import sys

from recoursesim.errors import INTERRUPTED, INTERRUPTED_MESSAGE


def main() -> int:
    """Run the command line; Ctrl-C, even while it is still importing, gives one line and exit 130."""
    try:
        from recoursesim.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        print(f"error: {INTERRUPTED_MESSAGE}", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
