# SPDX-License-Identifier: MIT
"""A worker that marks tasks over the daemon's socket, for task_daemon_test.py.

Reads commands from stdin, one per line, and answers each with the daemon's reply line on
stdout:  `begin NAME`, `end TASK`, `wait_until T` (sleeps until scenario time T, given the
epoch in GPUMETER_SIM_EPOCH_US), `exit`. It connects on its first request, so that it can be
spawned (and named in the scenario) before the daemon starts. Its own pid is what the daemon
sees through SO_PEERCRED.
"""

import json
import os
import socket
import sys
import time


def main(socket_path):
    epoch = int(os.environ["GPUMETER_SIM_EPOCH_US"]) / 1e6
    connection = None
    reader = None
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "exit":
            return
        if command == "wait_until":
            time.sleep(max(0.0, epoch + float(argument) - time.time()))
            print("{}", flush=True)
            continue
        if connection is None:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(socket_path)
            reader = connection.makefile("r", encoding="utf-8")
        if command == "begin":
            request = {"op": "begin", "name": argument, "labels": {"stream": "cam3"}}
        else:
            request = {"op": "end", "task": int(argument)}
        connection.sendall((json.dumps(request) + "\n").encode())
        print(reader.readline().strip(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
