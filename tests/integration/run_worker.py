# SPDX-License-Identifier: MIT
"""The command that run_test.py runs under `gpumeter run`.

  run_worker.py PID_FILE UNTIL [--exit CODE] [--on-term CODE] [--orphan CPU_SECONDS]

Writes its own pid to PID_FILE (atomically, so that the simulator never reads half a pid),
prints "worker started" on stdout, then sleeps until scenario time UNTIL (given the epoch in
GPUMETER_SIM_EPOCH_US) and exits with CODE (0). With --on-term, SIGTERM makes it write
"terminated" next to the pid file and exit with that code. With --orphan, it first starts a
child that starts a grandchild and exits at once: the orphaned grandchild busy-loops for
CPU_SECONDS of CPU time, then exits.
"""

import argparse
import os
import signal
import sys
import time


def orphan_a_busy_grandchild(cpu_seconds):
    intermediate = os.fork()
    if intermediate == 0:
        if os.fork() == 0:
            while time.process_time() < cpu_seconds:
                for _ in range(100_000):  # user time: reading the CPU clock is a system call
                    pass
            os._exit(0)
        os._exit(0)  # the grandchild is orphaned now
    os.waitpid(intermediate, 0)


def sleep_until(deadline):
    # In slices: a signal that lands after Python last looked for one but before the sleep's
    # system call began does not interrupt that call, and its handler waits for it to end.
    # run_test.py signals the worker just as it starts sleeping, so one long sleep could
    # hold --on-term's handler back for the whole minute.
    while (left := deadline - time.time()) > 0:
        time.sleep(min(left, 0.1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pid_file")
    parser.add_argument("until", type=float)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--on-term", type=int)
    parser.add_argument("--orphan", type=float)
    args = parser.parse_args()
    if args.on_term is not None:
        def on_term(_signal, _frame):
            with open(args.pid_file + ".terminated", "w") as marker:
                marker.write("terminated\n")
            os._exit(args.on_term)
        signal.signal(signal.SIGTERM, on_term)
    if args.orphan is not None:
        orphan_a_busy_grandchild(args.orphan)
    with open(args.pid_file + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename(args.pid_file + ".tmp", args.pid_file)
    print("worker started", flush=True)
    sleep_until(int(os.environ["GPUMETER_SIM_EPOCH_US"]) / 1e6 + args.until)
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
