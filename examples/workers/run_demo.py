#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command of the `gpumeter run` demo (docs/run.md): names itself to the simulator of
examples/scenarios/run-demo.json by writing its pid where the scenario's pid_file says, then
does some CPU work and sleeps through the scenario's busy window.

    gpumeter --simulate examples/scenarios/run-demo.json run -- python3 examples/workers/run_demo.py
"""

import os
import time

PID_FILE = "/tmp/gpumeter-run-demo.pid"


def main():
    # Written whole, then renamed: the simulator never reads half a pid.
    with open(PID_FILE + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename(PID_FILE + ".tmp", PID_FILE)
    print("training...", flush=True)
    started = time.process_time()
    while time.process_time() - started < 0.5:
        sum(range(10_000))
    time.sleep(3.5)
    print("done", flush=True)


if __name__ == "__main__":
    main()
