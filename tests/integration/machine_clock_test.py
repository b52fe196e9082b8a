# SPDX-License-Identifier: MIT
"""The simulated machine's one clock (docs/scenarios.md, "The clock"): a daemon and a one-shot
command that load the same scenario read the same moment, the driver's sample buffers hold
history before the first call, and nothing is left behind once no process runs the scenario.
No test here sets GPUMETER_SIM_EPOCH_US: the clock is what is tested. Each uses a runtime
directory of its own, so that no other test's processes share its clock."""

import json
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

import gpumeter_testlib as lib

# One GPU at a steady 50 % SM: constant power, so the energy counter grows linearly from the
# epoch and tells where a process's epoch lies.
STEADY = {
    "devices": [{"name": "NVIDIA H100 80GB HBM3", "memory_total_bytes": 85899345920,
                 "power_limit_w": 700, "power_idle_w": 100, "energy_offset_mj": 0,
                 "sample_period_ms": 100, "sample_buffer_s": 20}],
    "processes": [{"device": 0, "pid": 4242, "used_memory_bytes": 1 << 30,
                   "utilization": {"sm": 50, "mem": 20},
                   "host": {"user": "ana", "uid": 3001, "command": ["python3", "serve.py"]}}],
}
POWER_W = 100 + (700 - 100) * 0.5


def implied_epoch_s(document):
    """Where this reading's epoch lies: its time minus the seconds the energy took."""
    gpu = document["gpus"][0]
    return document["time_us"] / 1e6 - gpu["energy_joules"] / POWER_W


class MachineClock(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="gpumeter-clock-"))
        self.runtime = self.work / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.scenario = self.work / "steady.json"
        self.scenario.write_text(json.dumps(STEADY))
        self.env = lib.clean_env(XDG_RUNTIME_DIR=self.runtime)

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.work)], check=False)

    def one_shot(self):
        done = lib.run("--simulate", self.scenario, "list", "--json", env=self.env, check=True)
        return json.loads(done.stdout)

    def clock_files(self):
        directory = self.runtime / "gpumeter-sim"
        return sorted(p.name for p in directory.iterdir()) if directory.exists() else []

    def test_a_one_shot_reader_and_a_running_daemon_read_one_clock(self):
        log = self.work / "daemon.log"
        with open(log, "w") as out:
            daemon = subprocess.Popen(
                [lib.GPUMETER, "--simulate", str(self.scenario), "daemon",
                 "--socket", str(self.work / "task.sock"), "--state-dir", str(self.work / "state"),
                 "--listen", "127.0.0.1:0", "--interval", "100ms"],
                stdout=out, stderr=subprocess.STDOUT, env=self.env)
        try:
            port = lib.daemon_http_port(daemon, log)
            lib.wait_for_first_round(port, daemon)
            time.sleep(2)  # the one-shot starts well after the daemon: its own epoch would differ
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status",
                                        timeout=10) as reply:
                served = json.loads(reply.read())
            read = self.one_shot()
            # Both epochs within 10 ms (energy is reported to the mJ, times to the µs).
            self.assertAlmostEqual(implied_epoch_s(served), implied_epoch_s(read), delta=0.01)
            # And that epoch is the daemon's start minus the sample buffer (20 s): history
            # existed before the first call.
            started = log.stat().st_ctime
            self.assertLess(implied_epoch_s(read), started - 15)
            self.assertTrue(any(name.endswith(".clock") for name in self.clock_files()))
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
        self.assertEqual(self.clock_files(), [], "the last holder removes the clock's files")

    def test_each_lone_reader_finds_the_buffers_full(self):
        # No process holds the clock between these: each starts a timeline of its own, but
        # one whose buffers already hold a buffer's worth of history.
        first = implied_epoch_s(self.one_shot())
        time.sleep(1.5)
        second = implied_epoch_s(self.one_shot())
        self.assertGreater(second - first, 1.0)
        for epoch in (first, second):
            self.assertLess(epoch, time.time() - 19)
        self.assertEqual(self.clock_files(), [])

    def test_record_once_twice_records_the_real_use(self):
        # docs/cli.md's example: the second run records the processes' use over the time
        # since the first, read from the driver's buffer.
        args = ["--simulate", lib.scenario("dgx-8gpu"), "record", "--once",
                "--state-dir", self.work / "state", "--csv-dir", self.work / "csv"]
        lib.run(*args, env=self.env, check=True)
        time.sleep(3)
        second = lib.run(*args, env=self.env, check=True)
        self.assertIn("3 process interval(s)", second.stderr + second.stdout)
        rows = [line.split(",") for csv in (self.work / "csv").glob("*.csv")
                for line in csv.read_text().splitlines()[1:]]
        self.assertEqual(len(rows), 3, rows)
        for row in rows:
            self.assertGreaterEqual(int(row[4]), 99, row)  # the scenario's 99-100 %

    def test_a_fixed_epoch_still_wins(self):
        started = time.time()
        env = dict(self.env, GPUMETER_SIM_EPOCH_US=str(int((started - 100) * 1_000_000)))
        read = json.loads(lib.run("--simulate", self.scenario, "list", "--json", env=env,
                                  check=True).stdout)
        took = time.time() - started
        # The reading is 100 s after the given epoch plus however long the command took to
        # read (a sanitizer build on a loaded machine: over a second), not after a shared one.
        seconds = read["time_us"] / 1e6 - implied_epoch_s(read)
        self.assertGreater(seconds, 100 - 0.5)
        self.assertLess(seconds, 100 + took + 0.5)
        self.assertEqual(self.clock_files(), [])


if __name__ == "__main__":
    unittest.main()
