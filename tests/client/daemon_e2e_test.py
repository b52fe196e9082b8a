# SPDX-License-Identifier: MIT
"""The clients against the real `gpumeter daemon` on the simulated driver (bursty-worker
scenario, with this test process as the scenario's worker): a task marked through the Python
client, and through the C and Python example workers, comes back with usage figures."""

import os
import subprocess
import sys
import tempfile
import time
import unittest
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = HERE.parent.parent
sys.path.insert(0, str(SOURCE_DIR / "clients" / "python"))

import gpumeter  # noqa: E402

GPUMETER = os.environ["GPUMETER_BIN"]
C_WORKER = os.environ["GPUMETER_C_WORKER"]
SCENARIO = SOURCE_DIR / "examples" / "scenarios" / "bursty-worker.json"


def start_daemon(directory):
    """`gpumeter daemon` on the simulator with its own socket and database in `directory`."""
    socket_path = os.path.join(directory, "gpumeter.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_SIM")}
    env["GPUMETER_WORKER_PID"] = str(os.getpid())  # this process is the GPU worker
    env["GPUMETER_DATABASE"] = os.path.join(directory, "history.db")  # not the machine's
    daemon = subprocess.Popen(
        [GPUMETER, "--simulate", SCENARIO, "daemon", "--socket", socket_path,
         "--interval", "100ms", "--no-http"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(socket_path):
        if daemon.poll() is not None or time.monotonic() > deadline:
            daemon.kill()
            _, stderr = daemon.communicate(timeout=30)
            raise AssertionError(f"the daemon did not start: {stderr}")
        time.sleep(0.05)
    return daemon, socket_path


def stop_daemon(daemon):
    if daemon.poll() is None:
        daemon.terminate()
    daemon.communicate(timeout=30)


class WithDaemon(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp()
        cls.daemon, cls.socket = start_daemon(cls.directory)

    @classmethod
    def tearDownClass(cls):
        stop_daemon(cls.daemon)

    def worker_env(self):
        return {**os.environ, "GPUMETER_SOCKET": self.socket}


class PythonClient(WithDaemon):
    def test_a_task_comes_back_with_gpu_and_host_figures(self):
        with gpumeter.Client(self.socket) as client:
            with gpumeter.task("decode", client=client, stream="cam3") as t:
                time.sleep(0.3)
        self.assertIsNotNone(t.result, "the daemon did not answer")
        self.assertEqual(t.result["state"], "ended")
        self.assertEqual(t.result["labels"], {"stream": "cam3"})
        self.assertEqual(t.result["pid"], os.getpid())
        gpu = t.result["usage"]["gpus"][0]
        for key in ("sm_percent", "sm_busy_seconds", "memory_peak_bytes", "energy_joules",
                    "coverage"):
            self.assertIn(key, gpu)
        self.assertGreater(gpu["memory_peak_bytes"], 0)
        # The scenario describes this process's host side itself (user, start time) and gives
        # no CPU figures, so they may be null; then the daemon must say why.
        host = t.result["usage"]["host"]
        for key in ("cpu_user_seconds", "cpu_system_seconds", "peak_rss_bytes"):
            self.assertTrue(host[key] is not None or key in host["unavailable"], host)

    def test_the_daemon_refuses_to_end_a_task_that_is_not_open(self):
        with gpumeter.Client(self.socket) as client:
            with self.assertRaises(gpumeter.GpumeterError) as raised:
                client.end(987654)
        self.assertEqual(raised.exception.code, "unknown_task")


class Restart(unittest.TestCase):
    def test_a_restart_is_reported_once_and_the_lost_task_has_no_result(self):
        directory = tempfile.mkdtemp()
        first, socket_path = start_daemon(directory)
        self.addCleanup(stop_daemon, first)
        gpumeter._task._warned.clear()
        with gpumeter.Client(socket_path) as client:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with gpumeter.task("before", client=client, wait=False) as lost:
                    stop_daemon(first)
                    second, _ = start_daemon(directory)
                    self.addCleanup(stop_daemon, second)
                with gpumeter.task("after", client=client, wait=False) as kept:
                    pass
        self.assertIsNotNone(lost.id)
        self.assertIsNone(lost.result)
        self.assertEqual(kept.result["name"], "after")
        self.assertEqual([str(w.message) for w in caught],
                         [f"gpumeter: the daemon at {socket_path} restarted; tasks begun "
                          "before it are lost"])


class ExampleWorkers(WithDaemon):
    def check_measured(self, command):
        run = subprocess.run(command, env=self.worker_env(), capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertEqual(len(lines), 2, run.stdout)
        for line in lines:
            self.assertNotIn("not measured", line)

    def test_the_c_worker(self):
        self.check_measured([C_WORKER, "2", "100"])

    def test_the_python_worker(self):
        self.check_measured([sys.executable, SOURCE_DIR / "examples" / "workers" /
                             "python_worker.py", "--tasks", "2", "--max-idle", "0.1"])


if __name__ == "__main__":
    unittest.main()
