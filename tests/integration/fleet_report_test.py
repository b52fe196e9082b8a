# SPDX-License-Identifier: MIT
"""`gpumeter report --prometheus` against a real Prometheus server scraping three real
daemons on three simulated machines (tests/integration/scenarios/fleet-*.json): the fleet's
report from the ledger counters must agree with the sum of the machines' own reports (their
history databases) within 1 %, per user, per container (a Slurm job on two machines) and per
host, and with the held seconds the scenarios script within 5 %. Quotas count over the fleet.
Run alone with: ctest -R integration.fleet_report."""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from pathlib import Path

from gpumeter_testlib import GPUMETER, SOURCE_DIR, clean_env, validate_report_schema
from prometheus_server_test import (PROMETHEUS, ChildProcesses, Process, free_port,
                                    relabelled_job, served_port, start_prometheus)

HERE = Path(__file__).resolve().parent
MACHINES = ["fleet-a", "fleet-b", "fleet-c"]
TIMEOUT_S = 120
# Every process of the scenarios has ended by then.
LAST_END_S = 9


def scripted_seconds(key):
    """Held seconds per user ("user") or per container ("container") over every machine."""
    totals = defaultdict(float)
    for machine in MACHINES:
        for process in json.loads((HERE / "scenarios" / f"{machine}.json").read_text())["processes"]:
            host = process["host"]
            if key == "user":
                name = host["user"]
            elif "container" in host:
                name = f"{host['container']['runtime']}:{host['container']['id']}"
            else:
                continue
            totals[name] += process["end_s"] - process["start_s"]
    return totals


@unittest.skipUnless(Path(PROMETHEUS).exists(), "prometheus is not installed "
                     "(scripts/install-deps.sh)")
class FleetReportFromPrometheus(ChildProcesses, unittest.TestCase):
    quiet = False  # the counters have stopped moving

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="gpumeter-fleet-report-"))
        cls.processes = []
        cls.ports = {}
        # The scenarios start once the daemons are up (a sanitized build starts slower).
        lead_s = 6.0 if os.environ.get("GPUMETER_TEST_SANITIZED") == "1" else 3.0
        cls.epoch_us = int((time.time() + lead_s) * 1e6)
        cls.env = clean_env(TZ="UTC0")
        # Whole minutes around the scenarios (until in the future): a machine's report prorates
        # a minute at an edge of its window, the counters have no minutes.
        start_minute = int(time.time() // 60 * 60) - 60
        cls.since = time.strftime("%Y-%m-%d %H:%M", time.gmtime(start_minute))
        cls.until = time.strftime("%Y-%m-%d %H:%M", time.gmtime(start_minute + 240))
        try:
            deadline = time.monotonic() + TIMEOUT_S
            for machine in MACHINES:
                argv = [GPUMETER, "--simulate", HERE / "scenarios" / f"{machine}.json", "daemon",
                        "--listen", "127.0.0.1:0", "--interval", "100ms",
                        "--record-interval", "1s", "--state-dir", cls.tmp / machine,
                        "--socket", cls.tmp / f"{machine}.sock", "--csv-dir", cls.tmp / machine]
                process = Process(machine, list(map(str, argv)), cls.tmp,
                                  clean_env(GPUMETER_SIM_EPOCH_US=cls.epoch_us, TZ="UTC0"))
                cls.processes.append(process)
                cls.ports[machine] = served_port(process, deadline, cls.logs)
            cls.start_prometheus()
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def start_prometheus(cls):
        rules = HERE.parent.parent / "examples" / "prometheus"
        process, port = start_prometheus(
            cls.tmp, [relabelled_job(machine, port, machine) for machine, port in cls.ports.items()],
            rule_files=[str(rules / "rules.yml"), str(rules / "alerts.yml")])
        cls.processes.append(process)
        cls.url = f"http://127.0.0.1:{port}"

    def report(self, *args, expect=0):
        result = subprocess.run([GPUMETER, "report", "--since", self.since, "--until", self.until,
                                 *map(str, args)],
                                capture_output=True, text=True, env=self.env, timeout=90)
        self.assertEqual(result.returncode, expect, f"{args}: {result.stderr}\n{self.logs()}")
        return result

    def fleet(self, *args):
        document = json.loads(self.report("--prometheus", self.url, "--format", "json",
                                          *args).stdout)
        validate_report_schema(document)
        return document

    def machines(self, by):
        """Held hours per key, summed over the machines' own reports."""
        totals = defaultdict(float)
        for machine in MACHINES:
            database = self.tmp / machine / "gpumeter.db"
            document = json.loads(self.report("--database", database, "--by", by, "--format",
                                              "json").stdout)
            for row in document["rows"]:
                if by == "host":
                    totals[machine] += row["gpu_hours"]
                elif row[by]:  # the counters leave out processes outside any container
                    totals[row[by]] += row["gpu_hours"]
        return dict(totals)

    @staticmethod
    def fleet_rows(document, by):
        return {row[by]: row["gpu_hours"] for row in document["rows"]}

    def settled(self, by):
        """The fleet's figures once the scenarios ended and every last write was scraped:
        the same twice, a second apart. Once they were, the counters stay as they are."""
        if FleetReportFromPrometheus.quiet:
            return self.fleet_rows(self.fleet("--by", by), by)
        while time.time() < self.epoch_us / 1e6 + LAST_END_S + 2:
            time.sleep(0.5)
        deadline = time.monotonic() + TIMEOUT_S
        previous = None
        while True:
            rows = self.fleet_rows(self.fleet("--by", by), by)
            if rows and rows == previous:
                FleetReportFromPrometheus.quiet = True
                return rows
            self.assertLess(time.monotonic(), deadline, f"no settled report: {rows}")
            previous = rows
            time.sleep(1.5)

    def assert_close(self, mine, theirs, relative, what):
        self.assertEqual(sorted(mine), sorted(theirs), what)
        for key, hours in theirs.items():
            self.assertAlmostEqual(mine[key], hours, delta=max(hours * relative, 1e-9),
                                   msg=f"{what}: {key}")

    def test_1_per_user_it_agrees_with_the_machines_and_the_scenarios(self):
        fleet = self.settled("user")
        self.assert_close(fleet, self.machines("user"), 0.01, "per user")
        scripted = {user: seconds / 3600 for user, seconds in scripted_seconds("user").items()}
        self.assert_close(fleet, scripted, 0.05, "per user, scripted")
        document = self.fleet("--by", "user")
        self.assertTrue(document["database"].startswith("Prometheus at http://127.0.0.1:"))
        self.assertIsNone(document["total"]["processes"])
        self.assertIsNone(document["total"]["peak_memory_bytes"])
        self.assertAlmostEqual(document["total"]["gpu_hours"], sum(fleet.values()), delta=1e-9)
        self.assertGreater(document["total"]["sm_busy_hours"], 0)
        self.assertGreater(document["total"]["energy_kwh"], 0)

    def test_2_per_container_the_job_on_two_machines_is_one_row(self):
        fleet = self.settled("container")
        self.assert_close(fleet, self.machines("container"), 0.01, "per container")
        scripted = {name: s / 3600 for name, s in scripted_seconds("container").items()}
        self.assert_close(fleet, scripted, 0.05, "per container, scripted")
        self.assertIn("slurm:4242", fleet)

    def test_3_per_host_each_machine_is_a_row(self):
        fleet = self.settled("host")
        self.assert_close(fleet, self.machines("host"), 0.01, "per host")

    def test_4_quotas_count_over_the_fleet(self):
        self.settled("user")
        quota = self.tmp / "quota.txt"
        # alice held 15.5 s over two machines (3.6 s allowed); bob has no quota.
        quota.write_text("alice = 0.001h per month\n")
        result = self.report("--prometheus", self.url, "--quota", quota, "--check", expect=1)
        self.assertIn("alice", result.stdout)
        self.assertNotIn("bob", result.stdout)
        table = self.report("--prometheus", self.url, "--by", "user,day").stdout
        self.assertIn("alice", table)

    def test_6_the_shipped_rules_run_on_real_series(self):
        """Every recording and alerting rule evaluates without error on the daemons' series,
        and the mapped names come out with their labels."""
        self.settled("user")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            groups = self.api("/api/v1/rules")["groups"]
            rules = [rule for group in groups for rule in group["rules"]]
            evaluated = all(rule.get("lastEvaluation", "").startswith("20") for rule in rules)
            if evaluated or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertGreaterEqual(len(rules), 30)
        for rule in rules:
            self.assertEqual(rule["health"], "ok", rule)
        held = self.api("/api/v1/query", query="DCGM_FI_DEV_FB_USED")["result"]
        self.assertEqual(sorted({r["metric"]["Hostname"] for r in held}), MACHINES)
        self.assertTrue(all(r["metric"]["UUID"].startswith("GPU-f1ee7000") for r in held))

    def api(self, path, **params):
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=10) as reply:
            answer = json.loads(reply.read())
        self.assertEqual(answer["status"], "success", answer)
        return answer["data"]

    def test_7_the_master_serves_the_fleet_usage_to_its_page(self):
        """`gpumeter master --prometheus URL --quota FILE`: GET /api/v1/usage is the fleet
        report's document, and the page's Usage section shows it (in Chromium)."""
        fleet = self.settled("user")
        quota = self.tmp / "master-quota.txt"
        quota.write_text("alice = 0.001h per month\n")
        port = free_port()
        master = Process("master", [GPUMETER, "master", "--prometheus", self.url, "--quota",
                                    str(quota), "--listen", f"127.0.0.1:{port}"],
                         self.tmp, self.env)
        self.processes.append(master)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/v1/fleet", timeout=10) as reply:
                    self.assertEqual(json.loads(reply.read())["source"], "prometheus")
                break
            except OSError:
                self.assertLess(time.monotonic(), deadline, master.tail())
                time.sleep(0.2)
        params = urllib.parse.urlencode({"by": "user", "since": self.since, "until": self.until})
        with urllib.request.urlopen(f"{base}/api/v1/usage?{params}", timeout=60) as reply:
            document = json.loads(reply.read())
        validate_report_schema({k: v for k, v in document.items() if k not in ("truncated", "next")})
        self.assertEqual(self.fleet_rows(document, "user"), fleet)
        self.assertTrue(document["database"].startswith("Prometheus at "), document["database"])
        self.assertEqual([use["user"] for use in document["quota"]["over"]], ["alice"])
        # What the counters cannot answer is the client's mistake; nothing is asked of Prometheus.
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/api/v1/usage?by=gpu", timeout=10)
        self.assertEqual(refused.exception.code, 400)
        self.check_page(base, fleet)

    def check_page(self, base, fleet):
        node = shutil.which("node") or shutil.which("nodejs")
        if node is None:
            self.skipTest("no Node.js for the page check")
        shot = Path(os.environ.get("GPUMETER_SCREENSHOT_DIR", self.tmp)) / "master-fleet-usage.png"
        result = subprocess.run([node, SOURCE_DIR / "tests" / "web" / "fleet_usage_page.mjs",
                                 base + "/", shot], capture_output=True, text=True, timeout=120,
                                env={**self.env, "GPUMETER_SOURCE_DIR": str(SOURCE_DIR)})
        if result.returncode == 77:
            self.skipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stderr)
        page = json.loads(result.stdout)
        self.assertEqual(page["errors"], [])
        self.assertEqual(page["title"], "Usage of the fleet")
        self.assertIn("across the fleet, from the ledger counters in Prometheus at", page["hint"])
        self.assertEqual(sorted(page["users"]), sorted(fleet))
        for user, hours in fleet.items():
            shown = page["users"][user]
            if shown.startswith("< 0.001"):  # a few seconds on one GPU
                self.assertLess(hours, 0.001, user)
            else:
                self.assertAlmostEqual(float(shown.split()[0]), hours, delta=0.001, msg=user)
        self.assertIn("over", page["quota"]["alice"])
        self.assertEqual(page["quota"]["bob"], "no quota")
        self.assertGreaterEqual(page["periods"], 1)

    def test_5_what_the_counters_cannot_answer_is_refused(self):
        for args, message in [(["--by", "gpu"], "not per GPU or process"),
                              (["--by", "user,container"], "not both at once"),
                              (["--idle"], "need a machine's history")]:
            result = self.report("--prometheus", self.url, *args, expect=2)
            self.assertIn(message, result.stderr, args)
        unreachable = self.report("--prometheus", f"http://127.0.0.1:{free_port()}", expect=2)
        self.assertIn("Prometheus at http://127.0.0.1:", unreachable.stderr)


if __name__ == "__main__":
    unittest.main()
