# SPDX-License-Identifier: MIT
"""A daemon started before its driver: the real binary, through the real dlopen of the
simulated libnvidia-ml.so.1, on a scenario whose nvmlInit fails for the first seconds of the
process (and on a library that is not there at all). The daemon keeps serving its socket and
HTTP while it waits, says so in its log, on /healthz and in /metrics, and reads the GPU once
nvmlInit succeeds."""

import json
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from gpumeter_testlib import GPUMETER, clean_env, daemon_http_port, scenario


def get(port, path):
    """(status, body) of a GET on the daemon, 503s included."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


class DaemonWaitsForItsDriver(unittest.TestCase):
    def start(self, *args, env=None):
        self.dir = Path(tempfile.mkdtemp(prefix="gpumeter-driver-wait-"))
        self.log = self.dir / "daemon.log"
        self.socket = self.dir / "gpumeter.sock"
        with self.log.open("w") as out:
            daemon = subprocess.Popen(
                [GPUMETER, *map(str, args), "daemon", "--interval", "200ms",
                 "--socket", self.socket, "--state-dir", self.dir / "state",
                 "--listen", "127.0.0.1:0"],
                stdout=out, stderr=subprocess.STDOUT, env=env or clean_env())
        self.addCleanup(lambda: daemon.poll() is None and (daemon.kill(), daemon.wait()))
        return daemon, daemon_http_port(daemon, self.log)

    def wait_for(self, check, what, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = check()
            if found:
                return found
            time.sleep(0.1)
        self.fail(f"{what} did not happen in {timeout}s; the log:\n{self.log.read_text()}")

    def test_picks_the_gpu_up_when_the_driver_arrives(self):
        daemon, port = self.start("--simulate", scenario("driver-late"))
        status, body = self.wait_for(lambda: (lambda r: r if r[0] == 503 and "waiting" in r[1]
                                              else None)(get(port, "/healthz")),
                                     "a waiting /healthz")
        health = json.loads(body)
        self.assertEqual(health["status"], "waiting")
        self.assertEqual(health["message"], "waiting for the NVIDIA driver")
        self.assertIn("DRIVER_NOT_LOADED", health["last_error"].upper().replace(" ", "_"))
        status, metrics = get(port, "/metrics")
        self.assertEqual(status, 200, metrics)
        self.assertEqual(metric(metrics, "gpumeter_driver_up"), 0)
        self.assertGreaterEqual(metric(metrics, "gpumeter_driver_open_failures_total"), 1)
        # The task socket serves meanwhile.
        tasks = subprocess.run([GPUMETER, "tasks", "--json", "--socket", self.socket],
                               capture_output=True, text=True, env=clean_env(), timeout=30)
        self.assertEqual(tasks.returncode, 0, tasks.stderr)
        self.assertEqual(json.loads(tasks.stdout)["open"], [])

        self.wait_for(lambda: get(port, "/healthz")[0] == 200, "a healthy /healthz")
        self.wait_for(lambda: "A100" in get(port, "/api/v1/status")[1], "the GPU in the status")
        status, metrics = get(port, "/metrics")
        self.assertEqual(metric(metrics, "gpumeter_driver_up"), 1)
        self.assertGreaterEqual(metric(metrics, "gpumeter_driver_open_failures_total"), 1)
        daemon.send_signal(signal.SIGTERM)
        self.assertEqual(daemon.wait(timeout=60), 0, self.log.read_text())
        log = self.log.read_text()
        # One line for the wait (the error stays the same), one for the driver's arrival.
        self.assertEqual(log.count("waiting for the NVIDIA driver"), 1, log)
        self.assertIn("reading the GPUs", log)

    def test_waits_for_a_missing_library(self):
        env = clean_env(GPUMETER_NVML_LIBRARY=Path(tempfile.gettempdir()) / "no-such-nvml.so.1")
        daemon, port = self.start(env=env)
        status, body = self.wait_for(lambda: (lambda r: r if r[0] == 503 and "waiting" in r[1]
                                              else None)(get(port, "/healthz")),
                                     "a waiting /healthz")
        self.assertIn("no-such-nvml.so.1", json.loads(body)["last_error"])
        self.assertIsNone(daemon.poll())
        daemon.send_signal(signal.SIGTERM)
        self.assertEqual(daemon.wait(timeout=60), 0, self.log.read_text())

    def test_a_bad_config_still_stops_it_with_status_2(self):
        directory = Path(tempfile.mkdtemp(prefix="gpumeter-driver-wait-"))
        config = directory / "gpumeter.toml"
        config.write_text('interval = "50ms"\n')
        result = subprocess.run([GPUMETER, "daemon", "--config", config,
                                 "--socket", directory / "s.sock", "--state-dir", directory],
                                capture_output=True, text=True, env=clean_env(), timeout=60)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("gpumeter.toml:1:", result.stderr)


if __name__ == "__main__":
    unittest.main()
