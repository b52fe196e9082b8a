# SPDX-License-Identifier: MIT
"""The client: requests to the daemon from any number of threads and event loops.

Two kinds of connection, both pipelined (see _connection.py), so that no request waits behind
another's reply:

- one *fast* connection for the requests the daemon answers at once (`begin`, an `end` that
  does not wait, `status`, `query`);
- a small pool for the `end`s that wait one to two seconds for their figures. A waiting end
  takes an idle connection of the pool, or opens one while the pool holds fewer than
  MAX_WAIT_CONNECTIONS; beyond that, ends share the least busy one (their replies then come in
  the order the ends were sent, which is about the order their figures are ready anyway).

Every request is written by the calling thread the moment it is made, so the daemon reads it
(and stamps the task's begin or end) at once, whatever other threads are waiting for.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import threading
import warnings
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ._connection import Connection, Reconnect

PROTOCOL_VERSION = 1
SYSTEM_SOCKET = "/run/gpumeter/gpumeter.sock"
MAX_WAIT_CONNECTIONS = 4
_PROBE_ID = "gpumeter.daemon"  # the id of the status request each new connection starts with


class GpumeterError(Exception):
    """The daemon answered with an error reply; `code` is the protocol's stable word
    (`unknown_task`, `not_permitted`, `limit_reached`, ...: docs/task-protocol.md). The GPU calls
    (_gpus.py) raise it too: `not_found` (no gpumeter executable), `no_gpu` (gpumeter could not
    read the GPUs, or fewer are free than asked for; the message is gpumeter's)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def default_socket_path() -> str:
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


def own_cpu_times() -> Dict[str, int]:
    """This process's CPU time so far, as the `rusage` key of begin and end (µs)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"user_us": round(usage.ru_utime * 1e6), "system_us": round(usage.ru_stime * 1e6)}


class Client:
    """Connections to one daemon, opened on first use and reused; thread-safe and usable from
    asyncio (the `a...` methods). `timeout` (seconds) bounds each reply: a waiting `end` takes
    one to two seconds, and the daemon answers one whose sampler is stalled within three
    sampler intervals plus 5 s.

    The synchronous methods raise OSError when the daemon cannot be reached (the error names
    the socket) or does not answer within `timeout` (TimeoutError), GpumeterError on an error
    reply, and ValueError on a reply that is not the protocol.
    """

    def __init__(self, socket_path: Optional[str] = None, timeout: float = 60.0) -> None:
        self.socket_path: str = socket_path or default_socket_path()
        self.timeout: float = timeout
        self._lock = threading.Lock()  # the connections; never held while waiting for a reply
        self._daemon_lock = threading.Lock()  # what is known of the daemon (reader threads)
        self._pid = os.getpid()
        self._fast: Optional[Connection] = None
        self._waiting: List[Connection] = []
        self._daemon: Optional[Tuple[Any, Any]] = None  # (start_time_us, pid) last seen
        self._generation = 0  # counts the daemon restarts seen
        self._restart_unreported = False
        self._send_rusage = True  # False after a daemon older than the `rusage` key refused it
        self._foreign_tasks: Set[int] = set()  # begun for another process: no rusage at end

    def request(self, op: str, **fields: Any) -> Dict[str, Any]:
        """Send one request and return its reply (a dict) when `ok`."""
        rusage = self._carries_rusage(op, fields)
        for attempt in (0, 1):
            connection, future = self._send(op, fields, rusage)
            try:
                reply = future.result(self.timeout)
            except FutureTimeout:
                raise self._timed_out(connection) from None
            except Reconnect:
                if attempt:
                    raise
                continue
            finally:
                self._report_restart()
            if attempt or not self._refused_rusage(reply, rusage):
                return _checked(reply)
            rusage = False
        raise AssertionError("unreachable")

    async def arequest(self, op: str, **fields: Any) -> Dict[str, Any]:
        """request() for asyncio: the request is written at once, and the reply is awaited
        without blocking the event loop."""
        rusage = self._carries_rusage(op, fields)
        for attempt in (0, 1):
            connection, future = self._send(op, fields, rusage)
            try:
                reply = await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
            except asyncio.TimeoutError:
                raise self._timed_out(connection) from None
            except Reconnect:
                if attempt:
                    raise
                continue
            finally:
                self._report_restart()
            if attempt or not self._refused_rusage(reply, rusage):
                return _checked(reply)
            rusage = False
        raise AssertionError("unreachable")

    def begin(self, name: str, labels: Optional[Mapping[str, object]] = None,
              pid: Optional[int] = None) -> int:
        """Begin a task now and return its id. `pid`: another process's task (root only)."""
        return self._begun(self.request("begin", **_begin_fields(name, labels, pid)), pid)

    async def abegin(self, name: str, labels: Optional[Mapping[str, object]] = None,
                     pid: Optional[int] = None) -> int:
        """begin() for asyncio."""
        return self._begun(await self.arequest("begin", **_begin_fields(name, labels, pid)), pid)

    def end(self, task_id: int, wait: bool = True) -> Dict[str, Any]:
        """End a task now; returns the task record (with `usage` when `wait`)."""
        return self.request("end", task=task_id, wait=wait)

    async def aend(self, task_id: int, wait: bool = True) -> Dict[str, Any]:
        """end() for asyncio: the event loop runs on while the figures are awaited."""
        return await self.arequest("end", task=task_id, wait=wait)

    def status(self) -> Dict[str, Any]:
        """The daemon's status reply (docs/task-protocol.md)."""
        return self.request("status")

    def close(self) -> None:
        """Closes the connections; requests still waiting fail with ConnectionError."""
        with self._lock:
            connections = [self._fast, *self._waiting]
            self._fast, self._waiting = None, []
        for connection in connections:
            if connection is not None:
                connection.close()

    def __del__(self) -> None:
        # A client dropped without close() must not keep its connections and their reader
        # threads: the daemon serves at most 256 connections.
        self.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, op: str, fields: Mapping[str, Any], rusage: bool) -> Tuple[Connection, Future]:
        request = {"op": op, **fields}

        def build() -> bytes:
            if rusage:
                request["rusage"] = own_cpu_times()
            return _line(request)

        waits = op == "end" and fields.get("wait", True) is not False
        with self._lock:
            connection = self._waiting_connection() if waits else self._fast_connection()
            try:
                return connection, connection.submit(build)
            except Reconnect:
                pass
        # The daemon closed this connection before the request went out: the same on a new one.
        with self._lock:
            connection = self._waiting_connection() if waits else self._fast_connection()
            return connection, connection.submit(build)

    def _begun(self, reply: Dict[str, Any], pid: Optional[int]) -> int:
        if pid is not None and pid != os.getpid():
            with self._daemon_lock:
                self._foreign_tasks.add(reply["task"])
        return reply["task"]

    def _carries_rusage(self, op: str, fields: Mapping[str, Any]) -> bool:
        # Another process's CPU time is not ours to report: the daemon refuses the pair.
        with self._daemon_lock:
            if op == "end" and fields.get("task") in self._foreign_tasks:
                self._foreign_tasks.discard(fields.get("task"))
                return False
            if op not in ("begin", "end") or "rusage" in fields or not self._send_rusage:
                return False
        return fields.get("pid") in (None, os.getpid())

    def _fast_connection(self) -> Connection:
        self._forget_parent()
        if self._fast is None or not self._fast.alive:
            self._fast = self._open()
        return self._fast

    def _waiting_connection(self) -> Connection:
        self._forget_parent()
        self._waiting = [c for c in self._waiting if c.alive]
        # Idle connections stay for the next burst: the pool is small, and opening one costs
        # a connect, a status request and a thread.
        idle = [c for c in self._waiting if c.pending == 0]
        if idle:
            return idle[0]
        if len(self._waiting) < MAX_WAIT_CONNECTIONS:
            self._waiting.append(self._open())
            return self._waiting[-1]
        return min(self._waiting, key=lambda c: c.pending)

    def _forget_parent(self) -> None:
        # After fork() the connections are the parent's (its tasks, its reader threads).
        if self._pid != os.getpid():
            for connection in [self._fast, *self._waiting]:
                if connection is not None:
                    connection.close()
            self._fast, self._waiting, self._pid = None, [], os.getpid()

    def _open(self) -> Connection:
        try:
            connection = Connection(self.socket_path)
        except OSError as error:
            raise type(error)(error.errno, f"cannot connect to the gpumeter daemon "
                              f"({error.strerror})", self.socket_path) from None
        # Who answers: a new start time or pid means the daemon restarted in between.
        probe = connection.submit(lambda: _line({"op": "status", "id": _PROBE_ID}))
        probe.add_done_callback(self._note_daemon)
        return connection

    def _note_daemon(self, probe: Future) -> None:
        # Runs on the reader thread before the next reply on that connection is handed out, so
        # a reply that follows a restart is seen after the restart is known.
        if probe.cancelled() or probe.exception() is not None:
            return
        daemon = probe.result().get("daemon")
        if not isinstance(daemon, dict) or daemon.get("start_time_us") is None:
            return  # an older daemon: restarts cannot be told
        seen = (daemon.get("start_time_us"), daemon.get("pid"))
        with self._daemon_lock:
            if self._daemon is not None and seen != self._daemon:
                self._generation += 1
                self._restart_unreported = True
                self._send_rusage = True
            self._daemon = seen

    def _report_restart(self) -> None:
        with self._daemon_lock:
            report, self._restart_unreported = self._restart_unreported, False
        if report:
            warnings.warn(f"gpumeter: the daemon at {self.socket_path} restarted; tasks begun "
                          "before it are lost", RuntimeWarning, stacklevel=4)

    def _refused_rusage(self, reply: Dict[str, Any], rusage: bool) -> bool:
        # A daemon older than the `rusage` key refuses it as a key begin and end do not define;
        # the refused request did nothing, so it is sent again without the key.
        error = reply.get("error") or {}
        if rusage and error.get("code") == "bad_request" and '"rusage"' in error.get("message", ""):
            with self._daemon_lock:
                self._send_rusage = False
            return True
        return False

    def _timed_out(self, connection: Connection) -> TimeoutError:
        # The request may be under way in the daemon, so it is not sent again; the connection
        # goes, since a late reply would be out of step.
        error = TimeoutError(f"no reply from the gpumeter daemon at {self.socket_path} within "
                             f"{self.timeout} s")
        connection.close(ConnectionError(f"an earlier request timed out ({error})"))
        return error


def _begin_fields(name: str, labels: Optional[Mapping[str, object]],
                  pid: Optional[int]) -> Dict[str, Any]:
    fields: Dict[str, Any] = {"name": name}
    if labels:
        fields["labels"] = {str(k): str(v) for k, v in labels.items()}
    if pid is not None:
        fields["pid"] = pid
    return fields


def _line(request: Mapping[str, Any]) -> bytes:
    return (json.dumps(request, separators=(",", ":")) + "\n").encode("utf-8")


def _checked(reply: Dict[str, Any]) -> Dict[str, Any]:
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise GpumeterError(error.get("code", "unknown"), error.get("message", ""))
    return reply

