# SPDX-License-Identifier: MIT
"""GPM in the history: `gpumeter daemon` on tests/integration/scenarios/gpm-history.json (an
H100 with GPM at a constant load, beside an A100 without GPM) records each GPU's GPM figures
with every sample; GET /api/v1/history serves them by their metric keys; the database, read
with Python's sqlite3 module independently of gpumeter's code, holds the scripted figures for
the H100 and NULL, never 0, for the A100 and for the H100's first reading (no GPM window yet).

The simulator computes GPM over exactly the window between two samples, and the profiles are
constant, so stored figures equal the scripted ones up to the rounding of doubles: the
tolerance is a relative 1e-9."""

import json
import math
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from gpumeter_testlib import GPUMETER, OneDaemon, clean_env, epoch_seconds_ago

HERE = Path(__file__).resolve().parent
SCENARIO_PATH = HERE / "scenarios" / "gpm-history.json"
SCENARIO = json.loads(SCENARIO_PATH.read_text())
MIB = 1024 ** 2
GPM_COLUMNS = ("gpm_sm_activity_percent", "gpm_sm_occupancy_percent",
               "gpm_tensor_activity_percent", "gpm_dram_bandwidth_percent",
               "gpm_pcie_tx_bytes_per_second", "gpm_pcie_rx_bytes_per_second",
               "gpm_nvlink_tx_bytes_per_second", "gpm_nvlink_rx_bytes_per_second")


def scripted_gpm(device_index):
    """The GPM figures docs/scenarios.md's formulas give for a device of the scenario."""
    device = SCENARIO["devices"][device_index]
    (process,) = [p for p in SCENARIO["processes"] if p["device"] == device_index]
    sm, mem = process["utilization"]["sm"], process["utilization"]["mem"]
    gpm, pci = device["gpm"], device["pci"]
    return {
        "gpm_sm_activity_percent": sm,
        "gpm_sm_occupancy_percent": sm * gpm["sm_occupancy_ratio"],
        "gpm_tensor_activity_percent": sm * gpm["tensor_ratio"],
        "gpm_dram_bandwidth_percent": mem,
        # kbit/s × u / 100 / 1024 MiB/s, as bytes per second
        "gpm_pcie_tx_bytes_per_second": pci["tx_kbps"] * sm / 100 / 1024 * MIB,
        "gpm_pcie_rx_bytes_per_second": pci["rx_kbps"] * sm / 100 / 1024 * MIB,
        "gpm_nvlink_tx_bytes_per_second": gpm["nvlink_tx_mib_per_s"] * sm / 100 * MIB,
        "gpm_nvlink_rx_bytes_per_second": gpm["nvlink_rx_mib_per_s"] * sm / 100 * MIB,
    }


class GpmHistory(OneDaemon, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-gpm-history-"))
        cls.log = cls.directory / "daemon.log"
        cls.database = cls.directory / "gpumeter.db"
        env = clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0),
                        GPUMETER_DATABASE=cls.database)
        with open(cls.log, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", SCENARIO_PATH, "daemon",
                 "--interval", "500ms", "--record-interval", "1s",
                 "--socket", cls.directory / "d.sock", "--listen", "127.0.0.1:0"],
                env=env, stdout=log, stderr=subprocess.STDOUT)
        cls.port = cls.served_port()
        cls.history = {column: cls.poll_history(column) for column in GPM_COLUMNS}
        cls.a100_history = cls.get_json(
            "/api/v1/history?gpu=1&metric=gpm_sm_activity_percent&since=5m&step=1s")
        cls.daemon.send_signal(signal.SIGTERM)
        cls.daemon.wait(timeout=60)
        with sqlite3.connect(cls.database) as db:
            db.row_factory = sqlite3.Row
            cls.samples = {
                uuid: db.execute(
                    "SELECT s.* FROM device_samples s JOIN devices d ON d.id = s.device_id "
                    "WHERE d.uuid = ? ORDER BY s.time_us", (uuid,)).fetchall()
                for uuid in (SCENARIO["devices"][0]["uuid"], SCENARIO["devices"][1]["uuid"])}
            cls.version = db.execute("PRAGMA user_version").fetchone()[0]

    @classmethod
    def get_json(cls, path):
        url = f"http://127.0.0.1:{cls.port}{path}"
        with urllib.request.urlopen(url, timeout=10) as reply:
            return json.loads(reply.read().decode())

    @classmethod
    def poll_history(cls, column):
        """The H100's history of `column` once it has three recorded points (1 s buckets)."""
        deadline = time.monotonic() + 60
        while True:
            document = cls.get_json(
                f"/api/v1/history?gpu=0&metric={column}&since=5m&step=1s")
            if sum(v is not None for v in document["avg"]) >= 3:
                return document
            if time.monotonic() > deadline:
                raise AssertionError(f"{column}: fewer than 3 points within 60 s: {document}")
            time.sleep(0.25)

    def assert_close(self, value, expected, what):
        self.assertTrue(math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-9),
                        f"{what}: {value} != {expected}")

    def test_daemon_exited_cleanly_with_schema_7_or_later(self):
        self.assertEqual(self.daemon.returncode, 0, self.log.read_text())
        self.assertGreaterEqual(self.version, 7)

    def test_the_hopper_gpu_stores_the_scripted_figures(self):
        rows = self.samples[SCENARIO["devices"][0]["uuid"]]
        with_gpm = [row for row in rows if row["gpm_sm_activity_percent"] is not None]
        self.assertGreaterEqual(len(with_gpm), 3, "samples with GPM")
        for column, expected in scripted_gpm(0).items():
            for row in with_gpm:
                self.assert_close(row[column], expected, f"{column} at {row['time_us']}")

    def test_the_first_reading_has_no_gpm_window_and_stores_null(self):
        first = self.samples[SCENARIO["devices"][0]["uuid"]][0]
        for column in GPM_COLUMNS:
            self.assertIsNone(first[column], column)
        self.assertIsNotNone(first["memory_used_bytes"])  # the sample itself was stored

    def test_a_gpu_without_gpm_stores_null_never_zero(self):
        rows = self.samples[SCENARIO["devices"][1]["uuid"]]
        self.assertGreaterEqual(len(rows), 3)
        for row in rows:
            for column in GPM_COLUMNS:
                self.assertIsNone(row[column], f"{column} at {row['time_us']}")
            self.assertIsNotNone(row["utilization_gpu_percent"])

    def test_the_history_route_serves_them_by_their_metric_keys(self):
        for column, expected in scripted_gpm(0).items():
            document = self.history[column]
            self.assertEqual(document["metric"], column)
            self.assertEqual(document["unit"], "percent" if column.endswith("_percent")
                             else "bytes_per_second")
            points = [v for v in document["avg"] if v is not None]
            for kind in ("avg", "min", "max"):
                for value in (v for v in document[kind] if v is not None):
                    self.assert_close(value, expected, f"{column} {kind}")
            self.assertGreaterEqual(len(points), 3, column)

    def test_the_history_route_has_no_gpm_point_for_a_gpu_without_gpm(self):
        self.assertEqual(self.a100_history["metric"], "gpm_sm_activity_percent")
        self.assertTrue(self.a100_history["time"], "buckets")
        self.assertTrue(all(v is None for v in self.a100_history["avg"]), self.a100_history)


if __name__ == "__main__":
    unittest.main()
