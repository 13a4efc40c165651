"""The resident recorder: ``python -m rewind.resident.server FD`` serves, on the listening
socket FD that the hook starting it bound (rewind.resident.reach), the events of an agent.

- ``POST /rewind/hook/AGENT``: an after-event the agent posts itself (Claude Code's and Qwen
  Code's HTTP hooks: ``PostToolUse``, ``PostToolUseFailure``, ``Stop``, ``SessionEnd``; no other
  event is taken this way).
- ``POST /rewind/forward/AGENT``: any event of a command hook, whose process hands it over with
  its environment and working directory (rewind.resident.forward), which this process takes on
  while it handles it; it must carry this resident's secret and arrive before its deadline.

Each is handled exactly as ``rewind hook AGENT`` would handle it in a process of its own
(rewind.hooks.answer_event: the same adapters, store locks, logs and stats, its line marked
``via=http`` or ``via=forwarded``), one at a time in the order they came, and answered once
recorded, so the agent goes on only when the event is in the store; except a tool call's end
(``PostToolUse``, ``PostToolUseFailure``), posted or handed over, answered (with nothing, its
only answer) as soon as it is queued or known: the agent's next recorded step comes behind it,
and the turn's end waits for it.

Requests are read by threads of their own, each within :data:`READ_BUDGET` for the whole
request (at most :data:`READERS` at once; more are closed at once), so a client that sends
slowly, or nothing, never holds the others.

Refused (403): a peer of another user (where /proc/net/tcp says), a ``Host`` other than this
port of 127.0.0.1 or localhost (a web page under a rebound name), a request without the
rewind-home headers every hook of rewind's sends (a web page cannot add them to a cross-site
request without a preflight, which is never answered). Answered without being recorded: an
after-event whose headers name another rewind home than this process's (another user's, a
test's). A forwarded event is never answered so: its process handles it (409).

It ends by itself after :data:`IDLE_EXIT` seconds without a request, on SIGTERM (at once when
waiting, else after the event in hand), or when its file (rewind.resident.reach.info_path)
names another resident. Nothing is kept from one request to the next (the stores' cached git
repositories are dropped after each).
"""

from __future__ import annotations

import os
import queue
import select
import signal
import socket
import sys
import threading
import time
from hmac import compare_digest

from rewind.hooks import answer_event
from rewind.resident import reach, wire
from rewind.resident.address import AGENTS, HANDING_OVER, HOME_HEADERS, PATH_PREFIX, home_for
from rewind.resident.forward import DEADLINE_HEADER, FORWARD_PREFIX, SECRET_HEADER, environment_of
from rewind.store.fastjson import load_object
from rewind.store.home import rewind_home
from rewind.store.input_limits import PAYLOAD_BYTES

IDLE_EXIT = 1800.0
POLL = 5.0
READ_BUDGET = 5.0
READERS = 32
# The events the agents post themselves (their HTTP hooks), by agent.
AFTER_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"})
POSTED_EVENTS = {"claude-code": AFTER_EVENTS, "qwen": AFTER_EVENTS}
# The posted events answered as soon as they are read (see _answered_on_arrival).
TOOL_CALL_ENDS = frozenset({"PostToolUse", "PostToolUseFailure"})

# The connection is None for an event already answered.
Job = tuple[socket.socket | None, wire.Request, float]


class Resident:
    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.home = os.path.normpath(rewind_home())
        self.port = int(listener.getsockname()[1])
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        self.secret = os.urandom(16).hex()
        self.last_request = time.monotonic()
        self.stopping = False
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.readers = threading.BoundedSemaphore(READERS)

    # the main thread: accepting --------------------------------------------------------------

    def should_end(self) -> bool:
        """Idle long enough, asked to stop, its file gone (its rewind home removed: it is not
        written again there), or naming another resident; a file naming no live resident, or
        this one without its secret, is written again."""
        if self.stopping or time.monotonic() - self.last_request >= IDLE_EXIT:
            return True
        if not os.path.exists(reach.info_path(self.port)):
            return True
        found = reach.running(self.port)
        if found == (os.getpid(), self.secret):
            return False
        if found is not None and found[0] != os.getpid():
            return True  # another resident is this port's now
        reach.write_info(self.port, os.getpid(), self.secret, ready=True)
        return False

    def accept_one(self) -> None:
        ready, _, _ = select.select([self.listener], [], [], POLL)
        if not ready:
            return
        try:
            connection, peer = self.listener.accept()
        except OSError:
            return
        if not self.readers.acquire(blocking=False):
            connection.close()  # too many at once: the agent records it late, or its hook itself
            return
        thread = threading.Thread(target=self.read_one, args=(connection, peer), daemon=True)
        thread.start()

    # reader threads -----------------------------------------------------------------------------

    def read_one(self, connection: socket.socket, peer: tuple[str, int]) -> None:
        try:
            started = time.perf_counter()
            if _peer_uid(peer, self.port) not in (None, os.getuid()):
                raise wire.BadRequest(403, "not this user's")
            limit = PAYLOAD_BYTES + 1024 * 1024
            request = wire.read_request(connection, limit, time.monotonic() + READ_BUDGET)
            self.check(request)
        except wire.BadRequest as refused:
            _send(connection, refused.status, f'{{"error": "{refused}"}}'.encode())
            connection.close()
        except Exception:  # a peer gone, or too slow: nothing to answer
            connection.close()
        else:
            self.last_request = time.monotonic()
            if _answered_on_arrival(request):
                # Queued before it is answered: the agent's next event, sent once it has the
                # answer, is queued behind it.
                self.jobs.put((None, request, started))
                _send(connection, 200, b"{}")
                connection.close()
            else:
                self.jobs.put((connection, request, started))
        finally:
            self.readers.release()

    def check(self, request: wire.Request) -> None:
        """What makes a request one of rewind's hooks', before anything is handled."""
        if request.headers.get("host") not in self.hosts:
            raise wire.BadRequest(403, "not this host")
        if request.method != "POST":
            raise wire.BadRequest(404, "post hook events to /rewind/hook/AGENT")
        for header in HOME_HEADERS:
            if header.lower() not in request.headers:
                raise wire.BadRequest(403, "not a hook of rewind")
        if request.path.startswith(FORWARD_PREFIX):
            secret = request.headers.get(SECRET_HEADER.lower(), "").encode("utf-8", "replace")
            if not compare_digest(secret, self.secret.encode()):
                raise wire.BadRequest(403, "not this resident's secret")
            agent = request.path[len(FORWARD_PREFIX) :]
            if agent not in AGENTS and agent not in HANDING_OVER:
                raise wire.BadRequest(404, "no such agent")
        elif request.path[len(PATH_PREFIX) :] not in AGENTS or not request.path.startswith(
            PATH_PREFIX
        ):
            raise wire.BadRequest(404, "post hook events to /rewind/hook/AGENT")

    # the worker thread: one event at a time -----------------------------------------------------

    def work(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            connection, request, started = job  # no connection: answered on arrival
            try:
                if request.path.startswith(FORWARD_PREFIX):
                    assert connection is not None  # a handed-over event is never answered early
                    agent = request.path[len(FORWARD_PREFIX) :]
                    answer = self.forwarded(connection, agent, request, started)
                else:
                    agent = request.path[len(PATH_PREFIX) :]
                    answer = self.posted(agent, request, started)
                if connection is not None and answer is not None:
                    _send(connection, *answer)
            except Exception:  # never the resident's end: the event's own failure is logged
                pass
            finally:
                if connection is not None:
                    connection.close()
                _forget_repositories()

    def posted(self, agent: str, request: wire.Request, started: float) -> tuple[int, bytes]:
        values = {variable: request.headers[h.lower()] for h, variable in HOME_HEADERS.items()}
        if os.path.normpath(home_for(values)) != self.home:
            return 200, b"{}"  # another rewind home's event: not this process's to record
        payload = request.body.decode("utf-8", "surrogateescape")
        try:
            event = load_object(payload).get("hook_event_name")
        except ValueError:
            event = None
        if event not in POSTED_EVENTS.get(agent, ()):
            return 403, b'{"error": "not an event the agent posts"}'
        return 200, (answer_event(agent, payload, started, "http") or "{}").encode()

    def forwarded(
        self, connection: socket.socket, agent: str, request: wire.Request, started: float
    ) -> tuple[int, bytes] | None:
        """A command hook's event, handled with its environment and working directory, when
        it comes before its deadline; else its process handles it (409). A tool call's end is
        answered (with nothing, its only answer) as soon as the adapter knows it for one, so
        its process ends while the after-states are recorded: then None."""
        try:
            deadline = float(request.headers.get(DEADLINE_HEADER.lower(), "0"))
            environment_line, cwd_line, payload = [*request.body.split(b"\n", 2), b"", b""][:3]
            environment = environment_of(environment_line)
            directory = bytes.fromhex(cwd_line.decode())
        except ValueError:
            return 409, b'{"error": "handle it yourself"}'
        home = home_for(environment, os.fsdecode(directory))
        if time.time() > deadline or os.path.normpath(home) != self.home:
            return 409, b'{"error": "handle it yourself"}'
        here = os.getcwd()
        try:
            os.chdir(directory)
        except OSError:
            return 409, b'{"error": "handle it yourself"}'
        connection.sendall(wire.TAKEN)
        answered: list[bool] = []

        def answer_now() -> None:
            _send(connection, 200, b"")
            try:
                connection.shutdown(socket.SHUT_WR)  # the answer's end: its process goes on
            except OSError:
                pass
            answered.append(True)

        saved = dict(os.environ)
        try:
            os.environ.clear()
            os.environ.update(environment)
            text = payload.decode("utf-8", "surrogateescape")
            output = answer_event(agent, text, started, "forwarded", on_tool_call_end=answer_now)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            os.chdir(here)
        if answered:
            return None
        return 200, (output or "").encode("utf-8", "surrogateescape")


def _answered_on_arrival(request: wire.Request) -> bool:
    """A posted tool call's end (Claude Code and Qwen Code wait for every hook's answer before
    the next step, and rewind answers these with nothing): answered as soon as it is read and
    queued, and recorded in its turn. Whatever the agent does next that rewind records comes
    behind it in the same queue (a command hook's event, handed over), and so does the turn's
    end, which is answered once recorded: when the agent's turn is over, everything is in the
    store. If this process dies first, the event is lost as a post that found nobody would be,
    and read again the same way (the turn's end, the next prompt)."""
    if request.path.startswith(FORWARD_PREFIX):
        return False
    try:
        event = load_object(request.body.decode("utf-8", "surrogateescape"))
    except ValueError:
        return False
    return event.get("hook_event_name") in TOOL_CALL_ENDS


def _send(connection: socket.socket, status: int, body: bytes) -> None:
    try:
        connection.settimeout(READ_BUDGET)
        connection.sendall(wire.response(status, body))
    except OSError:
        pass


def _forget_repositories() -> None:
    packed = sys.modules.get("rewind.store.packed")
    if packed is not None:
        packed._repositories.clear()


def _peer_uid(peer: tuple[str, int], port: int) -> int | None:
    """The user whose socket is the peer of a connection to ``port`` on 127.0.0.1 (Linux's
    /proc/net/tcp); None where that cannot be told."""
    host, peer_port = peer[0], peer[1]
    if host != "127.0.0.1":
        return None
    local, remote = f"0100007F:{peer_port:04X}", f"0100007F:{port:04X}"
    try:
        with open("/proc/net/tcp", encoding="ascii") as table:
            for line in table:
                fields = line.split()
                if len(fields) > 7 and fields[1] == local and fields[2] == remote:
                    return int(fields[7])
    except (OSError, ValueError):
        return None
    return None


class _Stopped(Exception):
    """SIGTERM while waiting for a connection."""


def serve(descriptor: int) -> None:
    listener = socket.socket(fileno=descriptor)
    resident = Resident(listener)
    reach.IN_RESIDENT = True
    # Each hook process has its agent's project variable (CLAUDE_PROJECT_DIR, QWEN_...); this
    # process serves every session, which the posted events' cwd (and a forwarded event's own
    # environment) tell apart: the one of the hook that started it is no one else's.
    for name in [name for name in os.environ if name.endswith("_PROJECT_DIR")]:
        del os.environ[name]
    waiting = [False]  # True only while blocked for a connection: a SIGTERM then ends it at once

    def stop(_signal: int, _frame: object) -> None:
        resident.stopping = True
        if waiting[0]:
            raise _Stopped

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    worker = threading.Thread(target=resident.work, daemon=True)
    worker.start()
    try:
        # In the try: a SIGTERM as soon as the file says ready still removes it at the end.
        reach.write_info(resident.port, os.getpid(), resident.secret, ready=True)
        while not resident.should_end():
            waiting[0] = True
            resident.accept_one()
            waiting[0] = False
    except _Stopped:
        pass
    finally:
        waiting[0] = False
        listener.close()
        resident.jobs.put(None)
        worker.join(timeout=30)  # the event in hand, and those already read, are recorded
        if reach.running_pid(resident.port) == os.getpid():
            try:
                os.unlink(reach.info_path(resident.port))
            except OSError:
                pass


if __name__ == "__main__":
    serve(int(sys.argv[1]))
