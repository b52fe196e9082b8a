# SPDX-License-Identifier: MIT
"""An event-driven worker for task_truth_test.py: it runs a plan of tasks at scripted scenario
times, marking each with the bundled Python client, and writes what it knows of each task
itself: its CPU time, its resident memory and (at `end`) the kernel's high-water mark, each
just before and just after `begin` and `end`.

    truth_worker.py SOCKET PLAN_JSON OUT_JSON

PLAN_JSON: [{"begin_s": B, "end_s": E, "cpu_fraction": F, "touch_mib": M}, ...] in scenario
seconds (GPUMETER_SIM_EPOCH_US is the epoch). During a task the worker spins the CPU for
F of the time and sleeps the rest, and in the middle fills and frees M MiB (its peak).
The GPU side of each task is scripted in the scenario, not here.
"""

import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(os.environ["GPUMETER_SOURCE_DIR"]) / "clients" / "python"))
import gpumeter  # noqa: E402  (the bundled client, from the source tree)

PAGE = os.sysconf("SC_PAGE_SIZE")


def cpu_us():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round((usage.ru_utime + usage.ru_stime) * 1e6)


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def high_water_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def spin_until(deadline):
    while time.time() < deadline:
        pass


def work(step, begin, end):
    """Spin for cpu_fraction of each tenth of [begin, end] (wall-clock seconds), sleep the rest,
    and fill touch_mib in the middle; returns at `end`."""
    slices = 10
    length = (end - begin) / slices
    for index in range(slices):
        start = begin + index * length
        spin_until(min(end, start + length * step["cpu_fraction"]))
        if index == slices // 2 and step["touch_mib"]:
            block = bytearray(step["touch_mib"] << 20)  # zero-filled: every page touched
            del block
        time.sleep(max(0.0, start + length - time.time()))


def run_task(client, step, epoch_s):
    begin, end = epoch_s + step["begin_s"], epoch_s + step["end_s"]
    time.sleep(max(0.0, begin - time.time()))
    truth = {"cpu_before_us": cpu_us(), "rss_at_start_bytes": rss_bytes()}
    # How late each marker leaves against the plan, which scripts the GPU side on time: on a
    # loaded machine the worker wakes late, and its GPU work then starts before its `begin`.
    truth["begin_late_s"] = time.time() - begin
    task_id = client.begin("truth")
    # The client reads its CPU time inside begin and end: between these inner readings and
    # the outer ones around the markers (whatever a loaded machine makes those calls cost).
    truth["cpu_after_begin_us"] = cpu_us()
    truth["rss_after_begin_bytes"] = rss_bytes()
    work(step, begin, end)
    # Read just before the end is sent, as the start was just before the begin: the daemon
    # reads the process when the request arrives, while the worker waits on it.
    truth["peak_rss_bytes"] = high_water_bytes()
    truth["rss_at_end_bytes"] = rss_bytes()
    truth["end_late_s"] = time.time() - end
    truth["cpu_before_end_us"] = cpu_us()
    client.end(task_id, wait=False)
    truth["cpu_after_us"] = cpu_us()
    truth["rss_after_end_bytes"] = rss_bytes()
    truth["peak_rss_after_end_bytes"] = high_water_bytes()
    truth["task"] = task_id
    return truth


def main(socket_path, plan_path, out_path):
    epoch_s = int(os.environ["GPUMETER_SIM_EPOCH_US"]) / 1e6
    plan = json.loads(Path(plan_path).read_text())
    # The worker is spawned before the daemon (which must know its pid): wait for its socket.
    deadline = time.time() + 120
    while not os.path.exists(socket_path) and time.time() < deadline:
        time.sleep(0.05)
    with gpumeter.Client(socket_path) as client:
        # Connect first: the connection and its reader thread take memory of their own,
        # which would otherwise land between the worker's reading and the daemon's.
        client.status()
        truths = [run_task(client, step, epoch_s) for step in plan]
    Path(out_path).write_text(json.dumps(truths))


if __name__ == "__main__":
    main(*sys.argv[1:4])
