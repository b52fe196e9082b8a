#!/usr/bin/env python3
"""GET /metrics under load: a `gpumeter daemon` on a simulated machine, hammered by wrk
(Debian's wrk) with 64 keep-alive connections; prints requests per second and the latency
percentiles wrk measured (docs/benchmarks.md, "Prometheus metrics").

    python3 bench/metrics_load.py BUILD_DIR [SCENARIO] [--seconds 10] [--connections 64]
                                  [--daemon-cpus 0,1] [--wrk-cpus 2,3] [--wrk-threads 2]

--daemon-cpus and --wrk-cpus pin the daemon and wrk with taskset (on a machine with spare
cores, keep wrk off the daemon's cores so that only the daemon's work is measured)."""

import argparse
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpus, argv):
    return (["taskset", "-c", cpus] if cpus else []) + argv


def wait_for(url, daemon, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            sys.exit(f"the daemon exited with {daemon.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return response.read()
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit(f"{url} did not answer within {timeout_s} s")


def to_ms(value, unit):
    return float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def parse_wrk(output):
    """Requests/sec, and the latency distribution's percentiles in ms."""
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    percentiles = {p: to_ms(v, u) for p, v, u in
                   re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s)\s*$", output, re.M)}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, percentiles, int(errors.group(1)) if errors else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", type=Path)
    parser.add_argument("scenario", nargs="?", type=Path, default=ROOT / "bench" / "bench-8x64.json")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--daemon-cpus", default="")
    parser.add_argument("--wrk-cpus", default="")
    parser.add_argument("--metrics-processes", default="top:20")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (scripts/install-deps.sh)")

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        daemon = subprocess.Popen(pinned(args.daemon_cpus, [
            str(args.build_dir / "bin" / "gpumeter"), "--simulate", str(args.scenario), "daemon",
            "--listen", f"127.0.0.1:{port}", "--history", "false",
            "--metrics-processes", args.metrics_processes, "--socket", f"{tmp}/gpumeter.sock"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            url = f"http://127.0.0.1:{port}/metrics"
            body = wait_for(url, daemon)
            wrk = subprocess.run(pinned(args.wrk_cpus, [
                "wrk", f"-t{args.wrk_threads}", f"-c{args.connections}", f"-d{args.seconds}s",
                "--latency", url]), capture_output=True, text=True, check=True)
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    rate, percentiles, errors = parse_wrk(wrk.stdout)
    print(wrk.stdout)
    print(f"scenario {args.scenario.name}: body {len(body)} bytes; {rate:.0f} requests/s; "
          f"latency p50 {percentiles.get('50', float('nan')):.2f} ms, "
          f"p99 {percentiles.get('99', float('nan')):.2f} ms; non-2xx responses: {errors}")
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
