#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput and latency of the daemon's HTTP API under wrk (Debian's `wrk` package).

Starts `gpumeter --simulate SCENARIO daemon` with HTTP on a free loopback port (default
scenario examples/scenarios/dgx-8gpu.json: 8 GPUs), waits for its first sampler round, then
runs `wrk --latency` with 64 keep-alive connections against each path for the given
duration and prints a Markdown table: requests per second and the latency percentiles wrk
reports (p50, p90, p99), plus the daemon's CPU over the run.

Every request renders the latest snapshot; none calls the (simulated) GPU driver.

Usage: bench/http_bench.py [--build DIR] [--scenario FILE] [--connections N] [--threads N]
           [--duration S] [--interval DURATION] [PATH ...]   (default PATH: /api/v1/status)
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND  # utime + stime


class Daemon:
    def __init__(self, build, scenario, interval, directory):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_")}
        command = [str(Path(build) / "bin" / "gpumeter"), "--simulate", str(scenario), "daemon",
                   "--socket", os.path.join(directory, "gpumeter.sock"), "--history", "false",
                   "--interval", interval, "--listen", "127.0.0.1:0"]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True)
        line = self.process.stderr.readline()
        found = re.search(r"serving HTTP on (\S+)", line)
        if not found:
            self.process.kill()
            raise SystemExit(f"the daemon did not start: {line}{self.process.stderr.read()}")
        self.url = found.group(1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the daemon's sampler did not run")

    def stop(self):
        self.process.terminate()
        self.process.communicate(timeout=60)


def milliseconds(text):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * UNITS_MS[unit]


def run_wrk(url, connections, threads, duration):
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    percentiles = {p: milliseconds(v) for p, v in re.findall(r"^\s+(50|90|99)%\s+(\S+)$",
                                                               output, re.MULTILINE)}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: (.*)", output)
    return rate, percentiles, (errors.group(1) if errors else "0"), (
        socket_errors.group(1) if socket_errors else "none")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=ROOT / "build" / "release")
    parser.add_argument("--scenario", default=ROOT / "examples" / "scenarios" / "dgx-8gpu.json")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--interval", default="1s")
    parser.add_argument("paths", nargs="*", default=["/api/v1/status"])
    args = parser.parse_args()
    print("| path | scenario | connections | requests/s | p50 | p90 | p99 | non-2xx | "
          "socket errors | daemon CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as directory:
        daemon = Daemon(args.build, args.scenario, args.interval, directory)
        try:
            for path in args.paths:
                before, start = cpu_seconds(daemon.process.pid), time.monotonic()
                rate, p, errors, socket_errors = run_wrk(daemon.url + path, args.connections,
                                                         args.threads, args.duration)
                cpu = (cpu_seconds(daemon.process.pid) - before) / (time.monotonic() - start)
                print(f"| `{path}` | {Path(args.scenario).name} | {args.connections} | "
                      f"{rate:,.0f} | {p['50']:.2f} ms | {p['90']:.2f} ms | {p['99']:.2f} ms | "
                      f"{errors} | {socket_errors} | {100 * cpu:.0f} % |")
                sys.stdout.flush()
        finally:
            daemon.stop()


if __name__ == "__main__":
    main()
