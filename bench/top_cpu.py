#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `gpumeter top` costs: it runs in a real terminal (tmux, 160x50) against the simulated
8-GPU machine with 64 processes per GPU (bench/bench-8x64.json) at its default 1 s refresh for
a minute, and its CPU time (user + system, from /proc/PID/stat) is read after a warm-up and at
the end: the share of one core it used in between.

  bench/top_cpu.py [BUILD_DIR] [--seconds N]     # docs/benchmarks.md, "top"
"""

import argparse
import os
import shutil
import subprocess
import sys
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
    args = parser.parse_args()
    gpumeter = (ROOT / args.build / "bin" / "gpumeter").resolve()
    tmux = shutil.which("tmux")
    if tmux is None:
        sys.exit("tmux is not installed (scripts/install-deps.sh)")
    socket = f"gpumeter-top-bench-{os.getpid()}"
    run = lambda *a: subprocess.run([tmux, "-L", socket, "-f", "/dev/null", *a], check=True,
                                    capture_output=True, text=True)
    run("new-session", "-d", "-x", "160", "-y", "50", "-s", "top",
        "env", "LANG=C.UTF-8", str(gpumeter), "--simulate", args.scenario, "top")
    try:
        pid = int(run("display-message", "-p", "-t", "top", "#{pane_pid}").stdout)
        time.sleep(5)  # start-up, the first rounds
        start_cpu, start = cpu_seconds(pid), time.monotonic()
        time.sleep(args.seconds)
        used, elapsed = cpu_seconds(pid) - start_cpu, time.monotonic() - start
        screen = run("capture-pane", "-p", "-t", "top").stdout
        processes = sum(1 for line in screen.splitlines() if "train" in line or "python" in line)
        print(f"gpumeter top, 8 GPUs x 64 processes, 1 s refresh, 160x50: "
              f"{used:.2f} s CPU in {elapsed:.1f} s = {100 * used / elapsed:.2f} % of one core "
              f"({processes} process rows on the screen)")
    finally:
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
