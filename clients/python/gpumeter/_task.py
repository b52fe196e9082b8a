# SPDX-License-Identifier: MIT
"""Tasks as context managers (`with` and `async with`) and as a decorator (plain and coroutine
functions), with the process-wide client they share and the warnings that stand in for errors:
a worker must keep working when the daemon is absent, refuses or restarts."""

from __future__ import annotations

import functools
import inspect
import os
import threading
import warnings
from typing import Any, Callable, Dict, Optional, TypeVar

from ._client import Client, GpumeterError

_Function = TypeVar("_Function", bound=Callable[..., Any])
_FAILURES = (OSError, ValueError, GpumeterError)


class Task:
    """A context manager that begins a task on entry and ends it on exit, in a `with` or an
    `async with` block (the latter never blocks the event loop).

    `id` is the daemon's task id once begun. `result` is the usage record (the `end` reply's
    keys) once the block has left, or None when the daemon could not be reached, answered with
    an error, or restarted while the task ran (then one warning says so).
    """

    def __init__(self, name: str, labels: Optional[Dict[str, object]] = None,
                 client: Optional[Client] = None, wait: bool = True) -> None:
        self.name = name
        self.labels: Dict[str, object] = labels or {}
        self.wait = wait
        self.id: Optional[int] = None
        self.result: Optional[Dict[str, Any]] = None
        self._client = client
        self._generation = 0

    def __enter__(self) -> Task:
        client = self._bind()
        try:
            self.id = client.begin(self.name, self.labels)
            self._generation = client._generation
        except _FAILURES as error:
            _warn_once(client, error)
        return self

    def __exit__(self, *exc: object) -> bool:
        if self.id is not None:
            client = self._bind()
            try:
                self.result = client.end(self.id, wait=self.wait)
            except _FAILURES as error:
                self._ending_failed(client, error)
        return False

    async def __aenter__(self) -> Task:
        client = self._bind()
        try:
            self.id = await client.abegin(self.name, self.labels)
            self._generation = client._generation
        except _FAILURES as error:
            _warn_once(client, error)
        return self

    async def __aexit__(self, *exc: object) -> bool:
        if self.id is not None:
            client = self._bind()
            try:
                self.result = await client.aend(self.id, wait=self.wait)
            except _FAILURES as error:
                self._ending_failed(client, error)
        return False

    def _bind(self) -> Client:
        return self._client or _shared_client()

    def _ending_failed(self, client: Client, error: Exception) -> None:
        # A task begun before a daemon restart is unknown to the new daemon; the restart has
        # been reported already, once, so its lost tasks need no warning of their own.
        lost = getattr(error, "code", None) == "unknown_task"
        if not (lost and client._generation != self._generation):
            _warn_once(client, error, stacklevel=4)


def task(name: str, client: Optional[Client] = None, wait: bool = True,
         **labels: object) -> Task:
    """`with gpumeter.task("decode", stream="cam3") as t:` (or `async with`): see Task."""
    return Task(name, labels, client=client, wait=wait)


def measured(name: str, client: Optional[Client] = None, wait: bool = True,
             **labels: object) -> Callable[[_Function], _Function]:
    """Decorator: every call of the function is one task named `name`. On a coroutine
    function the task spans the coroutine's run (from the first await of the call until it
    returns), not just the creation of the coroutine object."""

    def decorate(function: _Function) -> _Function:
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def run_measured(*args: Any, **kwargs: Any) -> Any:
                async with Task(name, labels, client=client, wait=wait):
                    return await function(*args, **kwargs)

            return run_measured  # type: ignore[return-value]

        @functools.wraps(function)
        def call_measured(*args: Any, **kwargs: Any) -> Any:
            with Task(name, labels, client=client, wait=wait):
                return function(*args, **kwargs)

        return call_measured  # type: ignore[return-value]

    return decorate


_shared: Optional[Client] = None
_shared_pid: Optional[int] = None
_shared_lock = threading.Lock()
_warned = set()


def _shared_client() -> Client:
    """The process-wide client of task() and measured(), created on first use."""
    global _shared, _shared_pid
    with _shared_lock:
        # A forked child must not share its parent's connection: its tasks would be the
        # parent's (the daemon identifies the process that connected).
        if _shared is None or _shared_pid != os.getpid():
            _shared = Client()
            _shared_pid = os.getpid()
        return _shared


def _warn_once(client: Client, error: Exception, stacklevel: int = 3) -> None:
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
        text = (f"gpumeter: no daemon at {client.socket_path} ({_reason(client, error)}); "
                "tasks run but are not measured")
    warnings.warn(text, RuntimeWarning, stacklevel=stacklevel)


def _reason(client: Client, error: Exception) -> str:
    # A failed connect names the socket already, which the warning names too.
    if isinstance(error, OSError) and error.errno and error.filename == client.socket_path:
        return os.strerror(error.errno)
    return str(error)
