"""Real git remotes for the remote tests: a bare repository on disk, reached as a path, as a
``file://`` URL, through ``git daemon`` (``git://``) and through ``git http-backend`` behind a
small HTTP server (``http://``), each on localhost.

The servers are the git program's own: what rewind's pushes and fetches go through is git's
transport exactly as it runs against a hosted remote, not a stand-in.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.conftest import RewindResult, run_rewind
from tests.support.git import git

GIT_DAEMON = "/usr/lib/git-core/git-daemon"
REMOTE_NAME = "remote.git"


def bare_repository(path: Path) -> Path:
    """An empty bare repository that accepts pushes over every transport."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    git("config", "http.receivepack", "true", git_dir=path)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """``git daemon`` serving (and accepting pushes to) every repository under ``base``; the
    URL of ``base/remote.git``."""
    if not os.path.exists(GIT_DAEMON) and shutil.which("git") is None:
        raise RuntimeError("git daemon is not installed")
    port = free_port()
    process = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--listen=127.0.0.1",
            f"--port={port}",
            f"--base-path={base}",
            "--export-all",
            "--enable=receive-pack",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process)
        yield f"git://127.0.0.1:{port}/{REMOTE_NAME}"
    finally:
        os.killpg(process.pid, 9)
        process.wait()


class _GitHttpBackend(BaseHTTPRequestHandler):
    """One request through ``git http-backend`` as a CGI program: the request's body streamed
    to it, its headers and body streamed back."""

    project_root = ""
    pause = 0.0  # seconds between two chunks of a response: a slow network

    def do_GET(self) -> None:
        self._cgi()

    def do_POST(self) -> None:
        self._cgi()

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet

    def _cgi(self) -> None:
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        environment = {
            **os.environ,
            "GIT_PROJECT_ROOT": self.project_root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "REMOTE_USER": "tester",
            "REMOTE_ADDR": self.client_address[0],
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        if self.headers.get("Content-Length") is not None:
            environment["CONTENT_LENGTH"] = str(length)
        if self.headers.get("Content-Encoding"):
            environment["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            environment["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        body = self._body(length)
        backend = subprocess.Popen(
            ["git", "http-backend"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environment,
        )
        assert backend.stdin is not None and backend.stdout is not None
        writer = threading.Thread(target=_feed, args=(backend.stdin, body), daemon=True)
        writer.start()
        status = "200 OK"
        headers: list[tuple[str, str]] = []
        while True:
            line = backend.stdout.readline().rstrip(b"\r\n")
            if not line:
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "status":
                status = value.strip()
            else:
                headers.append((name, value.strip()))
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        output = backend.stdout
        assert isinstance(output, io.BufferedReader)  # read1: what is there, as it comes
        try:
            while chunk := output.read1(65536):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                if self.pause:
                    self.wfile.flush()
                    time.sleep(self.pause)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):  # the client was killed
            backend.kill()
        writer.join()
        backend.wait()

    def _body(self, length: int) -> Iterator[bytes]:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return
                yield self.rfile.read(size)
                self.rfile.readline()
        remaining = length
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                return
            remaining -= len(chunk)
            yield chunk


def _feed(pipe: object, body: Iterator[bytes]) -> None:
    assert isinstance(pipe, io.BufferedWriter)
    try:
        for chunk in body:
            pipe.write(chunk)
    except BrokenPipeError:
        pass
    finally:
        try:
            pipe.close()
        except BrokenPipeError:
            pass


@contextmanager
def http_backend(base: Path, pause: float = 0.0) -> Iterator[str]:
    """An HTTP server on localhost running ``git http-backend`` for every repository under
    ``base``, waiting ``pause`` seconds after each chunk it sends; the URL of
    ``base/remote.git``."""
    handler = type(
        "Handler",
        (_GitHttpBackend,),
        {"project_root": str(base), "protocol_version": "HTTP/1.1", "pause": pause},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/{REMOTE_NAME}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def served(kind: str, base: Path) -> Iterator[str]:
    """``base/remote.git`` (made here) as a remote of ``kind``: its URL."""
    bare = bare_repository(base / REMOTE_NAME)
    if kind == "path":
        yield str(bare)
    elif kind == "file":
        yield bare.as_uri()
    elif kind == "daemon":
        with git_daemon(base) as url:
            yield url
    elif kind == "http":
        with http_backend(base) as url:
            yield url
    else:
        raise ValueError(kind)


KINDS = ("path", "file", "daemon", "http")


class Machine:
    """One machine: its rewind home, its home and its clone of the project."""

    def __init__(self, root: Path, home: Path, name: str) -> None:
        self.root = root
        self.home = home
        self.name = name
        self.env = {
            "HOME": str(home),
            "REWIND_HOME": str(home / "rewind-home"),
            "REWIND_MACHINE": name,
        }

    def run(self, *args: str, cwd: Path | None = None) -> RewindResult:
        """``rewind ARGS`` here, with no terminal (standard input is empty)."""
        return run_rewind(*args, cwd=cwd or self.root, env=self.env, input="")

    def ok(self, *args: str) -> str:
        result = self.run(*args)
        assert result.returncode == 0, result
        return result.stdout

    def json(self, *args: str) -> object:
        return json.loads(self.ok(*args, "--json"))

    def turn(self, session: str, prompt: str, files: dict[str, bytes]) -> None:
        """One closed turn that writes ``files``."""
        self.open_turn(session, prompt, files)
        self.ok("end", "--session", session)

    def open_turn(self, session: str, prompt: str, files: dict[str, bytes]) -> None:
        self.ok("begin", "--session", session, "--prompt", prompt)
        self.ok("track", "--session", session, *files)
        for name, content in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)

    def store(self) -> Path:
        """Where this machine keeps the project's store."""
        from rewind.store.home import store_dir_for

        saved = os.environ.get("REWIND_HOME")
        os.environ["REWIND_HOME"] = self.env["REWIND_HOME"]
        try:
            return Path(store_dir_for(os.fsencode(os.path.realpath(self.root))))
        finally:
            if saved is None:
                del os.environ["REWIND_HOME"]
            else:
                os.environ["REWIND_HOME"] = saved


def sh(cwd: Path, *command: str) -> str:
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout


def new_project(path: Path) -> Path:
    path.mkdir(parents=True)
    sh(path, "git", "init", "-q")
    (path / "README.md").write_text("calc\n")
    (path / ".gitignore").write_text("*.log\n")
    sh(path, "git", "add", "-A")
    sh(path, "git", "commit", "-q", "-m", "first")
    return path


def clone(source: Path, path: Path, *options: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sh(source.parent, "git", "clone", "-q", *options, str(source), str(path))
    return path
