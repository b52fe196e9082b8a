# SPDX-License-Identifier: MIT
"""What the GPUs of this machine look like now, from `gpumeter list --json` (docs/cli.md): the
calls nvgpu's users know, with nvgpu's shapes, and richer ones with gpumeter's.

    import gpumeter
    gpumeter.available_gpus()        # ['0', '4', '5']: free GPUs' indices, as strings
    gpumeter.gpu_info()              # [{'index': '0', 'type': ..., 'uuid': ..., 'mem_used': MiB, ...}]
    gpumeter.devices()               # list --json's GPU documents (schemas/list.schema.json)
    gpumeter.processes()             # every process on a GPU, with its GPU index

The `gpumeter` executable is found on PATH, or at $GPUMETER_BIN.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from ._client import GpumeterError

if TYPE_CHECKING:
    import subprocess

# shutil and subprocess are imported by the calls that need them, not with the package: a
# worker that only marks tasks keeps its memory as it was (the task figures read its RSS).

_MIB = 1 << 20


def _executable() -> str:
    import shutil

    path = os.environ.get("GPUMETER_BIN") or shutil.which("gpumeter")
    if not path:
        raise GpumeterError("not_found", "the gpumeter executable is not on PATH (or set GPUMETER_BIN "
                                         "to its path)")
    return path


def _run(arguments: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    import subprocess

    executable = _executable()
    try:
        return subprocess.run([executable, *arguments], capture_output=True, text=True, timeout=120,
                              check=False)
    except OSError as error:
        raise GpumeterError("not_found", f"cannot run {executable}: {error.strerror}") from None


def _served(server: str, token: Optional[str]) -> Dict[str, Any]:
    """GET /api/v1/status of the daemon at `server`: the list --json document of its machine."""
    import urllib.error
    import urllib.request

    url = server.rstrip("/") + "/api/v1/status"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read().decode())
    except urllib.error.HTTPError as error:
        raise GpumeterError("no_gpu", f"{url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        raise GpumeterError("not_found", f"{url}: cannot connect ({error})") from None


def _listed(server: Optional[str], token: Optional[str]) -> Dict[str, Any]:
    if server is not None:
        return _served(server, token)
    result = _run(["list", "--json"])
    if result.returncode != 0:
        raise GpumeterError("no_gpu", result.stderr.strip() or f"gpumeter list exited {result.returncode}")
    return json.loads(result.stdout)


def devices(server: Optional[str] = None, token: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every GPU as `gpumeter list --json` describes it (schemas/list.schema.json): figures a GPU
    cannot give are None, with the reason in its "unavailable" object. With `server` (a gpumeter
    daemon's URL, "http://node02:9416"), that machine's GPUs, from its /api/v1/status (`token`:
    its bearer token, when it asks for one)."""
    return list(_listed(server, token)["gpus"])


def processes(server: Optional[str] = None, token: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every process on a GPU, as list --json describes it, with "gpu" (the GPU's index) added.
    A GPU whose process list cannot be read contributes none. `server`, `token`: as devices()."""
    found = []
    for gpu in devices(server, token):
        for process in gpu.get("processes") or []:
            found.append({**process, "gpu": gpu["index"]})
    return found


def _mib(value: Optional[float]) -> Optional[int]:
    return None if value is None else int(value) // _MIB


def gpu_info(server: Optional[str] = None, token: Optional[str] = None) -> List[Dict[str, Any]]:
    """nvgpu's gpu_info(): one dict per GPU with 'index' (a string), 'type' (the product name),
    'uuid', 'mem_used' and 'mem_total' (MiB) and 'mem_used_percent'. A figure the GPU cannot
    give is None where nvgpu would have failed. `server`, `token`: as devices()."""
    info = []
    for gpu in devices(server, token):
        used, total = _mib(gpu.get("memory_used_bytes")), _mib(gpu.get("memory_total_bytes"))
        percent = 100.0 * used / total if used is not None and total else None
        info.append({"index": str(gpu["index"]), "type": gpu.get("name"), "uuid": gpu.get("uuid"),
                     "mem_used": used, "mem_total": total, "mem_used_percent": percent})
    return info


def available_gpus(limit: Optional[int] = None, max_memory: float = 20.0,
                   max_utilization: float = 20.0) -> List[str]:
    """nvgpu's available_gpus(): the indices of the free GPUs, as strings, lowest first: at most
    `max_memory` percent of the memory and `max_utilization` percent of the time in use
    (`gpumeter available`). With `limit`, that many (reserved for 30 s against concurrent calls,
    as `gpumeter available -l` does), or GpumeterError when fewer are free; without it every free
    GPU, possibly none."""
    arguments = ["available", "--max-memory", str(max_memory), "--max-util", str(max_utilization)]
    if limit is not None:
        if limit < 1:
            raise ValueError("limit must be at least 1 (None: every free GPU)")
        arguments += ["-l", str(limit)]
    result = _run(arguments)
    if result.returncode == 1 and limit is None:
        return []  # none free: nvgpu answers an empty list
    if result.returncode != 0:
        raise GpumeterError("no_gpu", result.stderr.strip() or f"gpumeter available exited {result.returncode}")
    return [index for index in result.stdout.strip().split(",") if index]
