# SPDX-License-Identifier: MIT
"""The daemon and accounting mode: `gpumeter daemon` on examples/scenarios/accounting.json
records into its ledger the processes that the driver's accounting buffer shows as exited,
including one that ran 0.4 s, between two sampler rounds 2 s apart, and one that the sampler
did see (joined to its row, not counted twice); GET /api/v1/accounting serves the document
of `accounting show --json`, and /metrics the mode and the record count per GPU. The ledger
is read with Python's sqlite3 module, independently of gpumeter's code."""

import json
import re
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import (GPUMETER, SCHEMAS, OneDaemon, clean_env, epoch_seconds_ago,
                              scenario)

GIB = 1024 ** 3


class AccountingDaemon(OneDaemon, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-accounting-daemon-"))
        cls.log = cls.directory / "daemon.log"
        # The scenario's clock starts now; the daemon samples every 2 s from t = 0.
        env = clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0))
        with open(cls.log, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("accounting"), "daemon",
                 "--interval", "2s", "--record-interval", "2s", "--state-dir", cls.directory,
                 "--socket", cls.directory / "d.sock", "--listen", "127.0.0.1:0"],
                env=env, stdout=log, stderr=subprocess.STDOUT)
        cls.port = cls.served_port()
        # 51020 runs from t = 3.0 to 3.4; the round at t = 6 sees it exited.
        time.sleep(7)
        cls.accounting = json.loads(cls.get("/api/v1/accounting"))
        cls.metrics = cls.get("/metrics")
        cls.daemon.send_signal(signal.SIGTERM)
        cls.daemon.wait(timeout=60)
        with sqlite3.connect(cls.directory / "gpumeter.db") as db:
            db.row_factory = sqlite3.Row
            cls.ledger = db.execute("SELECT * FROM ledger ORDER BY pid").fetchall()

    def rows(self, pid):
        return [row for row in self.ledger if row["pid"] == pid]

    def test_daemon_exited_cleanly(self):
        self.assertEqual(self.daemon.returncode, 0, self.log.read_text())

    def test_a_process_shorter_than_an_interval_gets_one_row_from_the_driver(self):
        rows = self.rows(51020)
        self.assertEqual(len(rows), 1, "one ledger row, never two")
        row = rows[0]
        self.assertEqual((row["accounting_gpu_percent"], row["accounting_memory_percent"],
                          row["accounting_max_memory_bytes"], row["accounting_time_ms"]),
                         (90, 45, 3 * GIB, 400))
        self.assertEqual(row["final"], 1)
        if row["figures_source"] == "accounting":  # the sampler never saw it
            self.assertAlmostEqual(row["gpu_seconds"], 0.4)
            self.assertAlmostEqual(row["sm_busy_seconds"], 0.36)
            self.assertEqual(row["peak_memory_bytes"], 3 * GIB)
        else:
            self.assertEqual(row["figures_source"], "sampler")

    def test_processes_that_exited_before_the_daemon_are_recorded_once(self):
        for pid, seconds, percent in ((51001, 1800, 60), (51002, 0.5, 60)):
            rows = self.rows(pid)
            self.assertEqual(len(rows), 1, pid)
            self.assertEqual(rows[0]["figures_source"], "accounting")
            self.assertAlmostEqual(rows[0]["gpu_seconds"], seconds)
            self.assertAlmostEqual(rows[0]["sm_busy_seconds"], seconds * percent / 100)

    def test_running_processes_stay_sampled(self):
        for pid in (51010, 51011):
            rows = self.rows(pid)
            self.assertEqual(len(rows), 1, pid)
            self.assertEqual(rows[0]["figures_source"], "sampler")
            self.assertIsNone(rows[0]["accounting_time_ms"])

    def test_route_serves_the_show_document(self):
        import jsonschema  # Debian's python3-jsonschema
        schema = json.loads((SCHEMAS / "accounting.schema.json").read_text())
        jsonschema.validate(self.accounting, schema, cls=jsonschema.Draft202012Validator)
        records = {r["pid"]: r for r in self.accounting["gpus"][0]["records"]}
        self.assertEqual(records[51020]["time_ms"], 400)
        self.assertEqual(records[51010]["user"], "alice")
        self.assertFalse(self.accounting["gpus"][1]["enabled"])

    def test_metrics_carry_the_mode_and_the_record_count(self):
        def sample(name, gpu):
            found = re.search(rf'^{name}{{[^}}]*gpu="{gpu}"[^}}]*}} (\S+)$', self.metrics, re.M)
            self.assertIsNotNone(found, f"{name} for GPU {gpu}")
            return float(found.group(1))
        self.assertEqual(sample("gpumeter_gpu_accounting_enabled", 0), 1)
        self.assertEqual(sample("gpumeter_gpu_accounting_enabled", 1), 0)
        self.assertEqual(sample("gpumeter_gpu_accounting_records", 0), 5)
        self.assertIsNone(re.search(r'^gpumeter_gpu_accounting_records{[^}]*gpu="1"',
                                    self.metrics, re.M))


if __name__ == "__main__":
    unittest.main()
