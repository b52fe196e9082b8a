#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How late the Python client's task markers reach the daemon when threads share a client.

Starts `gpumeter --simulate SCENARIO daemon` on a private socket (no history, no HTTP), then
runs THREADS threads that share one gpumeter.Client; each runs TASKS tasks back to back: it
begins a task, works for a random 0-50 ms, and ends it waiting for the figures (as a worker
that reads them does), so that at any moment most threads wait for an `end` reply while
others begin and end. For every begin and end it takes the wall clock just before the call
and compares it with the time the daemon stamped when it read the request (`begin_time_us`,
`end_time_us` in the replies: the same clock, µs since the epoch). It prints per-kind
median, p99 and maximum of that delay, and how long `begin` took to return.

Usage: bench/python_task_latency.py [--build DIR] [--scenario FILE] [--threads N]
           [--tasks N] [--interval DURATION] [--client DIR]
`--client DIR` imports the gpumeter package from DIR instead of clients/python (to compare
with another version of the client).
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_daemon(build, scenario, interval, directory):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
    socket_path = os.path.join(directory, "gpumeter.sock")
    command = [str(Path(build) / "bin" / "gpumeter"), "--simulate", str(scenario), "daemon",
               "--socket", socket_path, "--history", "false", "--no-http",
               "--interval", interval]
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(socket_path):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"the daemon did not start: {process.communicate()[1]}")
        time.sleep(0.05)
    return process, socket_path


def now_us():
    return time.time_ns() // 1000


def worker(client, tasks, samples, lock):
    mine = {"begin": [], "end": [], "begin_return": []}
    for _ in range(tasks):
        called, started = now_us(), time.monotonic()
        begun = client.request("begin", name="bench")
        mine["begin_return"].append((time.monotonic() - started) * 1e6)
        mine["begin"].append(begun["begin_time_us"] - called)
        time.sleep(random.uniform(0.0, 0.05))
        called = now_us()
        ended = client.request("end", task=begun["task"])
        mine["end"].append(ended["end_time_us"] - called)
    with lock:
        for kind, values in mine.items():
            samples[kind].extend(values)


def describe(values):
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"median {statistics.median(ordered) / 1000:.2f} ms, p99 {p99 / 1000:.2f} ms, "
            f"max {ordered[-1] / 1000:.2f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=ROOT / "build" / "ci")
    parser.add_argument("--scenario", default=ROOT / "bench" / "bench-8x64.json")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=25, help="tasks per thread")
    parser.add_argument("--interval", default="100ms", help="the daemon's sampler interval")
    parser.add_argument("--client", default=ROOT / "clients" / "python")
    args = parser.parse_args()
    sys.path.insert(0, str(args.client))
    import gpumeter

    with tempfile.TemporaryDirectory() as directory:
        daemon, socket_path = start_daemon(args.build, args.scenario, args.interval, directory)
        try:
            samples = {"begin": [], "end": [], "begin_return": []}
            lock = threading.Lock()
            with gpumeter.Client(socket_path) as client:
                client.request("status")
                threads = [threading.Thread(target=worker, args=(client, args.tasks, samples,
                                                                 lock))
                           for _ in range(args.threads)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
        finally:
            daemon.terminate()
            daemon.communicate(timeout=60)
    print(f"{args.threads} threads x {args.tasks} tasks, daemon interval {args.interval}, "
          f"client {args.client}")
    print(f"begin read by the daemon after the call: {describe(samples['begin'])}")
    print(f"end read by the daemon after the call:   {describe(samples['end'])}")
    print(f"begin returned after the call:           {describe(samples['begin_return'])}")


if __name__ == "__main__":
    main()
