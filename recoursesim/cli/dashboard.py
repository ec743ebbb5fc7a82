"""``recoursesim dashboard``: serve the teaching dashboard (needs the ``dashboard`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys

from recoursesim.cli._common import fail, positive_int

#: The Solara app the command serves.
APP = "recoursesim.dashboard.app"


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``dashboard`` command."""
    parser = commands.add_parser(
        "dashboard",
        help="serve the interactive Game-of-Recourse dashboard in the browser",
        description=(
            "Serve the teaching dashboard (Solara) on http://HOST:PORT: every knob of the Game of Recourse, "
            "step/play/reset, the agents with the decision boundary and recourse arrows, live ETR/TTR per "
            "group, an equality-of-effort auditor panel and the story of two agents, Anne and Dawn. "
            "Needs the optional extra: pip install 'recoursesim[dashboard]'."
        ),
    )
    parser.add_argument("--port", type=positive_int, default=8765, help="port to listen on (default: 8765)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim dashboard``: run the Solara server until interrupted."""
    if importlib.util.find_spec("solara") is None:
        return fail("the dashboard needs Solara: pip install 'recoursesim[dashboard]'")
    command = [
        sys.executable, "-m", "solara", "run", APP,
        "--host", str(args.host), "--port", str(args.port), "--production", "--no-open",
    ]  # fmt: skip
    print(f"recoursesim dashboard on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 0
