# SPDX-License-Identifier: MIT
"""`gpumeter daemon` and `gpumeter tasks` end to end: a real worker process, named in the
scenario through pid_env and busy at a scripted SM rate, marks tasks over the socket; the
daemon's figures match the script; its peer credentials keep other processes from ending its
tasks; bad input gets error replies; SIGTERM stops it cleanly."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import GPUMETER, clean_env, run

HERE = Path(__file__).resolve().parent
GiB = 1 << 30
# The worker's SM use over scenario time: idle, 80 % from t = 2 s to t = 6 s, idle again.
BUSY_FROM, BUSY_UNTIL, BUSY_PERCENT = 2.0, 6.0, 80

SCENARIO = {
    "devices": [{"name": "NVIDIA L4", "memory_total_bytes": 24152899584,
                 "power_limit_w": 72, "power_idle_w": 16}],
    "processes": [{"device": 0, "pid_env": "WORKER_PID", "used_memory_bytes": GiB,
                   "utilization": {"sm": {"steps": [[0, 0], [BUSY_FROM, BUSY_PERCENT],
                                                    [BUSY_UNTIL, 0]]}}}],
}


def scripted_sm_average(begin_us, end_us, epoch_us):
    """What the script says the SM average over [begin, end] is."""
    begin, end = (begin_us - epoch_us) / 1e6, (end_us - epoch_us) / 1e6
    overlap = max(0.0, min(end, BUSY_UNTIL) - max(begin, BUSY_FROM))
    return BUSY_PERCENT * overlap / (end - begin)


# Another process, as another user when the test runs as root (root may end any task): it
# tries to end the worker's task and to mark one for the worker's pid.
INTRUDER = """
import json, socket, sys
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.settimeout(30)
connection.connect(sys.argv[1])
reader = connection.makefile("r")
for request in ({"op": "end", "task": int(sys.argv[2])},
                {"op": "begin", "name": "x", "pid": int(sys.argv[3])}):
    connection.sendall((json.dumps(request) + "\\n").encode())
    print(reader.readline().strip(), flush=True)
"""
NOBODY = 65534
# The interpreter running this test may live where nobody cannot read (a user's pyenv).
SYSTEM_PYTHON = "/usr/bin/python3"


def as_nobody():
    os.setgid(NOBODY)
    os.setuid(NOBODY)


class Connection:
    """A client connection from this test process (not the worker)."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(30)
        self.socket.connect(str(path))
        self.reader = self.socket.makefile("rb")

    def send(self, data):
        self.socket.sendall(data)

    def line(self):
        return self.reader.readline()

    def ask(self, request):
        self.send((request if isinstance(request, str) else json.dumps(request)).encode() + b"\n")
        return json.loads(self.line())

    def close(self):
        self.reader.close()
        self.socket.close()


class TaskDaemon(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp())
        # Another user must reach the socket (see INTRUDER); it is still only a socket.
        self.directory.chmod(0o711)
        self.socket = self.directory / "gpumeter.sock"
        scenario = self.directory / "worker.json"
        scenario.write_text(json.dumps(SCENARIO))
        # t = 0 lies a second ahead, so the daemon is up before the worker gets busy.
        self.epoch_us = int((time.time() + 1.0) * 1e6)
        # A history database of its own: never the machine's.
        self.env = clean_env(GPUMETER_SIM_EPOCH_US=self.epoch_us,
                             GPUMETER_DATABASE=self.directory / "history.db")
        self.worker = self.spawn_worker()
        self.env["WORKER_PID"] = str(self.worker.pid)
        self.daemon = subprocess.Popen(
            [GPUMETER, "--simulate", scenario, "daemon", "--socket", self.socket,
             "--socket-mode", "0666", "--interval", "100ms", "--no-http"],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.stop_daemon)
        self.wait_for_socket()

    def spawn_worker(self):
        worker = subprocess.Popen([sys.executable, HERE / "task_worker.py", self.socket],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=self.env)
        self.addCleanup(self.finish, worker)
        return worker

    @staticmethod
    def finish(process):
        process.kill()
        process.communicate(timeout=30)

    def stop_daemon(self):
        if self.daemon.poll() is None:
            self.daemon.kill()
        self.daemon.communicate(timeout=30)

    def wait_for_socket(self):
        deadline = time.monotonic() + 60
        while not self.socket.exists():
            if self.daemon.poll() is not None:
                self.fail(f"the daemon exited: {self.daemon.communicate()[1]}")
            if time.monotonic() > deadline:
                self.fail("the daemon's socket did not appear")
            time.sleep(0.05)

    def tell(self, worker, command):
        worker.stdin.write(command + "\n")
        worker.stdin.flush()
        reply = worker.stdout.readline()
        self.assertTrue(reply, f"the worker said nothing to {command!r}")
        return json.loads(reply)

    def run_task(self, worker, name, begin_at, end_at):
        self.tell(worker, f"wait_until {begin_at}")
        begun = self.tell(worker, f"begin {name}")
        self.assertTrue(begun["ok"], begun)
        self.tell(worker, f"wait_until {end_at}")
        ended = self.tell(worker, f"end {begun['task']}")
        self.assertTrue(ended["ok"], ended)
        return begun, ended

    def test_the_figures_of_a_task_follow_the_script(self):
        begun, busy = self.run_task(self.worker, "decode", 2.5, 5.0)
        self.assertEqual(begun["pid"], self.worker.pid)
        self.assertEqual(busy["state"], "ended")
        self.assertEqual(busy["labels"], {"stream": "cam3"})
        self.assertEqual(busy["uid"], os.getuid())
        gpu = busy["usage"]["gpus"][0]
        expected = scripted_sm_average(busy["begin_time_us"], busy["end_time_us"], self.epoch_us)
        self.assertAlmostEqual(gpu["sm_percent"], expected, delta=3.0)
        self.assertEqual(gpu["memory_peak_bytes"], GiB)
        self.assertGreater(gpu["energy_joules"], 0.0)
        self.assertEqual(gpu["coverage"], 1.0)
        self.assertIsNotNone(busy["usage"]["host"]["cpu_user_seconds"])

        _, idle = self.run_task(self.worker, "idle", 6.5, 7.5)
        expected = scripted_sm_average(idle["begin_time_us"], idle["end_time_us"], self.epoch_us)
        self.assertAlmostEqual(idle["usage"]["gpus"][0]["sm_percent"], expected, delta=3.0)

        table = run("tasks", "--socket", self.socket, env=self.env, check=True).stdout
        self.assertIn("decode", table)
        self.assertIn("stream=cam3", table)
        listed = json.loads(run("tasks", "--json", "--socket", self.socket, env=self.env,
                                check=True).stdout)
        self.assertEqual([task["name"] for task in listed["tasks"]], ["decode", "idle"])

    def test_another_process_may_not_end_the_workers_task(self):
        begun = self.tell(self.worker, "begin decode")
        root = os.getuid() == 0
        intruder = subprocess.run(
            [SYSTEM_PYTHON if root else sys.executable, "-c", INTRUDER, self.socket, str(begun["task"]),
             str(self.worker.pid)],
            capture_output=True, text=True, timeout=60,
            preexec_fn=as_nobody if root else None)
        self.assertEqual(intruder.returncode, 0, intruder.stderr)
        ended, named = map(json.loads, intruder.stdout.splitlines())
        self.assertEqual(ended["error"]["code"], "not_permitted")
        self.assertEqual(named["error"]["code"], "not_permitted")
        self.assertTrue(self.tell(self.worker, f"end {begun['task']}")["ok"])

    def test_a_worker_that_dies_with_a_task_open_has_it_abandoned(self):
        doomed = self.spawn_worker()
        begun = self.tell(doomed, "begin doomed")
        self.assertTrue(begun["ok"], begun)
        doomed.kill()
        doomed.wait(timeout=30)
        client = Connection(self.socket)
        deadline = time.monotonic() + 60
        while True:
            ended = client.ask({"op": "query"})["tasks"]
            if ended or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(len(ended), 1)
        self.assertEqual(ended[0]["task"], begun["task"])
        self.assertTrue(ended[0]["abandoned"])
        client.close()

    def test_bad_input_gets_error_replies_and_the_daemon_keeps_serving(self):
        client = Connection(self.socket)
        for garbage, code in [("hello", "bad_request"), ("{}", "bad_request"),
                              ('{"op":"fly"}', "unknown_op"), ('{"op":"end","task":99}', "unknown_task"),
                              ('{"op":"status","v":2}', "unsupported_version")]:
            reply = client.ask(garbage)
            self.assertFalse(reply["ok"])
            self.assertEqual(reply["error"]["code"], code, garbage)
        client.send(b"x" * 70_000 + b"\n")
        self.assertEqual(json.loads(client.line())["error"]["code"], "too_large")
        self.assertEqual(client.line(), b"", "the connection is closed")
        client.close()
        again = Connection(self.socket)
        self.assertTrue(again.ask({"op": "status"})["ok"])
        again.close()

    def test_sigterm_stops_cleanly_and_removes_the_socket(self):
        client = Connection(self.socket)
        self.assertTrue(client.ask({"op": "status"})["ok"])
        client.close()
        self.daemon.send_signal(signal.SIGTERM)
        _, stderr = self.daemon.communicate(timeout=60)
        self.assertEqual(self.daemon.returncode, 0, stderr)
        self.assertFalse(self.socket.exists())
        result = run("tasks", "--socket", self.socket, env=self.env)
        self.assertEqual(result.returncode, 1)
        self.assertIn("no gpumeter daemon is running", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_a_second_daemon_refuses_the_live_socket(self):
        result = run("--simulate", self.directory / "worker.json", "daemon", "--socket",
                     self.socket, "--no-http", env=self.env, timeout=60)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("another gpumeter daemon", result.stderr)
        client = Connection(self.socket)
        self.assertTrue(client.ask({"op": "status"})["ok"])
        client.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
