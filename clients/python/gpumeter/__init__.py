# SPDX-License-Identifier: MIT
"""Mark tasks for `gpumeter daemon` from a Python worker (standard library only).

    import gpumeter

    with gpumeter.task("decode", stream="cam3") as t:
        decode(frame)
    print(t.result)          # the usage record of the `end` reply, or None

    @gpumeter.measured("decode")
    def decode(frame): ...

    async with gpumeter.task("infer") as t:    # and @measured on `async def`
        await infer(batch)

And, as nvgpu's users know them, which GPUs are free (from `gpumeter list`, _gpus.py):

    gpumeter.available_gpus()   # ['0', '4']
    gpumeter.gpu_info()         # [{'index': '0', 'type': ..., 'mem_used': 812, ...}]

The daemon speaks newline-delimited JSON over a Unix socket (docs/task-protocol.md). When no
daemon is reachable the worker keeps working: one warning is issued and `result` stays None.
Threads and event loops share a client without waiting for each other: a request is written
the moment it is made, and an `end` that waits for its figures holds no lock (_client.py).
"""

from . import _client
from ._client import Client, GpumeterError, default_socket_path
from ._gpus import available_gpus, devices, gpu_info, processes
from ._task import Task, measured, task

PROTOCOL_VERSION = _client.PROTOCOL_VERSION  # the task protocol version this client speaks
SYSTEM_SOCKET = _client.SYSTEM_SOCKET  # the system daemon's socket, the last default

__all__ = ["Client", "GpumeterError", "Task", "available_gpus", "default_socket_path", "devices",
           "gpu_info", "measured", "processes", "task"]
