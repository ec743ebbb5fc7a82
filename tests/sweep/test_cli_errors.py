"""Bad input to ``sweep`` and ``summarise``: one clear line on stderr, exit 2, within bounded time."""

import socket
import threading
import time

import pytest

from recoursesim.cli import main


def _one_line_error(capsys, *words):
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], (word, err)
    return lines[0]


def test_unknown_grid_key_exits_2_and_writes_nothing(small_toml, tmp_path, capsys):
    out = tmp_path / "s"
    code = main(["sweep", str(small_toml), "--seeds", "2", "--grid", "selection.kk=1,2", "--out", str(out), "--quiet"])
    assert code == 2
    _one_line_error(capsys, "--grid selection.kk", "fix:")
    assert not out.exists()


def _speak_garbage(sock):
    try:
        connection, _ = sock.accept()
    except OSError:
        return
    with connection:
        connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 64)
        time.sleep(3)


@pytest.mark.parametrize("peer", ["silent-listener", "closed-port", "not-dask"])
def test_scheduler_that_does_not_answer_fails_fast(small_toml, tmp_path, capsys, peer):
    pytest.importorskip("distributed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        if peer == "closed-port":
            sock.close()
        else:
            sock.listen(1)  # silent: accepts TCP connections but never speaks; a naive client would hang
            if peer == "not-dask":
                threading.Thread(target=_speak_garbage, args=(sock,), daemon=True).start()
        start = time.monotonic()
        code = main(
            [
                *("sweep", str(small_toml), "--seeds", "2", "--out", str(tmp_path / "s"), "--quiet"),
                *("--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "2"),
            ]
        )
        elapsed = time.monotonic() - start
    assert code == 2 and elapsed < 20
    _one_line_error(capsys, "--scheduler", f"127.0.0.1:{port}", "within 2 s")
    assert not (tmp_path / "s").exists()


def test_output_directory_holding_another_sweep_is_refused(small_toml, tmp_path, capsys):
    out = tmp_path / "s"
    base = ["sweep", str(small_toml), "--grid", "selection.k=10,20", "--out", str(out), "--quiet"]
    assert main([*base, "--seeds", "2"]) == 0
    capsys.readouterr()
    assert main([*base, "--seeds", "3"]) == 2
    _one_line_error(capsys, "holds another sweep")
    assert main([*base, "--seeds", "3", "--resume"]) == 2
    _one_line_error(capsys, "holds another sweep")
    assert main([*base, "--seeds", "2"]) == 2
    _one_line_error(capsys, "already holds this sweep", "--resume")
    stamp = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    assert main([*base, "--seeds", "2", "--resume"]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == stamp  # nothing rerun
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main(["sweep", str(small_toml), "--seeds", "2", "--out", str(other), "--quiet"]) == 2
    _one_line_error(capsys, "not empty")


def test_summarise_command(small_toml, tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sweep", str(small_toml), "--seeds", "3", "--grid", "selection.k=10,20", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "6/6 runs finished" in captured.out and "runs/s" in captured.out
    assert "sweep" in captured.err  # the progress bar
    (out / "summary.parquet").unlink()
    assert main(["summarise", str(out)]) == 0
    text = capsys.readouterr().out
    assert "6/6 runs finished, 0 failed" in text and "disadvantaged" in text and "retr" in text
    assert (out / "summary.parquet").exists()
    assert main(["summarise", str(tmp_path)]) == 2
    _one_line_error(capsys, "holds no sweep")
