# SPDX-License-Identifier: MIT
"""`gpumeter vgpu` on the bundled vGPU host scenario, through the real loader: the figures
the scenario scripts, the published schema, the accounting view and its root-only clear,
and an older driver (sim-r535-cc, sim-legacy) whose fallbacks leave JPEG/OFA and the licence
state absent."""

import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from gpumeter_testlib import (GPUMETER, clean_env, epoch_seconds_ago, list_json, run, scenario,
                              sim_library, simulate, validate_list_schema, validate_report_schema,
                              validate_schema)


def vgpu_json(variant="sim", name="vgpu-host", extra=()):
    env = clean_env(GPUMETER_NVML_LIBRARY=sim_library(variant),
                    GPUMETER_SIM_SCENARIO=name if os.path.isabs(str(name)) else scenario(name),
                    GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(30))
    return json.loads(run("vgpu", *extra, "--json", env=env, check=True).stdout)


def instances(doc):
    return {i["id"]: i for g in doc["gpus"] if g["vgpu"] for i in g["vgpu"]["instances"]}


def validate(document):
    validate_schema("vgpu", document)


class Vgpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = vgpu_json()

    def test_schema(self):
        validate(self.doc)

    def test_instances_as_scripted(self):
        found = instances(self.doc)
        self.assertEqual(sorted(found), [101, 102, 201, 202])
        a = found[101]
        self.assertEqual(a["type_name"], "NVIDIA A16-4Q")
        self.assertEqual(a["vm_id_type"], "uuid")
        self.assertEqual(a["fb_used_bytes"], 1610612736)
        self.assertEqual(a["license"]["state"], "licensed")
        self.assertEqual(a["license"]["expiry"], "2027-06-30T23:59:59Z")
        # blender (5 % between bursts or 55 % in one) + ffmpeg 6 %; the encoder is ffmpeg's.
        self.assertIn(a["utilization"]["sm_percent"], (11, 61))
        self.assertEqual(a["utilization"]["encoder_percent"], 42)
        self.assertEqual(a["utilization"]["jpeg_percent"], 4)
        self.assertEqual(a["utilization"]["ofa_percent"], 3)
        self.assertEqual(found[201]["vm_id"], "17")
        self.assertEqual(found[201]["vm_id_type"], "domain_id")
        self.assertEqual(found[201]["license"]["state"], "unlicensed_restricted")
        self.assertIsNone(found[202]["license"])  # no guest driver
        self.assertEqual(found[202]["unavailable"]["license"], "error")

    def test_processes_inside_the_vms(self):
        gpu0 = self.doc["gpus"][0]["vgpu"]
        by_pid = {p["pid"]: p for p in gpu0["processes"]}
        self.assertEqual(sorted(by_pid), [2210, 2244, 4100])
        self.assertEqual(by_pid[4100]["vm_id"], "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02")
        self.assertEqual(by_pid[4100]["utilization"]["sm_percent"], 71)
        self.assertEqual(by_pid[2244]["utilization"]["decoder_percent"], 12)

    def test_accounting_records(self):
        records = instances(self.doc)[102]["accounting"]["records"]
        self.assertEqual([(r["pid"], r["running"]) for r in records], [(4100, True), (4090, False)])
        self.assertEqual(records[1]["duration_s"], 3600)

    def test_tables(self):
        out = simulate("vgpu-host", "vgpu", "--no-color", check=True).stdout
        self.assertIn("NVIDIA A16-4Q", out)
        self.assertIn("unlicensed_restricted", out)
        self.assertIn("blender", out)
        accounting = simulate("vgpu-host", "vgpu", "accounting", "--no-color", check=True).stdout
        self.assertIn("4090", accounting)
        self.assertIn("1h 0m", accounting)

    def test_clear_needs_root(self):
        text = scenario("vgpu-host").read_text()
        with tempfile.TemporaryDirectory() as tmp:
            unprivileged = Path(tmp) / "vgpu-unprivileged.json"
            unprivileged.write_text(text.replace('"driver": {', '"driver": {"privileged": false, ', 1))
            result = run("--simulate", unprivileged, "vgpu", "accounting", "--clear", "102")
            self.assertEqual(result.returncode, 1)
            self.assertIn("needs root (run with sudo)", result.stderr)
            privileged = Path(tmp) / "vgpu-privileged.json"
            privileged.write_text(text.replace('"driver": {', '"driver": {"privileged": true, ', 1))
            result = run("--simulate", privileged, "vgpu", "accounting", "--clear", "102")
            self.assertEqual(result.returncode, 0, result.stderr)

    def test_bare_metal_scenario_has_no_host(self):
        doc = json.loads(simulate("workstation", "vgpu", "--json", check=True).stdout)
        validate(doc)
        for gpu in doc["gpus"]:
            self.assertIsNone(gpu["vgpu"])
            self.assertEqual(gpu["unavailable"]["vgpu"], "not_supported")


class ListOnAVgpuHost(unittest.TestCase):
    """`gpumeter list` on the vGPU host: a `vgpu` summary per GPU in --json (the published
    schema), a line per vGPU host GPU below the table; bare metal says nothing about vGPU."""

    def test_json_summary(self):
        doc = list_json("vgpu-host")
        validate_list_schema(doc)
        first, second = doc["gpus"]
        self.assertEqual(first["vgpu"]["mode"], "host")
        self.assertEqual(first["vgpu"]["instance_count"], 2)
        render = {i["id"]: i for i in first["vgpu"]["instances"]}[102]
        self.assertEqual(render["uuid"], "b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c02")
        self.assertEqual(render["vm_id"], "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02")
        self.assertEqual(render["type_name"], "NVIDIA A16-8Q")
        self.assertEqual(render["sm_percent"], 71)
        self.assertEqual(render["fb_used_bytes"], 6442450944)
        self.assertEqual([i["vm_id"] for i in second["vgpu"]["instances"]], ["17", "18"])

    def test_a_host_is_in_use_by_its_vms(self):
        # The board's utilisation and memory include its VMs' (GPU 0: 11 % + 71 % SM, 1.5 +
        # 6 GiB of frame buffer), and its status says why it is not free.
        first, second = list_json("vgpu-host")["gpus"]
        for gpu in (first, second):
            self.assertEqual(gpu["status"], "vgpu_host")
        self.assertEqual(first["utilization_gpu_percent"], 82)
        self.assertEqual(first["memory_used_bytes"], (1536 + 6144) << 20)
        table = simulate("vgpu-host", "list", check=True).stdout.splitlines()
        self.assertRegex(table[2], r"^  0  \[v\]  NVIDIA A16 .* 2 VMs$")

    def test_available_offers_no_host(self):
        done = simulate("vgpu-host", "available")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(done.stdout, "")
        self.assertIn("GPU 0: hosting vGPUs", done.stderr)

    def test_bare_metal_has_none(self):
        doc = list_json("workstation")
        validate_list_schema(doc)
        for gpu in doc["gpus"]:
            self.assertIsNone(gpu["vgpu"])
            self.assertEqual(gpu["unavailable"]["vgpu"], "not_supported")
        self.assertNotIn("vGPU", simulate("workstation", "list", check=True).stdout)

    def test_table_line(self):
        lines = simulate("vgpu-host", "list", check=True).stdout.splitlines()
        hosts = [line for line in lines if "vGPU host" in line]
        self.assertEqual(len(hosts), 2, lines)
        self.assertTrue(hosts[0].startswith("GPU 0: vGPU host, 2 VMs: "), hosts[0])
        self.assertIn("5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02 (NVIDIA A16-8Q, SM 71%, FB 6.0GiB)",
                      hosts[0])
        self.assertTrue(hosts[1].startswith("GPU 1: vGPU host, 2 VMs: 17 (NVIDIA A16-2B"),
                        hosts[1])


class ReportByVm(unittest.TestCase):
    """A daemon records the vGPU host for a few seconds; `report --by vm` reads the real
    SQLite file it wrote."""

    def test_per_vm_use_from_the_history(self):
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp) / "state"
            daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("vgpu-host"), "daemon", "--listen", "127.0.0.1:0",
                 "--state-dir", state, "--socket", Path(tmp) / "gpumeter.sock",
                 "--interval", "250ms", "--record-interval", "1s"],
                env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            # Three seconds from when it serves: a sanitizer build on a loaded machine takes
            # a while to start, which is not the time its VMs were recorded.
            launched = time.monotonic()
            deadline = launched + 60
            while not (Path(tmp) / "gpumeter.sock").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(3)
            daemon.send_signal(signal.SIGTERM)
            _, stderr = daemon.communicate(timeout=30)
            ran = time.monotonic() - launched
            self.assertEqual(daemon.returncode, 0, stderr)
            database = state / "gpumeter.db"
            report = json.loads(run("report", "--by", "vm", "--database", database, "--since", "1h",
                                    "--format", "json", check=True).stdout)
            rows = {row["vm_id"]: row for row in report["rows"]}
            self.assertEqual(sorted(rows), ["17", "18", "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e01",
                                            "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02"])
            render = rows["5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02"]
            self.assertEqual(render["vgpu_type"], "NVIDIA A16-8Q")
            self.assertEqual(render["gpu_index"], 0)
            # Active from the daemon's first round to its last: most of the time it ran.
            self.assertGreater(render["vgpu_hours"] * 3600, 1.5)
            self.assertLessEqual(render["vgpu_hours"] * 3600, ran)
            self.assertAlmostEqual(render["sm_percent_while_active"], 71, places=6)
            self.assertEqual(render["peak_fb_used_bytes"], 6442450944)
            self.assertEqual(rows["18"]["sm_busy_hours"], 0)
            table = run("report", "--by", "vm", "--database", database, "--since", "1h",
                        "--no-color", check=True).stdout
            self.assertIn("NVIDIA A16-2B", table)
            refused = run("report", "--by", "vm", "--database", database, "--chart")
            self.assertEqual(refused.returncode, 2)
            self.assertIn("--by vm", refused.stderr)
            self.check_usage_report_names_the_vms(database, report["rows"])

    def check_usage_report_names_the_vms(self, database, vm_rows):
        # The usage report counts the host's processes, which a vGPU host has none of: it says
        # what the VMs used instead of reading as idle GPUs, with the same sums as --by vm.
        usage = json.loads(run("report", "--database", database, "--since", "1h", "--format",
                               "json", check=True).stdout)
        validate_report_schema(usage)
        self.assertEqual(usage["rows"], [])
        self.assertEqual(usage["vgpu"]["vms"], 4)
        self.assertEqual(usage["vgpu"]["gpus"], [0, 1])
        self.assertAlmostEqual(usage["vgpu"]["vgpu_hours"],
                               sum(row["vgpu_hours"] for row in vm_rows), places=9)
        self.assertAlmostEqual(usage["vgpu"]["sm_busy_hours"],
                               sum(row["sm_busy_hours"] for row in vm_rows), places=9)
        table = run("report", "--database", database, "--since", "1h", "--no-color",
                    check=True).stdout
        self.assertIn("no usage recorded", table)
        self.assertIn("vGPU host: 4 VMs on GPU 0, 1 used", table)
        self.assertIn("gpumeter report --by vm", table)
        csv = run("report", "--database", database, "--since", "1h", "--format", "csv",
                  check=True)
        self.assertIn("vGPU host: 4 VMs", csv.stderr)
        # VMs are no host user's: a report of one user has no vGPU part.
        alone = json.loads(run("report", "--database", database, "--since", "1h", "--user",
                               "alice", "--format", "json", check=True).stdout)
        self.assertIsNone(alone["vgpu"])


class DaemonSeries(unittest.TestCase):
    """A daemon samples the vGPU host; GET /api/v1/vgpu/series serves an instance's recent
    records from its memory over a real socket, in the published schema."""

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-vgpu-series-"))
        log_path = cls.directory / "daemon.log"
        with open(log_path, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("vgpu-host"), "daemon", "--listen", "127.0.0.1:0",
                 "--history", "false", "--socket", cls.directory / "d.sock",
                 "--interval", "250ms"],
                env=clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0)), stdout=log,
                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        cls.port = None
        while cls.port is None and time.monotonic() < deadline and cls.daemon.poll() is None:
            found = re.search(r"serving HTTP on http://127\.0\.0\.1:(\d+)", log_path.read_text())
            cls.port = int(found.group(1)) if found else None
            time.sleep(0.05)
        if cls.port is None:
            cls.tearDownClass()
            raise AssertionError(log_path.read_text())
        time.sleep(2)

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.poll() is None:
            cls.daemon.send_signal(signal.SIGTERM)
            cls.daemon.wait(timeout=30)

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as reply:
            return json.loads(reply.read())

    def test_series_of_an_instance(self):
        doc = self.get("/api/v1/vgpu/series?gpu=0&vgpu=b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c01")
        validate_schema("vgpu-series", doc)
        self.assertEqual(doc["vgpu"]["id"], 101)
        self.assertEqual(doc["vgpu"]["type_name"], "NVIDIA A16-4Q")
        # About 4 rounds a second for the 2 s the test waited.
        self.assertGreaterEqual(len(doc["time"]), 5)
        self.assertEqual(doc["time"], sorted(doc["time"]))
        busy = [v for v in doc["sm_percent"] if v is not None]
        self.assertTrue(busy)
        self.assertTrue(set(busy) <= {11, 61}, busy)
        self.assertEqual({v for v in doc["encoder_percent"] if v is not None}, {42})
        self.assertEqual(set(doc["fb_used_bytes"]), {1610612736})

    def test_unknown_instance_is_404(self):
        with self.assertRaises(urllib.error.HTTPError) as caught:
            self.get("/api/v1/vgpu/series?gpu=0&vgpu=no-such-vm")
        self.assertEqual(caught.exception.code, 404)


class OlderDrivers(unittest.TestCase):
    def test_r535_uses_the_older_utilisation_calls(self):
        doc = vgpu_json("sim-r535-cc")
        validate(doc)
        a = instances(doc)[101]
        self.assertEqual(a["utilization"]["encoder_percent"], 42)
        self.assertIsNone(a["utilization"]["jpeg_percent"])
        self.assertEqual(a["utilization"]["unavailable"]["ofa_percent"], "not_supported")
        self.assertEqual(a["license"]["state"], "licensed")

    def test_legacy_has_no_licence_state(self):
        doc = vgpu_json("sim-legacy")
        validate(doc)
        a = instances(doc)[101]
        self.assertTrue(a["license"]["licensed"])
        self.assertIsNone(a["license"]["state"])
        self.assertIsNone(a["license"]["expiry"])
        self.assertIsNone(a["utilization"]["jpeg_percent"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
