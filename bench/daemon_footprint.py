#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU and memory of a running `gpumeter daemon` on a simulated machine.

Starts the daemon on a scenario (default bench/bench-8x64.json: 8 GPUs x 64 processes) at each
sampling interval asked for, lets it warm up, then measures over a fixed span:

  - CPU: user + system time of the daemon (all its threads, /proc/PID/stat fields 14 and 15)
    divided by the wall time of the span, in % of one core;
  - memory: VmRSS (resident now), VmHWM (its peak so far), and VmRSS split into RssAnon (heap,
    stacks) and RssFile (pages of mapped files: the shared libraries) from /proc/PID/status at
    the end.

The series fill up over the horizon (default one hour), so the RSS after a short span is not
the RSS of a full horizon; bench/sampler_bench.cpp's BM_OneSimulatedHour measures that.

--host chooses what stands behind the scenario's processes:
  scenario  the scenario's own host descriptions (user, command, start time); the daemon reads
            no /proc for them, so the figure is the daemon's cost without host reads.
  real      one real, idle process is spawned per scenario process and named in a copy of the
            scenario, so the daemon reads /proc for every one of them each round, as it does on
            a real machine.

Usage: bench/daemon_footprint.py [--build DIR] [--scenario FILE] [--host real|scenario|both]
           [--run INTERVAL:SPAN_S ...] [--warmup S] [--repeat N]
Prints a Markdown table; every figure is the median of --repeat runs, with the range.
"""

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
MIB = 1024 * 1024


def cpu_seconds(pid):
    """User + system CPU time of all the process's threads so far, in seconds."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


MEMORY_KEYS = ("VmRSS", "VmHWM", "RssAnon", "RssFile")


def memory_kib(pid):
    """VmRSS, VmHWM, RssAnon (heap, stacks) and RssFile (mapped library pages) of the process, KiB."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in MEMORY_KEYS:
                values[key] = int(rest.split()[0])
    return values


def ask(socket_path, request):
    """One request of the task protocol (docs/task-protocol.md), its reply as a dict."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(socket_path)
        s.sendall((json.dumps(request) + "\n").encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return json.loads(reply)


def last_round_us(socket_path):
    return ask(socket_path, {"op": "status"})["sampler"]["last_sample_time_us"]


class RealProcesses:
    """One idle real process per scenario process, and a copy of the scenario naming them."""

    def __init__(self, scenario, directory):
        self.children = []
        model = json.loads(Path(scenario).read_text())
        for process in model["processes"]:
            child = subprocess.Popen(["sleep", "infinity"], stdin=subprocess.DEVNULL)
            self.children.append(child)
            process["pid"] = child.pid
            process.pop("pid_env", None)
            process.pop("host", None)  # looked up in the real /proc instead
        self.scenario = Path(directory) / "scenario-real-processes.json"
        self.scenario.write_text(json.dumps(model))

    def stop(self):
        for child in self.children:
            child.kill()
        for child in self.children:
            child.wait()


class Daemon:
    """`gpumeter --simulate SCENARIO daemon` on a private socket."""

    def __init__(self, build, scenario, interval, directory):
        self.socket = os.path.join(directory, "gpumeter.sock")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
        command = [str(Path(build) / "bin" / "gpumeter"), "--simulate", str(scenario), "daemon",
                   "--socket", self.socket, "--interval", interval, "--horizon", "1h",
                   "--listen", "127.0.0.1:0",
                   "--database", os.path.join(directory, "history.db")]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"the daemon did not start: {self.process.stderr.read()}")
            time.sleep(0.05)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def measure_once(build, scenario, interval, span_s, warmup_s):
    """CPU % of one core over the span, VmRSS and VmHWM at its end, and rounds sampled."""
    with tempfile.TemporaryDirectory() as directory:
        daemon = Daemon(build, scenario, interval, directory)
        try:
            time.sleep(warmup_s)
            first_round = last_round_us(daemon.socket)
            cpu_before, wall_before = cpu_seconds(daemon.process.pid), time.monotonic()
            time.sleep(span_s)
            cpu_after, wall_after = cpu_seconds(daemon.process.pid), time.monotonic()
            memory = memory_kib(daemon.process.pid)
            last_round = last_round_us(daemon.socket)
        finally:
            daemon.stop()
    if first_round is None or last_round is None or last_round <= first_round:
        raise SystemExit(f"the daemon did not sample during the span (interval {interval})")
    return {"cpu_percent": 100 * (cpu_after - cpu_before) / (wall_after - wall_before),
            **{key: memory[key] * 1024 / MIB for key in MEMORY_KEYS}}


def summary(values, digits):
    values = sorted(values)
    middle = statistics.median(values)
    if len(values) == 1:
        return f"{middle:.{digits}f}"
    return f"{middle:.{digits}f} ({values[0]:.{digits}f}–{values[-1]:.{digits}f})"


def parse_run(text):
    interval, _, span = text.partition(":")
    if not interval or not span:
        raise argparse.ArgumentTypeError(f"{text!r} is not INTERVAL:SPAN_S such as 1s:60")
    return interval, float(span)


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build" / "release"),
                        help="build directory holding bin/gpumeter (default build/release)")
    parser.add_argument("--scenario", default=str(ROOT / "bench" / "bench-8x64.json"))
    parser.add_argument("--host", choices=("real", "scenario", "both"), default="both")
    parser.add_argument("--run", type=parse_run, action="append",
                        help="INTERVAL:SPAN_S, e.g. 1s:60 (repeatable; default 1s:60 and 100ms:30)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median is shown")
    return parser.parse_args()


def main():
    args = arguments()
    runs = args.run or [("1s", 60.0), ("100ms", 30.0)]
    hosts = ("scenario", "real") if args.host == "both" else (args.host,)
    print(f"scenario {Path(args.scenario).name}; warm-up {args.warmup:g} s; median of "
          f"{args.repeat} runs (min–max); load average before: {os.getloadavg()[0]:.2f}",
          file=sys.stderr)
    print("| interval | host processes | span | CPU, % of one core | VmRSS, MiB | VmHWM, MiB "
          "| RssAnon, MiB | RssFile, MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as directory:
        for host in hosts:
            real = RealProcesses(args.scenario, directory) if host == "real" else None
            scenario = real.scenario if real else Path(args.scenario)
            try:
                for interval, span in runs:
                    results = [measure_once(args.build, scenario, interval, span, args.warmup)
                               for _ in range(args.repeat)]
                    print(f"| {interval} | {host} | {span:g} s "
                          f"| {summary([r['cpu_percent'] for r in results], 2)} "
                          + "".join(f"| {summary([r[key] for r in results], 1)} "
                                    for key in MEMORY_KEYS) + "|", flush=True)
            finally:
                if real:
                    real.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
