"""Mark tasks for `gpumeter daemon` from a Python worker (standard library only).

    import gpumeter

    with gpumeter.task("decode", stream="cam3") as t:
        decode(frame)
    print(t.result)          # the usage record of the `end` reply, or None

    @gpumeter.measured("decode")
    def decode(frame): ...

The daemon speaks newline-delimited JSON over a Unix socket (docs/task-protocol.md). When no
daemon is reachable the worker keeps working: one warning is issued and `result` stays None.
"""

import json
import os
import socket
import threading
import warnings
from functools import wraps

__all__ = ["Client", "GpumeterError", "Task", "default_socket_path", "measured", "task"]

PROTOCOL_VERSION = 1


class GpumeterError(Exception):
    """The daemon answered with an error reply; `code` is the protocol's stable word."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code


SYSTEM_SOCKET = "/run/gpumeter/gpumeter.sock"


def default_socket_path():
    """$GPUMETER_SOCKET, else $XDG_RUNTIME_DIR/gpumeter.sock, else the system socket.

    A user's session has XDG_RUNTIME_DIR even when the daemon is the system one, so the user
    socket is chosen only if it exists, or if neither does.
    """
    explicit = os.environ.get("GPUMETER_SOCKET")
    if explicit:
        return explicit
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    user = os.path.join(runtime, "gpumeter.sock") if runtime else None
    if user and (os.path.exists(user) or not os.path.exists(SYSTEM_SOCKET)):
        return user
    return SYSTEM_SOCKET


class Client:
    """One connection to the daemon, opened on first use and reused for every request.

    Thread-safe: requests are serialised, so each reply is read by the thread that asked.
    `timeout` bounds each reply; an `end` that waits for figures takes one to two seconds, and
    the daemon answers one whose sampler is stalled within three intervals plus 5 s.
    """

    def __init__(self, socket_path=None, timeout=60.0):
        self.socket_path = socket_path or default_socket_path()
        self.timeout = timeout
        self._lock = threading.Lock()
        self._socket = None
        self._reader = None

    def request(self, op, **fields):
        """Send one request and return its reply (a dict) when `ok`.

        Raises OSError when the daemon cannot be reached, GpumeterError on an error reply.
        """
        line = json.dumps({"op": op, **fields}, separators=(",", ":")) + "\n"
        with self._lock:
            reply = self._exchange(line.encode("utf-8"))
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise GpumeterError(error.get("code", "unknown"), error.get("message", ""))
        return reply

    def begin(self, name, labels=None):
        """Begin a task now; returns its id."""
        fields = {"name": name}
        if labels:
            fields["labels"] = {str(k): str(v) for k, v in labels.items()}
        return self.request("begin", **fields)["task"]

    def end(self, task_id, wait=True):
        """End a task now; returns the task record (with `usage` when `wait`)."""
        return self.request("end", task=task_id, wait=wait)

    def status(self):
        return self.request("status")

    def close(self):
        with self._lock:
            self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _exchange(self, data):
        # A connection the daemon closed (it restarted) is retried once on a fresh one; a
        # reply that timed out is not: the request may be under way in the daemon.
        for attempt in (0, 1):
            try:
                self._connect()
                self._socket.sendall(data)
                reply = self._reader.readline()
            except socket.timeout:
                self._drop()
                raise
            except OSError:
                self._drop()
                if attempt:
                    raise
                continue
            if reply:
                return json.loads(reply)
            self._drop()
        raise ConnectionError("the daemon closed the connection")

    def _connect(self):
        if self._socket is not None:
            return
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(self.timeout)
        try:
            connection.connect(self.socket_path)
        except OSError:
            connection.close()
            raise
        self._socket = connection
        self._reader = connection.makefile("rb")

    def _drop(self):
        if self._reader is not None:
            self._reader.close()
        if self._socket is not None:
            self._socket.close()
        self._socket = None
        self._reader = None


class Task:
    """A context manager that begins a task on entry and ends it on exit.

    `result` is the usage record (the `end` reply's keys) once the block has left, or None when
    the daemon could not be reached or answered with an error.
    """

    def __init__(self, name, labels=None, client=None, wait=True):
        self.name = name
        self.labels = labels or {}
        self.wait = wait
        self.id = None
        self.result = None
        self._client = client

    def __enter__(self):
        client = self._client or _shared_client()
        try:
            self.id = client.begin(self.name, self.labels)
        except (OSError, ValueError, GpumeterError) as error:
            _warn_once(client, error)
        return self

    def __exit__(self, *exc):
        if self.id is None:
            return False
        client = self._client or _shared_client()
        try:
            self.result = client.end(self.id, wait=self.wait)
        except (OSError, ValueError, GpumeterError) as error:
            _warn_once(client, error)
        return False


def task(name, client=None, wait=True, **labels):
    """`with gpumeter.task("decode", stream="cam3") as t:` — see Task."""
    return Task(name, labels, client=client, wait=wait)


def measured(name, client=None, wait=True, **labels):
    """Decorator: every call of the function is one task named `name`."""

    def decorate(function):
        @wraps(function)
        def wrapper(*args, **kwargs):
            with Task(name, labels, client=client, wait=wait):
                return function(*args, **kwargs)

        return wrapper

    return decorate


_shared = None
_shared_pid = None
_shared_lock = threading.Lock()
_warned = set()


def _shared_client():
    """The process-wide client of task() and measured(), created on first use."""
    global _shared, _shared_pid
    with _shared_lock:
        # A forked child must not share its parent's connection: its tasks would be the
        # parent's (the daemon identifies the process that connected).
        if _shared is None or _shared_pid != os.getpid():
            _shared = Client()
            _shared_pid = os.getpid()
        return _shared


def _warn_once(client, error):
    # A worker without a daemon must keep working; one warning per socket and kind is enough.
    key = (client.socket_path, type(error).__name__, getattr(error, "code", None))
    with _shared_lock:
        if key in _warned:
            return
        _warned.add(key)
    if isinstance(error, GpumeterError):
        text = f"gpumeter: the daemon refused a task request ({error}); tasks are not measured"
    elif isinstance(error, ValueError):
        text = (f"gpumeter: the reply at {client.socket_path} is not the task protocol "
                f"({error}); tasks are not measured")
    else:
        text = (f"gpumeter: no daemon at {client.socket_path} ({error}); "
                "tasks run but are not measured")
    warnings.warn(text, RuntimeWarning, stacklevel=3)
