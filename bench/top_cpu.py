#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `gpumeter top` costs: it runs in a real terminal (tmux, 160x50) against the simulated
8-GPU machine with 64 processes per GPU (bench/bench-8x64.json) at its default 1 s refresh for
a minute, and its CPU time (user + system, from /proc/PID/stat) is read after a warm-up and at
the end: the share of one core it used in between. With --connect, a daemon samples that
machine (its own state directory, a free loopback port) and `top --connect` shows it: top's
CPU then, and the daemon's beside it.

  bench/top_cpu.py [BUILD_DIR] [--seconds N] [--connect]     # docs/benchmarks.md, "top"
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build/release")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--scenario", default=str(ROOT / "bench" / "bench-8x64.json"))
    parser.add_argument("--connect", action="store_true",
                        help="top --connect on a daemon that samples the scenario")
    args = parser.parse_args()
    if args.connect:
        with tempfile.TemporaryDirectory(prefix="gpumeter-top-bench-") as state:
            measure(args, state)
    else:
        measure(args, None)


def start_daemon(gpumeter, scenario, state):
    """A daemon on the scenario in `state`, serving HTTP on a free loopback port: (Popen, URL)."""
    log = Path(state) / "daemon.log"
    with open(log, "w") as out:
        daemon = subprocess.Popen([gpumeter, "--simulate", scenario, "daemon", "--state-dir", state,
                                   "--socket", f"{state}/task.sock", "--listen", "127.0.0.1:0"],
                                  stdout=subprocess.DEVNULL, stderr=out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"serving HTTP on (http://127\.0\.0\.1:\d+)", log.read_text())
        if found:
            return daemon, found.group(1)
        time.sleep(0.1)
    daemon.kill()
    sys.exit(f"the daemon did not serve:\n{log.read_text()}")


def measure(args, state):
    gpumeter = (ROOT / args.build / "bin" / "gpumeter").resolve()
    tmux = shutil.which("tmux")
    if tmux is None:
        sys.exit("tmux is not installed (scripts/install-deps.sh)")
    socket = f"gpumeter-top-bench-{os.getpid()}"
    run = lambda *a: subprocess.run([tmux, "-L", socket, "-f", "/dev/null", *a], check=True,
                                    capture_output=True, text=True)
    daemon = None
    if state is not None:
        daemon, url = start_daemon(str(gpumeter), args.scenario, state)
        time.sleep(5)  # its history before top starts
        command = [str(gpumeter), "top", "--connect", url]
    else:
        command = [str(gpumeter), "--simulate", args.scenario, "top"]
    run("new-session", "-d", "-x", "160", "-y", "50", "-s", "top", "env", "LANG=C.UTF-8", *command)
    try:
        pid = int(run("display-message", "-p", "-t", "top", "#{pane_pid}").stdout)
        time.sleep(5)  # start-up, the first rounds
        start_cpu, start = cpu_seconds(pid), time.monotonic()
        daemon_start = cpu_seconds(daemon.pid) if daemon else 0
        time.sleep(args.seconds)
        used, elapsed = cpu_seconds(pid) - start_cpu, time.monotonic() - start
        daemon_used = cpu_seconds(daemon.pid) - daemon_start if daemon else 0
        screen = run("capture-pane", "-p", "-t", "top").stdout
        processes = sum(1 for line in screen.splitlines() if "train" in line or "python" in line)
        print(f"gpumeter top{' --connect' if daemon else ''}, 8 GPUs x 64 processes, 1 s "
              f"refresh, 160x50: {used:.2f} s CPU in {elapsed:.1f} s = "
              f"{100 * used / elapsed:.2f} % of one core ({processes} process rows on the screen)")
        if daemon:
            print(f"the daemon it shows: {100 * daemon_used / elapsed:.2f} % of one core")
    finally:
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True)
        if daemon:
            daemon.terminate()
            daemon.wait(30)


if __name__ == "__main__":
    main()
