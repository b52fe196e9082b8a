#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An event-driven worker: it idles, receives tasks at random times and marks each one for
`gpumeter daemon`, printing what the daemon measured. Runs without a daemon too (one warning).

    PYTHONPATH=clients/python python3 examples/workers/python_worker.py [--tasks N] [--socket PATH]
"""

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
import gpumeter  # noqa: E402


def busy(seconds):
    """Stand-in for real work (decoding a frame, running a model): spin the CPU."""
    deadline = time.monotonic() + seconds
    total = 0
    while time.monotonic() < deadline:
        total += sum(range(1000))
    return total


def summary(result):
    if result is None or result.get("usage") is None:
        return "not measured"
    usage = result["usage"]
    gpus = ", ".join(f"GPU {g['index']} SM {g.get('sm_percent')}%" for g in usage["gpus"])
    host = usage["host"]
    return f"{result['duration_seconds']:.2f} s; {gpus or 'no GPU'}; CPU {host.get('cpu_user_seconds')} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=5, help="tasks to run, then exit")
    parser.add_argument("--socket", help="the daemon's socket (default: as gpumeter finds it)")
    parser.add_argument("--max-idle", type=float, default=2.0, help="longest idle gap, seconds")
    parser.add_argument("--json", action="store_true", help="print each result as JSON")
    args = parser.parse_args()
    client = gpumeter.Client(args.socket)
    for number in range(args.tasks):
        time.sleep(random.uniform(0.0, args.max_idle))  # waiting for the next request
        with gpumeter.task("decode", client=client, stream=f"cam{number % 4}") as t:
            busy(random.uniform(0.1, 0.5))
        print(json.dumps(t.result) if args.json else f"task {number}: {summary(t.result)}",
              flush=True)
    client.close()


if __name__ == "__main__":
    main()
