#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Times `gpumeter report` over a generated year of history: 8 GPUs shared by 50 users.

The year is generated as bench/store_bench.cpp generates it: on each GPU, one job after another,
each of a random user, 1-12 hours long with 1-4 processes and a random SM use, with gaps of up to
two hours, recorded as hourly intervals; per-minute detail only for the last 30 days, as the
default retention leaves it. It is written through the store's own writer (history_writer, built
with the tests), then each report command runs --runs times and the wall time of the whole
process (start, open, query, print) is reported (median, fastest, slowest), with the median CPU
time (user + system).

  cmake --build build/dev --target gpumeter history_writer
  scripts/report_bench.py --build-dir build/dev
"""

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US
T0_US = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z
GPUS = 8
USERS = 50


def year_of_jobs(seed):
    """Interval lines for history_writer, in time order per GPU."""
    rng = random.Random(seed)
    pid = 1000
    end_of_year = T0_US + 365 * DAY_US
    for gpu in range(GPUS):
        t = T0_US
        while t < end_of_year:
            user, hours, count = rng.randint(0, USERS - 1), rng.randint(1, 12), rng.randint(1, 4)
            busy = rng.randint(0, 100) / 100
            for _ in range(count):
                for h in range(hours):
                    begin = t + h * HOUR_US
                    yield {"pid": pid, "start_time_us": t, "gpu_uuid": f"GPU-bench-{gpu}",
                           "gpu_index": gpu, "uid": 2000 + user, "user": f"user{user}",
                           "command": "python job.py", "begin_us": begin,
                           "end_us": begin + HOUR_US, "held_seconds": 3600.0,
                           "sm_busy_seconds": 3600 * busy,
                           "peak_memory_bytes": 8 << 30,
                           "energy_joules": 3600 * 250 * busy, "final": h == hours - 1}
                pid += 1
            t += hours * HOUR_US + rng.randint(0, 120) * 60_000_000


def generate(writer, database, seed):
    started = time.monotonic()
    process = subprocess.Popen([writer, str(database), "--host", "bench", "--prune-at",
                                str(T0_US + 365 * DAY_US)], stdin=subprocess.PIPE, text=True)
    lines = 0
    processes = set()
    for line in year_of_jobs(seed):
        process.stdin.write(json.dumps(line) + "\n")
        processes.add(line["pid"])
        lines += 1
    process.stdin.close()
    if process.wait() != 0:
        sys.exit("history_writer failed")
    size = database.stat().st_size / (1 << 20)
    print(f"generated {len(processes)} processes, {lines} hourly intervals in "
          f"{time.monotonic() - started:.1f} s; {database} is {size:.1f} MiB")


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(command, runs):
    """Wall and CPU (user + system) seconds of each run; the CPU time is the steadier figure on
    a machine shared with other work."""
    env = dict(os.environ, TZ="UTC0")
    walls, cpus = [], []
    for _ in range(runs):
        cpu = children_cpu()
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - started)
        cpus.append(children_cpu() - cpu)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {result.stderr}")
    return walls, cpus, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build/dev", type=Path)
    parser.add_argument("--runs", default=10, type=int)
    parser.add_argument("--seed", default=2026, type=int)
    parser.add_argument("--keep", type=Path, help="write the database and the plot here")
    args = parser.parse_args()
    gpumeter = args.build_dir / "bin" / "gpumeter"
    writer = args.build_dir / "bin" / "history_writer"
    with tempfile.TemporaryDirectory(prefix="gpumeter-report-bench-") as scratch:
        directory = args.keep or scratch
        Path(directory).mkdir(parents=True, exist_ok=True)
        database = Path(directory) / "year.db"
        generate(writer, database, args.seed)
        report = [str(gpumeter), "report", "--database", str(database)]
        june = ["--since", "2026-06-01", "--until", "2026-07-01"]
        year = ["--since", "2026-01-01", "--until", "2027-01-01"]
        cases = [
            ("one month, by user", [*report, "--by", "user", *june]),
            ("one month, by user, JSON", [*report, "--by", "user", *june, "--format", "json"]),
            ("one month, by user, with quotas", [*report, "--by", "user", *june, "--quota",
                                                 str(Path(directory) / "quota")]),
            ("the year, by user and month", [*report, "--by", "user,month", *year]),
            ("the year, by user, with an SVG plot by month",
             [*report, *year, "--plot", str(Path(directory) / "year.svg")]),
            ("idle holders, the last week", [*report, "--idle", "--since", "2026-12-25",
                                             "--until", "2027-01-01"]),
        ]
        (Path(directory) / "quota").write_text("default = 100h per week\nuser1 = 50h per day\n")
        print(f"{'command':48} {'wall: median':>12} {'fastest':>9} {'slowest':>9} "
              f"{'CPU: median':>12}  output lines")
        for name, command in cases:
            walls, cpus, output = time_command(command, args.runs)
            print(f"{name:48} {statistics.median(walls) * 1000:10.1f}ms {min(walls) * 1000:7.1f}ms "
                  f"{max(walls) * 1000:7.1f}ms {statistics.median(cpus) * 1000:10.1f}ms  "
                  f"{output.count(chr(10))}")


if __name__ == "__main__":
    main()
