# SPDX-License-Identifier: MIT
"""Jetson boards end to end: `list --json` on each fixture tree (tests/jetson/fixtures), the
source picked by probing when NVML is missing, and a daemon on a copy of the Orin tree whose
files the test changes while it runs (history, /metrics)."""

import json
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from gpumeter_testlib import (GPUMETER, SOURCE_DIR, OneDaemon, clean_env, run, scenario,
                              sim_library, validate_list_schema)

FIXTURES = SOURCE_DIR / "tests" / "jetson" / "fixtures"

# What each board's list shows: model, L4T release, load, memory used, input rail (W).
BOARDS = {
    "nano-l4t32": ("NVIDIA Jetson Nano Developer Kit", "L4T 32.7.1", 90.0, 262144 << 10, 7.344),
    "tx2-l4t32": ("quill", "L4T 32.7.3", 45.5, 98304 << 10, 7.406),
    "xavier-nx-l4t35": ("NVIDIA Jetson Xavier NX Developer Kit", "L4T 35.4.1", 12.3,
                        (524288 + 40960) << 10, 6.22976),
    "orin-nano-l4t36": ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
                        "L4T 36.4.7", 61.2, 1310720 << 10, 6.228992),
}


def jetson_list(tree, *extra, env=None):
    listed = run("--source", "jetson", "--jetson-root", tree, "list", "--json", *extra, env=env,
                 check=True)
    return json.loads(listed.stdout)


class EveryFixtureTree(unittest.TestCase):
    def test_list_json_shows_each_board(self):
        for tree, (model, driver, load, used, watts) in BOARDS.items():
            with self.subTest(tree):
                doc = jetson_list(FIXTURES / tree)
                validate_list_schema(doc)
                self.assertEqual(doc["source"], "jetson")
                self.assertEqual(doc["driver"]["driver_version"], driver)
                self.assertEqual(len(doc["gpus"]), 1)
                gpu = doc["gpus"][0]
                self.assertEqual(gpu["name"], model)
                self.assertTrue(gpu["uuid"].startswith("JETSON-"))
                # Whole percent, as list writes it.
                self.assertLessEqual(abs(gpu["utilization_gpu_percent"] - load), 0.5)
                self.assertEqual(gpu["memory_used_bytes"], used)
                self.assertAlmostEqual(gpu["power_draw_watts"], watts, places=6)
                self.assertIsNone(gpu["pcie_tx_bytes_per_second"])
                rails = {rail["name"]: rail["watts"] for rail in gpu["board"]["rails"]}
                self.assertIn(watts, rails.values())
                self.assertTrue(gpu["board"]["temperatures"])

    def test_a_board_read_without_nvmap_has_no_process_list(self):
        gpu = jetson_list(FIXTURES / "tx2-l4t32")["gpus"][0]
        self.assertIsNone(gpu["processes"])
        self.assertIsNone(gpu["board"]["engines"])
        self.assertEqual(gpu["board"]["unavailable"]["engines"], "not_supported")

    def test_engines_by_their_clocks(self):
        engines = jetson_list(FIXTURES / "orin-nano-l4t36")["gpus"][0]["board"]["engines"]
        self.assertEqual({e["name"]: e["on"] for e in engines},
                         {"nvdec": False, "nvenc": True, "nvjpg": False, "nvjpg1": False,
                          "ofa": False, "pva0_vps0": False, "vic": True})

    def test_without_nvml_the_board_is_found_by_probing(self):
        env = clean_env(GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        listed = run("--jetson-root", FIXTURES / "orin-nano-l4t36", "list", "--json", env=env,
                     check=True)
        self.assertEqual(json.loads(listed.stdout)["source"], "jetson")

    def test_on_a_tegra_board_its_files_come_before_an_nvml_that_loads(self):
        # An Orin's NVML library loads but reads nearly nothing: the board's files are read.
        env = clean_env(GPUMETER_NVML_LIBRARY=sim_library(),
                        GPUMETER_SIM_SCENARIO=scenario("dgx-8gpu"))
        on_board = run("--jetson-root", FIXTURES / "orin-nano-l4t36", "list", "--json", env=env,
                       check=True)
        self.assertEqual(json.loads(on_board.stdout)["source"], "jetson")
        forced = run("--source", "nvml", "--jetson-root", FIXTURES / "orin-nano-l4t36", "list",
                     "--json", env=env, check=True)
        self.assertEqual(len(json.loads(forced.stdout)["gpus"]), 8)
        # A board whose integrated GPU is not found goes on to NVML; and elsewhere (no device
        # tree) NVML comes first.
        for root in (FIXTURES / "tegra-without-gpu", Path(tempfile.gettempdir())):
            listed = run("--jetson-root", root, "list", "--json", env=env, check=True)
            self.assertEqual(json.loads(listed.stdout)["source"], "nvml", root)

    def test_another_machine_says_it_is_no_jetson(self):
        failed = run("--source", "jetson", "--jetson-root", FIXTURES / "tegra-without-gpu",
                     "list")
        self.assertEqual(failed.returncode, 2)
        self.assertIn("no integrated GPU found under", failed.stderr)
        self.assertEqual(failed.stderr.count("\n"), 1, failed.stderr)

    def test_an_unknown_source_is_refused(self):
        failed = run("--source", "amd", "list")
        self.assertEqual(failed.returncode, 2)
        self.assertIn("--source", failed.stderr)


class DaemonOnAMovingOrin(OneDaemon, unittest.TestCase):
    """The daemon samples a copy of the Orin tree; the test moves the GPU's load and the input
    rail's current while it runs, as the kernel would."""

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-jetson-"))
        cls.root = cls.directory / "root"
        shutil.copytree(FIXTURES / "orin-nano-l4t36", cls.root)
        cls.log = cls.directory / "daemon.log"
        cls.database = cls.directory / "gpumeter.db"
        with open(cls.log, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--source", "jetson", "--jetson-root", cls.root, "daemon",
                 "--interval", "250ms", "--record-interval", "1s", "--state-dir", cls.directory,
                 "--socket", cls.directory / "d.sock", "--listen", "127.0.0.1:0"],
                env=clean_env(GPUMETER_DATABASE=cls.database), stdout=log,
                stderr=subprocess.STDOUT)
        cls.port = cls.served_port()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.directory, ignore_errors=True)

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as reply:
            return reply.read().decode()

    def metric(self, name):
        for line in self.get("/metrics").splitlines():
            if line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        return None

    def wait_for_metric(self, name, value):
        deadline = time.monotonic() + 30
        while self.metric(name) != value:
            if time.monotonic() > deadline:
                self.fail(f"{name} did not reach {value}: {self.metric(name)}")
            time.sleep(0.1)

    def test_metrics_follow_the_boards_files_and_the_history_records_them(self):
        gpu_files = self.root / "sys" / "class" / "devfreq" / "17000000.gpu" / "device"
        self.wait_for_metric("gpumeter_gpu_sm_utilization_ratio", 0.612)
        (gpu_files / "load").write_text("250\n")
        self.wait_for_metric("gpumeter_gpu_sm_utilization_ratio", 0.25)
        rail = next((self.root / "sys" / "bus" / "i2c" / "devices" / "1-0040" / "hwmon")
                    .glob("hwmon*"))
        (rail / "curr1_input").write_text("2000\n")
        self.wait_for_metric("gpumeter_gpu_power_watts", 10.112)
        self.assertGreater(self.metric("gpumeter_gpu_energy_joules_total"), 0)
        rails = [line for line in self.get("/metrics").splitlines()
                 if line.startswith("gpumeter_board_rail_power_watts{")]
        self.assertEqual(len(rails), 3, rails)
        self.assertIn('rail="VDD_SOC"', "".join(rails))
        engines = {line.split('engine="')[1].split('"')[0]: line.rsplit(" ", 1)[1]
                   for line in self.get("/metrics").splitlines()
                   if line.startswith("gpumeter_board_engine_active{")}
        self.assertEqual(engines["nvenc"], "1")
        self.assertEqual(engines["nvdec"], "0")
        status = json.loads(self.get("/api/v1/status"))
        self.assertEqual(status["gpus"][0]["name"],
                         "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super")
        # The history keeps the board by its made-up uuid, with the load it read.
        deadline = time.monotonic() + 30
        while True:
            with sqlite3.connect(self.database) as db:
                rows = db.execute(
                    "SELECT s.utilization_gpu_percent FROM device_samples s JOIN devices d "
                    "ON d.id = s.device_id WHERE d.uuid LIKE 'JETSON-%'").fetchall()
            if any(row[0] == 25 for row in rows):
                break
            if time.monotonic() > deadline:
                self.fail(f"no 25 % sample recorded: {rows[-5:]}")
            time.sleep(0.25)
        self.daemon.send_signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=60), 0, self.log.read_text())


if __name__ == "__main__":
    unittest.main()
