#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Soak: a daemon under steady load for a long time, to show that its memory, descriptors and
CPU per round stay flat (docs/benchmarks.md, "Soak").

The load:
- the simulated 8 GPUs x 64 processes, every process replaced by a new one (a new pid) every
  ~30 s, staggered: about 1,000 process starts and as many exits a minute
  (a scenario written by this script for the run's length);
- task traffic: a client marks a task (begin, then end) every 0.1 s on one connection;
- HTTP scrapes: /metrics, /api/v1/status and /api/v1/history of one GPU, every second;
- history in a database under the run's directory, recorded every 10 s;
- a horizon of 5 minutes (--horizon): the daemon keeps every process's series for the horizon,
  so its memory grows until a horizon's worth of exited processes is held (the warm-up, twice
  the horizon), and must be flat after it.

Every 10 s it reads the daemon's VmRSS, open descriptors and CPU time from /proc, and its own
account of its heap (in use, and freed but kept) and of SQLite's memory from /metrics, and
writes them to OUT/samples.csv; at the end it prints the slope of each after the warm-up (a
least squares fit), the descriptors' range, and the CPU per sampler round in each tenth of the
run.

  python3 bench/soak.py build/ci/bin/gpumeter --minutes 72 --out /tmp/soak

The simulator has no fast clock for a daemon in another process (GPUMETER_SIM_NOW_US stands
still; only an in-process benchmark can step it), so the run is in real time; the simulated day
is bench/day_bench.cpp, which steps it.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

GPUS = 8
SLOTS = 64           # processes on each GPU at any time
LIFETIME_S = 30.72   # 512 slots / 30.72 s = 1,000 starts a minute
INTERVAL_S = 1.0
TASKS_PER_S = 10     # the task traffic's pace (task_traffic)
RECORD_INTERVAL_S = 10


def process(device, slot, pid, start_s):
    # Compact (times in ms, the start given once, in the host block, a steady SM use) so that
    # an hour and its warm-up fit the simulator's 16 MiB limit on scenario files.
    start_s = round(start_s, 3)
    return {"device": device, "pid": pid, "end_s": round(start_s + LIFETIME_S, 3),
            "used_memory_bytes": (1 + slot % 4) << 28,
            "utilization": {"sm": 27, "mem": 20},
            "host": {"user": f"user-{slot % 16}", "uid": 3000 + slot % 16, "started_s": start_s,
                     "command": ["python3", "infer.py", "--slot", str(slot)]}}


def scenario(seconds):
    """8 GPUs, 64 slots each; slot k's processes start at k/512 of a lifetime and follow one
    another, each with a new pid."""
    processes = []
    pid = 100_000
    generations = int(seconds / LIFETIME_S) + 2
    for device in range(GPUS):
        for slot in range(SLOTS):
            offset = (device * SLOTS + slot) * LIFETIME_S / (GPUS * SLOTS)
            for generation in range(generations):
                pid += 1
                processes.append(process(device, slot, pid,
                                         offset + (generation - 1) * LIFETIME_S))
    # The GPUs of the 8 x 64 benchmark scenario, with these processes instead of its own.
    base = json.loads((Path(__file__).parent / "bench-8x64.json").read_text())
    base["description"] = (f"soak: {GPUS} GPUs x {SLOTS} processes, a new process every "
                           f"{LIFETIME_S} s per slot")
    base["processes"] = processes
    return base


def read_proc(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    rss_kib = int(next(line.split()[1] for line in status.splitlines()
                       if line.startswith("VmRSS:")))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss_kib, fds, ticks / os.sysconf("SC_CLK_TCK")


OWN_FIGURES = ("gpumeter_heap_in_use_bytes", "gpumeter_heap_free_bytes",
               "gpumeter_sqlite_memory_bytes")


def own_figures(port):
    """The daemon's own account of its memory, from /metrics (MiB; absent ones None)."""
    figures = dict.fromkeys(OWN_FIGURES)
    if port is None:
        return figures
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return figures
    for line in text.splitlines():
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in figures:
            figures[name] = float(line.rsplit(" ", 1)[1]) / 2**20
    return figures


def task_traffic(path, stop, counts):
    while not stop.is_set():
        try:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(str(path))
                reader = conn.makefile("r")
                while not stop.is_set():
                    conn.sendall(b'{"op":"begin","name":"soak","labels":{"kind":"bench"}}\n')
                    task = json.loads(reader.readline())["task"]
                    time.sleep(0.05)
                    conn.sendall(json.dumps({"op": "end", "task": task, "wait": False})
                                 .encode() + b"\n")
                    counts["tasks"] += json.loads(reader.readline())["ok"]
                    time.sleep(0.05)
        except (OSError, ValueError, KeyError):
            counts["task_errors"] += 1
            time.sleep(1)


def scrapes(port, stop, counts):
    paths = ["/metrics", "/api/v1/status", "/api/v1/history?gpu=0&since=10m"]
    while not stop.is_set():
        for path in paths:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                    r.read()
                counts["scrapes"] += 1
            except OSError:
                counts["scrape_errors"] += 1
        time.sleep(1)


def wait_for_port(log, daemon):
    while daemon.poll() is None:
        text = log.read_text()
        if "serving HTTP on http://127.0.0.1:" in text:
            return int(text.split("serving HTTP on http://127.0.0.1:")[1].split()[0].rstrip(";"))
        time.sleep(0.1)
    sys.exit(f"the daemon exited:\n{log.read_text()}")


def slope_per_hour(points):
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    covariance = sum((t - mean_t) * (v - mean_v) for t, v in points)
    variance = sum((t - mean_t) ** 2 for t, _ in points)
    return covariance / variance * 3600 if variance else 0.0


def horizon_seconds(text):
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)


def summarize(rows, minutes, warm_up_s):
    warm = [r for r in rows if r["t"] >= warm_up_s] or rows
    print(f"run: {minutes} min, {len(rows)} readings; after {warm_up_s:.0f} s of warm-up:")
    for key, what in (("rss_mib", "RSS"), *((name, name) for name in OWN_FIGURES)):
        points = [(r["t"], r[key]) for r in warm if r[key] is not None]
        if len(points) > 1:
            print(f"  {what}: {min(v for _, v in points):.1f} to "
                  f"{max(v for _, v in points):.1f} MiB, "
                  f"slope {slope_per_hour(points):+.2f} MiB/hour")
    print(f"  descriptors: {min(r['fds'] for r in warm)} to {max(r['fds'] for r in warm)}")
    tenth = max(1, len(rows) // 10)
    for start in range(0, len(rows) - 1, tenth):
        part = rows[start:start + tenth + 1]
        if len(part) < 2:
            break
        seconds = part[-1]["t"] - part[0]["t"]
        cpu = part[-1]["cpu_s"] - part[0]["cpu_s"]
        print(f"  {part[0]['t'] / 60:5.1f}-{part[-1]['t'] / 60:5.1f} min: "
              f"{1000 * cpu / seconds * INTERVAL_S:.1f} ms CPU per round")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gpumeter")
    parser.add_argument("--minutes", type=float, default=45)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--horizon", default="5m",
                        help="the daemon's --horizon; memory grows until a horizon of exited "
                             "processes is held, so the warm-up is twice it (default 5m)")
    parser.add_argument("--retain-tasks", type=int, default=10000,
                        help="the daemon's --retain-tasks; ended tasks are kept up to this "
                             "many, about 2.5 KB each, so the warm-up lasts until the task "
                             "traffic (10 a second) has filled them (default 10000)")
    parser.add_argument("--bare", action="store_true",
                        help="the sampler alone: no history, no HTTP, no task traffic (to tell "
                             "what grows apart)")
    parser.add_argument("--preload", metavar="LIBRARY",
                        help="an allocator for the daemon alone, through LD_PRELOAD (e.g. "
                             "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seconds = args.minutes * 60
    # Compact: the simulator reads scenario files of at most 16 MiB (about 78 minutes of churn).
    (args.out / "soak.json").write_text(json.dumps(scenario(seconds + 120), separators=(",", ":")))
    log = args.out / "daemon.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
    if args.preload:
        env["LD_PRELOAD"] = args.preload
    served = (["--history", "false", "--no-http"] if args.bare else
              ["--state-dir", args.out / "state", "--listen", "127.0.0.1:0",
               "--record-interval", f"{RECORD_INTERVAL_S}s", "--retain-tasks",
               str(args.retain_tasks)])
    with open(log, "w") as out:
        daemon = subprocess.Popen(
            [args.gpumeter, "--simulate", args.out / "soak.json", "daemon", "--socket",
             args.out / "task.sock", "--horizon", args.horizon, *served],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    stop = threading.Event()
    counts = {"tasks": 0, "task_errors": 0, "scrapes": 0, "scrape_errors": 0}
    workers = []
    port = None
    if not args.bare:
        port = wait_for_port(log, daemon)
        workers = [threading.Thread(target=task_traffic,
                                    args=(args.out / "task.sock", stop, counts)),
                   threading.Thread(target=scrapes, args=(port, stop, counts))]
    for worker in workers:
        worker.start()
    rows = []
    start = time.monotonic()
    with open(args.out / "samples.csv", "w") as csv:
        csv.write("t_s,rss_kib,fds,cpu_s,heap_in_use_mib,heap_free_mib,sqlite_mib\n")
        while time.monotonic() - start < seconds and daemon.poll() is None:
            rss_kib, fds, cpu_s = read_proc(daemon.pid)
            row = {"t": time.monotonic() - start, "rss_mib": rss_kib / 1024, "fds": fds,
                   "cpu_s": cpu_s, **own_figures(None if args.bare else port)}
            rows.append(row)
            own = ",".join("" if row[k] is None else f"{row[k]:.3f}" for k in OWN_FIGURES)
            csv.write(f"{row['t']:.1f},{rss_kib},{fds},{cpu_s:.2f},{own}\n")
            csv.flush()
            time.sleep(10)
    stop.set()
    for worker in workers:
        worker.join()
    alive = daemon.poll() is None
    daemon.terminate()
    daemon.wait()
    print(f"daemon {'ran to the end' if alive else 'EXITED EARLY'}; {counts}")
    warm_up_s = 2 * horizon_seconds(args.horizon)
    if not args.bare:
        # The recorder keeps who each process was for 10 minutes past its last round beyond a
        # record interval (recorder/recorder.cpp), and ended tasks fill their retention.
        warm_up_s = max(warm_up_s, RECORD_INTERVAL_S + 600, args.retain_tasks / TASKS_PER_S)
    summarize(rows, args.minutes, warm_up_s)
    return 0 if alive and counts["scrape_errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
