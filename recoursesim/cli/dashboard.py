"""``recoursesim dashboard``: serve the teaching dashboard (needs the ``dashboard`` extra)."""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import os
import signal
import subprocess
import sys
from types import FrameType

from recoursesim.cli._common import fail, positive_int

#: The Solara app the command serves.
APP = "recoursesim.dashboard.app"
#: Seconds the server gets to stop after SIGTERM before it is killed.
STOP_TIMEOUT = 10.0
#: Linux ``prctl`` option: the signal a process receives when its parent dies.
_PR_SET_PDEATHSIG = 1
#: Warnings of the Solara server that are no news to a dashboard user, left out of its log (Python
#: warning filters, by the start of the message): the advice on embedding pages in an iframe, printed
#: on every page load from an address other than ``localhost``.
QUIET_WARNINGS = ("ignore:Cookies with samesite=none require https",)


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
    print(f"recoursesim dashboard on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    return serve(server_command(args.host, args.port), server_environment())


def server_command(host: str, port: int) -> list[str]:
    """The Solara server's command line: production mode, no browser, no check for a newer Solara.

    The project pins Solara below a version (``pyproject.toml``), so the server's advice to upgrade
    past it would only mislead; the log keeps the URL (printed above) and errors.
    """
    return [
        sys.executable, "-m", "solara", "run", APP,
        "--host", str(host), "--port", str(port), "--production", "--no-open", "--no-check-version",
    ]  # fmt: skip


def server_environment() -> dict[str, str]:
    """This process's environment, with :data:`QUIET_WARNINGS` added to the server's warning filters."""
    given = os.environ.get("PYTHONWARNINGS", "")
    return {**os.environ, "PYTHONWARNINGS": ",".join(part for part in (given, *QUIET_WARNINGS) if part)}


def serve(command: list[str], env: dict[str, str] | None = None) -> int:
    """Run the server ``command`` until it exits or this process is told to stop; never leave it behind.

    The server runs in its own process group. Ctrl-C (SIGINT), SIGTERM or SIGHUP to this process
    stop the whole group (SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT` seconds); if this
    process dies without a chance to clean up (SIGKILL), Linux sends the server SIGTERM
    (``PR_SET_PDEATHSIG``).

    Returns:
        The server's exit status, or 0 when it was stopped on request.
    """
    parent = os.getpid()
    server = subprocess.Popen(command, env=env, start_new_session=True, preexec_fn=lambda: _die_with_parent(parent))
    previous = {sig: signal.signal(sig, _stop_request) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return server.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _stop(server)


def _stop_request(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _stop(server: subprocess.Popen) -> None:
    """Stop the server's process group: SIGTERM, then SIGKILL if it lingers."""
    if server.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def _die_with_parent(parent: int) -> None:
    """In the server process, before it starts: have Linux send it SIGTERM when its parent dies."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)
