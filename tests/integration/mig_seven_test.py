# SPDX-License-Identifier: MIT
"""An H100 in MIG mode with seven 1g.10gb instances (examples/scenarios/h100-mig-7.json), end to
end: the real gpumeter through the real loader against the simulated library, and a real daemon
that records the history into its own database (GPUMETER_DATABASE). The driver gives no
per-process utilisation on MIG: the history must store the SM use of those processes as
unknown, and every reader (report in each --by mode, /api/v1/usage, ledger_view) must say N/A
with the reason, never 0. The database is read with Python's sqlite3 module, independently of
gpumeter's code."""

import json
import math
import re
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.error
from pathlib import Path

from gpumeter_testlib import (GPUMETER, SCENARIOS, OneDaemon, clean_env,
                              epoch_seconds_ago, list_json, run, scenario, simulate,
                              validate_list_schema, validate_report_schema)

NAME = "h100-mig-7"
SCENARIO = json.loads((SCENARIOS / f"{NAME}.json").read_text())
INSTANCES = SCENARIO["devices"][0]["mig"]["instances"]
PROCESSES = SCENARIO["processes"]
MIG_FAMILIES = ("gpumeter_mig_memory_used_bytes", "gpumeter_mig_memory_total_bytes",
                "gpumeter_mig_processes", "gpumeter_mig_gpm_sm_activity_ratio")
NO_PROCESS_UTIL = "MIG: the driver reports no per-process utilisation"


def placed(gpu_instance):
    return [p for p in PROCESSES if p["mig"]["gpu_instance"] == gpu_instance]


def scripted_gpm(gpu_instance):
    """An instance's GPM figures as the simulator gives them (docs/scenarios.md): the sum over
    its processes of their constant SM and memory use, capped at 100; 0 where none runs."""
    sm = min(sum(p["utilization"]["sm"] for p in placed(gpu_instance)), 100)
    mem = min(sum(p["utilization"]["mem"] for p in placed(gpu_instance)), 100)
    return {"gpm_sm_activity_percent": sm, "gpm_dram_bandwidth_percent": mem}


class TheScenario(unittest.TestCase):
    def test_seven_single_slice_instances_some_empty(self):
        self.assertEqual(len(INSTANCES), 7)
        self.assertEqual({i["profile"] for i in INSTANCES}, {"1g.10gb"})
        used = [i for i in INSTANCES if placed(i["gpu_instance"])]
        self.assertGreaterEqual(len(used), 3)
        self.assertIn(len(INSTANCES) - len(used), (1, 2))


class ListJson(unittest.TestCase):
    def test_seven_mig_devices_with_the_scripted_memory_and_processes(self):
        document = list_json(NAME)
        validate_list_schema(document)
        mig = document["gpus"][0]["mig"]
        self.assertTrue(mig["enabled"])
        self.assertEqual(len(mig["devices"]), 7)
        for shown, scripted in zip(mig["devices"], INSTANCES):
            with self.subTest(gpu_instance=scripted["gpu_instance"]):
                self.assertEqual(shown["gpu_instance_id"], scripted["gpu_instance"])
                self.assertEqual(shown["uuid"], scripted["uuid"])
                self.assertEqual(shown["profile"], "1g.10gb")
                self.assertEqual(shown["memory_total_bytes"], scripted["memory_total_bytes"])
                self.assertEqual(shown["memory_used_bytes"],
                                 sum(p["used_memory_bytes"] for p in placed(scripted["gpu_instance"])))
                self.assertEqual(shown["pids"], [p["pid"] for p in placed(scripted["gpu_instance"])])
                self.assertIsNone(shown["process_utilization"])
                self.assertEqual(shown["unavailable"]["process_utilization"], "mig")


class Available(unittest.TestCase):
    def test_the_empty_instances_are_offered_by_uuid(self):
        env = clean_env(XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="gpumeter-rt-"))
        empty = [i["uuid"] for i in INSTANCES if not placed(i["gpu_instance"])]
        result = simulate(NAME, "available", "--mig", "-l", str(len(empty)), env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), ",".join(empty))
        # One more than are free: refused, nothing offered.
        more = simulate(NAME, "available", "--mig", "-l", str(len(empty) + 1), env=env)
        self.assertEqual(more.returncode, 1)
        self.assertEqual(more.stdout, "")


class Prometheus(unittest.TestCase):
    def test_seven_series_per_mig_family(self):
        text = simulate(NAME, "list", "--prometheus", check=True, timeout=120).stdout
        for family in MIG_FAMILIES[:3]:
            series = re.findall(rf"^{family}\{{[^}}]*\}} (\S+)$", text, re.M)
            self.assertEqual(len(series), 7, family)
        for scripted in INSTANCES:
            used = sum(p["used_memory_bytes"] for p in placed(scripted["gpu_instance"]))
            self.assertRegex(text, rf'gpumeter_mig_memory_used_bytes\{{[^}}]*gpu_instance='
                                   rf'"{scripted["gpu_instance"]}"[^}}]*uuid="{scripted["uuid"]}"\}} {used}\n')


class RecordOnce(unittest.TestCase):
    """`gpumeter record --once` twice: the second run attributes the time since the first."""

    def test_the_processes_are_recorded_with_their_sm_use_unknown(self):
        directory = Path(tempfile.mkdtemp(prefix="gpumeter-mig-once-"))
        env = clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0),
                        GPUMETER_DATABASE=directory / "history.db", TZ="UTC0")
        simulate(NAME, "record", "--once", env=env, check=True)
        time.sleep(1.2)
        simulate(NAME, "record", "--once", "--csv-dir", directory / "csv", env=env, check=True)
        with sqlite3.connect(directory / "history.db") as db:
            rows = db.execute("SELECT pid, gpu_seconds, sm_busy_seconds, sm_unknown_seconds, "
                              "sm_unknown_reason FROM ledger ORDER BY pid").fetchall()
        self.assertEqual([r[0] for r in rows], sorted(p["pid"] for p in PROCESSES))
        for pid, held, busy, unknown, reason in rows:
            with self.subTest(pid=pid):
                self.assertGreater(held, 1)
                self.assertEqual((busy, reason), (0, "mig"))
                self.assertAlmostEqual(unknown, held)
        lines = [line for f in (directory / "csv").glob("*.csv")
                 for line in f.read_text().splitlines()[1:]]
        self.assertEqual(len(lines), len(PROCESSES))
        for line in lines:
            self.assertTrue(line.endswith(","), f"GPU Usage must be empty, not 0: {line}")


class Daemon(OneDaemon, unittest.TestCase):
    """A daemon records the scenario for a few seconds into its own database."""

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-mig-seven-"))
        cls.database = cls.directory / "history.db"
        cls.log = cls.directory / "daemon.log"
        cls.env = clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0),
                            GPUMETER_DATABASE=cls.database, TZ="UTC0")
        with open(cls.log, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario(NAME), "daemon", "--interval", "1s",
                 "--record-interval", "2s", "--socket", cls.directory / "d.sock", "--listen", "127.0.0.1:0"],
                env=cls.env, stdout=log, stderr=subprocess.STDOUT)
        cls.port = cls.served_port()
        time.sleep(7)  # three record intervals at least
        cls.metrics = cls.get("/metrics")
        cls.usage = {by: json.loads(cls.get(f"/api/v1/usage?by={by}&since=1h"))
                     for by in ("user", "process", "gpu")}
        cls.mig_history = {
            i["uuid"]: json.loads(cls.get(f"/api/v1/history?gpu={i['uuid']}"
                                          "&metric=memory_used_bytes&since=10m&step=60s"))
            for i in INSTANCES}
        cls.mig_gpm_history = {
            (i["uuid"], metric): json.loads(cls.get(f"/api/v1/history?gpu={i['uuid']}"
                                                    f"&metric={metric}&since=10m&step=60s"))
            for i in INSTANCES
            for metric in ("gpm_sm_activity_percent", "gpm_dram_bandwidth_percent")}
        try:
            cls.get(f"/api/v1/history?gpu={INSTANCES[0]['uuid']}&metric=utilization_gpu_percent")
            cls.mig_utilization_status = 200
        except urllib.error.HTTPError as error:
            cls.mig_utilization_status = error.code
        cls.daemon.send_signal(signal.SIGTERM)
        cls.daemon.wait(timeout=60)

    def report(self, *args):
        return run("report", "--since", "1h", *args, env=self.env, check=True).stdout

    def test_daemon_exited_cleanly(self):
        self.assertEqual(self.daemon.returncode, 0, self.log.read_text())

    def test_metrics_have_seven_series_per_mig_family(self):
        for family in MIG_FAMILIES[:3]:
            self.assertEqual(len(re.findall(rf"^{family}\{{", self.metrics, re.M)), 7, family)

    def test_the_ledger_stores_the_sm_use_as_unknown(self):
        with sqlite3.connect(self.database) as db:
            db.row_factory = sqlite3.Row
            ledger = db.execute("SELECT * FROM ledger ORDER BY pid").fetchall()
            view = db.execute("SELECT * FROM ledger_view ORDER BY pid").fetchall()
            minutes = db.execute("SELECT sum(held_seconds), sum(sm_unknown_seconds), "
                                 "sum(sm_busy_seconds), sum(energy_joules) "
                                 "FROM process_minutes").fetchone()
            hours = db.execute("SELECT sum(held_seconds), sum(sm_unknown_seconds) "
                               "FROM process_hours").fetchone()
            version = db.execute("PRAGMA user_version").fetchone()[0]
        self.assertGreaterEqual(version, 5)  # the step that keeps unknown SM use
        self.assertEqual([r["pid"] for r in ledger], sorted(p["pid"] for p in PROCESSES))
        for row in ledger:
            with self.subTest(pid=row["pid"]):
                self.assertGreater(row["gpu_seconds"], 0)
                self.assertEqual(row["sm_unknown_reason"], "mig")
                self.assertAlmostEqual(row["sm_unknown_seconds"], row["gpu_seconds"])
                self.assertEqual(row["sm_busy_seconds"], 0)  # the known part: none
                self.assertEqual(row["energy_joules"], 0)
        for row in view:
            with self.subTest(pid=row["pid"]):
                self.assertIsNone(row["sm_busy_seconds"])
                self.assertIsNone(row["sm_percent_while_held"])
                self.assertIsNone(row["energy_joules"])
        self.assertGreater(minutes[0], 0)
        self.assertAlmostEqual(minutes[1], minutes[0])
        self.assertEqual((minutes[2], minutes[3]), (0, 0))
        self.assertAlmostEqual(hours[1], hours[0])

    def expect_unknown(self, row):
        self.assertGreater(row["gpu_hours"], 0)
        self.assertIsNone(row["sm_busy_hours"])
        self.assertIsNone(row["sm_percent_while_held"])
        self.assertIsNone(row["energy_kwh"])
        self.assertAlmostEqual(row["sm_unknown_gpu_hours"], row["gpu_hours"])
        self.assertEqual(row["sm_unknown_reason"], "mig")

    def test_report_json_in_every_grouping_says_unknown(self):
        for by in ("user", "gpu", "process", "container", "host", "user,hour", "process,day"):
            with self.subTest(by=by):
                document = json.loads(self.report("--by", by, "--format", "json"))
                validate_report_schema(document)
                self.assertTrue(document["rows"])
                for row in document["rows"]:
                    self.expect_unknown(row)
                self.expect_unknown(document["total"])

    def test_report_per_process_has_every_scripted_process(self):
        document = json.loads(self.report("--by", "process", "--format", "json"))
        self.assertEqual(sorted(r["pid"] for r in document["rows"]),
                         sorted(p["pid"] for p in PROCESSES))

    def test_report_table_says_na_with_the_reason(self):
        text = self.report("--by", "user")
        alice = next(line for line in text.splitlines() if line.startswith("alice"))
        self.assertEqual(alice.split()[2:5], ["N/A", "N/A", "N/A"])  # SM-HOURS, SM%, ENERGY
        self.assertIn("SM N/A-HOURS", text)
        self.assertIn(NO_PROCESS_UTIL, text)
        self.assertNotRegex(alice, r"\b0\.0%")

    def test_report_csv_leaves_the_unknown_figures_empty(self):
        lines = self.report("--by", "user", "--format", "csv").splitlines()
        header = lines[0].split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            self.assertEqual(row["sm_busy_hours"], "")
            self.assertEqual(row["sm_percent_while_held"], "")
            self.assertEqual(row["energy_kwh"], "")
            self.assertEqual(row["sm_unknown_reason"], "mig")

    def test_the_usage_api_says_unknown(self):
        for by, document in self.usage.items():
            with self.subTest(by=by):
                validate_report_schema(document)
                self.assertTrue(document["rows"])
                for row in document["rows"]:
                    self.expect_unknown(row)

    def test_mig_memory_history_per_minute_and_hour(self):
        with sqlite3.connect(self.database) as db:
            for table in ("mig_memory_minutes", "mig_memory_hours"):
                rows = db.execute(f"SELECT mig_uuid, gpu_instance_id, profile, samples, "
                                  f"memory_used_bytes_min, memory_used_bytes_max, "
                                  f"memory_total_bytes FROM {table}").fetchall()
                self.assertEqual({r[0] for r in rows}, {i["uuid"] for i in INSTANCES}, table)
                for uuid, gi, profile, samples, low, high, total in rows:
                    used = sum(p["used_memory_bytes"] for p in placed(gi))
                    with self.subTest(table=table, gpu_instance=gi):
                        self.assertEqual(profile, "1g.10gb")
                        self.assertGreaterEqual(samples, 1)
                        self.assertEqual((low, high), (used, used))  # constant in the scenario
                        self.assertEqual(total, 10737418240)

    def test_the_history_route_serves_a_mig_devices_memory(self):
        for scripted in INSTANCES:
            with self.subTest(gpu_instance=scripted["gpu_instance"]):
                document = self.mig_history[scripted["uuid"]]
                self.assertEqual(document["mig"]["gpu_instance_id"], scripted["gpu_instance"])
                self.assertEqual(document["metric"], "memory_used_bytes")
                values = [v for v in document["avg"] if v is not None]
                self.assertTrue(values, "at least the current minute")
                used = sum(p["used_memory_bytes"] for p in placed(scripted["gpu_instance"]))
                self.assertEqual(values[-1], used)
        # No utilisation per MIG device: asked for, it is refused, not made up.
        self.assertEqual(self.mig_utilization_status, 400)

    def assert_close(self, value, expected, what):
        # Means over exact simulated windows of constant profiles: equal up to double rounding.
        self.assertTrue(math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-9),
                        f"{what}: {value} != {expected}")

    def test_mig_gpm_history_per_minute_and_hour(self):
        with sqlite3.connect(self.database) as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            self.assertGreaterEqual(version, 9)  # the step that keeps GPM per MIG device
            for table in ("mig_memory_minutes", "mig_memory_hours"):
                rows = db.execute(
                    "SELECT mig_uuid, gpu_instance_id, sum(samples), "
                    "sum(gpm_sm_activity_percent_samples), min(gpm_sm_activity_percent_min), "
                    "sum(gpm_sm_activity_percent_sum), max(gpm_sm_activity_percent_max), "
                    "sum(gpm_dram_bandwidth_percent_samples), sum(gpm_dram_bandwidth_percent_sum), "
                    f"sum(gpm_nvlink_tx_bytes_per_second_samples) FROM {table} "
                    "GROUP BY mig_uuid").fetchall()
                self.assertEqual({r[0] for r in rows}, {i["uuid"] for i in INSTANCES}, table)
                for uuid, gi, samples, sm_n, sm_min, sm_sum, sm_max, mem_n, mem_sum, nv_n in rows:
                    expected = scripted_gpm(gi)
                    sm = expected["gpm_sm_activity_percent"]
                    with self.subTest(table=table, gpu_instance=gi):
                        # Every reading after the daemon's first has GPM; the first has no
                        # window yet and is not counted (it would drag the mean towards 0),
                        # though its memory is.
                        self.assertGreaterEqual(sm_n, 1)
                        self.assertEqual(sm_n, samples - 1)
                        self.assert_close(sm_min, sm, "min")
                        self.assert_close(sm_max, sm, "max")
                        self.assert_close(sm_sum / sm_n, sm, "mean")
                        self.assertEqual(mem_n, sm_n)
                        self.assert_close(mem_sum / mem_n, expected["gpm_dram_bandwidth_percent"],
                                          "DRAM mean")
                        # The scenario scripts no NVLink rates: the simulator reports them
                        # (as 0 per unit of load) like the other figures.
                        self.assertEqual(nv_n, sm_n)

    def test_the_history_route_serves_a_mig_devices_gpm(self):
        for scripted in INSTANCES:
            for metric, expected in scripted_gpm(scripted["gpu_instance"]).items():
                with self.subTest(gpu_instance=scripted["gpu_instance"], metric=metric):
                    document = self.mig_gpm_history[(scripted["uuid"], metric)]
                    self.assertEqual(document["mig"]["uuid"], scripted["uuid"])
                    self.assertEqual(document["metric"], metric)
                    self.assertEqual(document["unit"], "percent")
                    points = [(low, mean, high) for low, mean, high in
                              zip(document["min"], document["avg"], document["max"])
                              if mean is not None]
                    self.assertTrue(points, "at least the current minute")
                    for low, mean, high in points:
                        self.assert_close(low, expected, "min")
                        self.assert_close(mean, expected, "avg")
                        self.assert_close(high, expected, "max")

    def test_idle_holders_do_not_list_processes_whose_use_is_unknown(self):
        # bob's notebook is scripted at 2 % SM, but the driver cannot say so under MIG.
        text = self.report("--idle", "--for", "1s", "--max-sm", "100")
        self.assertNotIn("jupyter", text)


if __name__ == "__main__":
    unittest.main()
