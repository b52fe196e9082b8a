#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Start-up cost of gpumeter's one-shot commands against a C floor (bench/nvml_floor.c: load
the same simulated NVML library, nvmlInit, nvmlDeviceGetCount, print), all in one run so that
the ratio compares like with like (docs/benchmarks.md, "Start-up").

Usage: bench/startup.py [BUILD_DIR] [SCENARIO] [RUNS]

Each command runs RUNS times after 10 warm-up runs, the commands taking turns (one run of each,
then the next round), so that a change in the machine's load falls on all of them alike; the
figures are medians of the child's CPU time (user + system, from wait4) and of its wall time."""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
build = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build" / "release"
scenario = Path(sys.argv[2]) if len(sys.argv) > 2 else root / "examples/scenarios/dgx-8gpu.json"
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 200
library = build / "lib" / "gpumeter" / "sim" / "libnvidia-ml.so.1"
gpumeter = str(build / "bin" / "gpumeter")


def once(command, env):
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(command)} failed")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall * 1000


def measure_in_turns(cases):
    """Medians of (CPU ms, wall ms) per case, the cases run in turns."""
    for _ in range(10):  # the page cache
        for _, command, env in cases:
            once(command, env)
    samples = [[] for _ in cases]
    for _ in range(runs):
        for i, (_, command, env) in enumerate(cases):
            samples[i].append(once(command, env))
    return [(statistics.median(c for c, _ in s), statistics.median(w for _, w in s))
            for s in samples]


with tempfile.TemporaryDirectory() as scratch:
    floor = Path(scratch) / "nvml_floor"
    subprocess.run(["cc", "-O2", str(root / "bench" / "nvml_floor.c"), "-o", str(floor), "-ldl"],
                   check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
    floor_env = dict(env, GPUMETER_SIM_SCENARIO=str(scenario))
    cases = [
        ("C floor (dlopen, nvmlInit, nvmlDeviceGetCount)", [str(floor), str(library)], floor_env),
        ("gpumeter --version", [gpumeter, "--version"], env),
        ("gpumeter list --json", [gpumeter, "--simulate", str(scenario), "list", "--json"], env),
        ("gpumeter info --json", [gpumeter, "--simulate", str(scenario), "info", "--json"], env),
    ]
    print(f"{scenario.name}, {runs} runs each, in turns; medians")
    measured = measure_in_turns(cases)
    floor_cpu = measured[0][0]
    for (name, _, _), (cpu, wall) in zip(cases, measured):
        print(f"  {name:48} CPU {cpu:6.2f} ms  wall {wall:6.2f} ms  "
              f"CPU {cpu / floor_cpu:4.2f}x the floor")
