# SPDX-License-Identifier: MIT
"""One pipelined connection to the daemon: requests are written at once by the calling thread,
and a reader thread hands each reply to the future of the request it answers.

The protocol answers in request order on a connection, so the futures wait in a queue in the
order their requests were written. No thread ever holds a lock while it waits for a reply:
the write lock covers building and writing one line (microseconds).
"""

from __future__ import annotations

import collections
import json
import os
import socket
import threading
from concurrent.futures import Future, InvalidStateError
from typing import Callable, Deque, Dict, Optional


class Reconnect(ConnectionError):
    """The daemon closed the connection (it exited or restarted): the request may be sent again
    on a fresh connection."""


class Connection:
    """A connected socket with its reader thread. Raises OSError when connect() fails."""

    def __init__(self, path: str) -> None:
        self.pid = os.getpid()  # a forked child must not read its parent's replies
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.connect(path)
        except OSError:
            self._socket.close()
            raise
        self._pending: Deque[Future] = collections.deque()
        self._write_lock = threading.Lock()
        self._broken: Optional[BaseException] = None
        threading.Thread(target=self._read, name="gpumeter-reader", daemon=True).start()

    @property
    def alive(self) -> bool:
        return self._broken is None and self.pid == os.getpid()

    @property
    def pending(self) -> int:
        """Requests written whose replies have not arrived."""
        return len(self._pending)

    def submit(self, build: Callable[[], bytes]) -> Future:
        """Writes the line that `build` makes (called under the write lock, right before the
        write) and returns the future of its reply. Raises OSError when the write fails."""
        future: Future = Future()
        with self._write_lock:
            if isinstance(self._broken, ValueError):  # the daemon does not speak the protocol
                raise ValueError(str(self._broken))
            if self._broken is not None:
                raise Reconnect(f"the connection to the daemon was closed ({self._broken})")
            data = build()
            self._pending.append(future)
            try:
                self._socket.sendall(data)
            except OSError as error:
                self._pending.pop()
                self._break(Reconnect(f"the daemon closed the connection ({error})"))
                raise Reconnect(f"the daemon closed the connection ({error})") from error
        return future

    def close(self, reason: Optional[BaseException] = None) -> None:
        """Closes the connection; requests still waiting fail with `reason` (a ConnectionError
        that is not retried: the daemon may have carried them out)."""
        if self.pid != os.getpid():
            self._socket.close()  # the parent's connection: shutdown() would cut it there too
            return
        with self._write_lock:
            self._break(reason or ConnectionError("the connection was closed by the client"))
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the reader
        except OSError:
            pass  # the daemon closed it already
        self._socket.close()

    def _break(self, reason: BaseException) -> None:
        if self._broken is None:
            self._broken = reason

    def _read(self) -> None:
        reason: BaseException = Reconnect("the daemon closed the connection")
        try:
            with self._socket.makefile("rb") as reader:
                for line in reader:
                    if line.strip():
                        self._resolve(parse_reply(line))
        except ValueError as error:  # the replies cannot be matched to requests any more
            reason = error
        except OSError as error:
            reason = Reconnect(f"the connection to the daemon failed ({error})")
        with self._write_lock:
            self._break(reason)
            reason = self._broken or reason
            waiting, self._pending = list(self._pending), collections.deque()
        for future in waiting:
            _settle(future, exception=reason)
        self._socket.close()

    def _resolve(self, reply: Dict) -> None:
        if not self._pending:
            raise ValueError("a reply came that no request asked for")
        _settle(self._pending.popleft(), result=reply)


def parse_reply(line: bytes) -> Dict:
    """One reply line as a dict; ValueError when it is not a JSON object."""
    try:
        reply = json.loads(line)
    except ValueError as error:
        raise ValueError(f"a reply is not JSON: {line[:80]!r}") from error
    if not isinstance(reply, dict):
        raise ValueError(f"a reply is not a JSON object: {line[:80]!r}")
    return reply


def _settle(future: Future, result: object = None, exception: Optional[BaseException] = None):
    # A caller that gave up (an asyncio timeout cancels its future) no longer wants the reply.
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass
