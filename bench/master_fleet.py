#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`gpumeter master` over a farm of fake agents on loopback, good and hostile (see
tests/integration/agent_farm.py for the kinds), measured from outside:

  - the wall time of `master --once` (start, one round, the fleet document on stdout);
  - served for --seconds: when it starts serving, how often each good agent was polled, the
    /healthz answers (asked every 0.5 s), the fleet's states, its peak RSS (VmHWM), and how
    long it takes to exit after SIGTERM.

bench/master_fleet.py --gpumeter build/ci/bin/gpumeter --good 1000 --flood 5 --trickle 5 \
    --endless 5 --silent 5 [--seconds 20] [--interval 2s] [--timeout 1s]
"""

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))
from agent_farm import KINDS, AgentFarm  # noqa: E402

ONCE_LIMIT_SECONDS = 60


def write_config(folder, farm, interval, timeout):
    lines = [f'interval = "{interval}"', f'timeout = "{timeout}"']
    for kind in KINDS:
        for number, port in enumerate(farm.ports[kind]):
            lines += ["[[agent]]", f'name = "{kind}-{number}"', f'url = "http://127.0.0.1:{port}"']
    path = Path(folder) / "master.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def http_status(url, timeout=1.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except OSError:
        return "no answer", b""


def peak_rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def measure_once(gpumeter, config):
    start = time.monotonic()
    try:
        result = subprocess.run([gpumeter, "master", "--config", str(config), "--once"],
                                capture_output=True, text=True, timeout=ONCE_LIMIT_SECONDS)
    except subprocess.TimeoutExpired:
        return {"once_seconds": f"not done after {ONCE_LIMIT_SECONDS} s (killed)"}
    elapsed = time.monotonic() - start
    states = collections.Counter(node["state"] for node in json.loads(result.stdout)["nodes"])
    return {"once_seconds": round(elapsed, 2), "once_states": dict(states)}


def wait_for_address(process, report):
    """The master's URL once it serves; None when it does not within ONCE_LIMIT_SECONDS."""
    start = time.monotonic()
    found = {}
    ready = threading.Event()

    def read():
        for line in process.stderr:
            match = re.search(r"on (http://127\.0\.0\.1:\d+)/api/v1/fleet", line)
            if match and not ready.is_set():
                found["url"] = match.group(1)
                ready.set()
    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(ONCE_LIMIT_SECONDS):
        report["serving_after_seconds"] = f"not serving after {ONCE_LIMIT_SECONDS} s"
        return None
    report["serving_after_seconds"] = round(time.monotonic() - start, 2)
    return found["url"]


def measure_serving(gpumeter, config, farm, seconds):
    report = {}
    process = subprocess.Popen([gpumeter, "master", "--config", str(config), "--listen",
                                "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    try:
        base = wait_for_address(process, report)
        if base is None:
            report["peak_rss_mib"] = peak_rss_kib(process.pid) // 1024
            return report | stop(process)
        farm.arm()
        before = {port: farm.requests(port) for port in farm.ports["good"]}
        health = collections.Counter()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            health[str(http_status(base + "/healthz")[0])] += 1
            time.sleep(0.5)
        polls = [farm.requests(port) - before[port] for port in farm.ports["good"]]
        status, body = http_status(base + "/api/v1/fleet", timeout=10)
        if status == 200:
            nodes = json.loads(body)["nodes"]
            report["fleet_states"] = dict(collections.Counter(
                f"{node['name'].split('-')[0]}:{node['state']}" for node in nodes))
            report["errors"] = sorted({node["error"] for node in nodes if node["error"]})
        else:
            report["fleet"] = status
        report.update({"good_polls_min": min(polls, default=0),
                       "good_polls_max": max(polls, default=0),
                       "healthz": dict(health), "peak_rss_mib": peak_rss_kib(process.pid) // 1024})
        return report | stop(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def stop(process):
    start = time.monotonic()
    process.terminate()
    try:
        process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        return {"sigterm_exit_seconds": "not stopped after 120 s"}
    return {"sigterm_exit_seconds": round(time.monotonic() - start, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpumeter", required=True)
    for kind in KINDS:
        parser.add_argument(f"--{kind}", type=int, default=0)
    parser.add_argument("--status", help="a status document (JSON file) for the good agents")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--interval", default="2s")
    parser.add_argument("--timeout", default="1s")
    parser.add_argument("--no-once", action="store_true")
    parser.add_argument("--arm-later", action="store_true",
                        help="hostile agents answer well until the master serves")
    args = parser.parse_args()
    document = ({"schema_version": 1, "host": "fake", "time_us": 0, "gpus": []}
                if args.status is None else json.loads(Path(args.status).read_text()))
    farm = AgentFarm({kind: getattr(args, kind) for kind in KINDS}, document,
                     armed=not args.arm_later)
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(folder, farm, args.interval, args.timeout)
        report = {} if args.no_once or args.arm_later else measure_once(args.gpumeter, config)
        report.update(measure_serving(args.gpumeter, config, farm, args.seconds))
    farm.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
