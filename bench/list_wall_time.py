#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole-process wall time of a one-shot command (default `list --json`: start, dlopen, init,
every query, render, exit) on a simulated scenario, as a person or a script would pay it, with
the simulated driver's calls costing what a real driver's cost (GPUMETER_SIM_CALL_COSTS=
typical; "off" measures gpumeter alone).

Usage: bench/list_wall_time.py [BUILD_DIR] [SCENARIO] [RUNS] [COSTS] [COMMAND...]
  e.g. bench/list_wall_time.py build/release examples/scenarios/dgx-8gpu.json 50 typical info
"""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
build = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build" / "release"
scenario = Path(sys.argv[2]) if len(sys.argv) > 2 else root / "examples/scenarios/dgx-8gpu.json"
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 200

costs = sys.argv[4] if len(sys.argv) > 4 else "typical"
subcommand = sys.argv[5:] or ["list", "--json"]

command = [str(build / "bin" / "gpumeter"), "--simulate", str(scenario), *subcommand]
env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
env["GPUMETER_SIM_CALL_COSTS"] = costs
for _ in range(10):  # warm the page cache
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
samples = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"gpumeter {' '.join(subcommand)}, {scenario.name}, call costs {costs}, {runs} runs: "
      f"median {statistics.median(samples):.2f} ms, "
      f"p90 {samples[int(0.9 * runs)]:.2f} ms, min {samples[0]:.2f} ms, max {samples[-1]:.2f} ms")
