# SPDX-License-Identifier: MIT
"""Simulated Jetson boards end to end (`--simulate-jetson`): the bundled Orin Nano and Nano
scenarios read through the Jetson source from the kernel files the simulator writes, moving on
the scenario's clock; and a real Python worker marking tasks on a simulated Orin, whose
device-level figures, GPU memory (nvmap), energy (the input rail), CPU and RSS the daemon
computes, records into its history and exports in /metrics."""

import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from gpumeter_testlib import (GPUMETER, clean_env, daemon_http_port, run, validate_list_schema,
                              wait_for_first_round)

HERE = Path(__file__).resolve().parent
MiB = 1 << 20
EPOCH_US = 1_800_000_000_000_000


def listed_at(board, seconds):
    """`list --json` of a bundled board with the scenario's clock stopped at t = seconds."""
    env = clean_env(GPUMETER_SIM_EPOCH_US=EPOCH_US,
                    GPUMETER_SIM_NOW_US=EPOCH_US + int(seconds * 1e6))
    listed = run("--simulate-jetson", board, "list", "--json", env=env, check=True)
    document = json.loads(listed.stdout)
    validate_list_schema(document)
    return document


class BundledBoards(unittest.TestCase):
    def test_the_orin_nano_shows_its_board_load_rails_and_processes(self):
        document = listed_at("orin-nano", 2.5)
        self.assertEqual(document["source"], "jetson (simulated: jetson-orin-nano.json)")
        self.assertEqual(document["driver"]["driver_version"], "L4T 36.4.7")
        gpu = document["gpus"][0]
        self.assertEqual(gpu["name"], "NVIDIA Jetson Orin Nano Developer Kit")
        self.assertEqual(gpu["uuid"], "JETSON-1424023012345")
#The pipeline 's burst (64 %) and the detector' s(30 %) : the load nvgpu writes.
        self.assertEqual(gpu["utilization_gpu_percent"], 94)
        processes = {p["pid"]: p["used_memory_bytes"] for p in gpu["processes"]}
        self.assertEqual(processes, {977: 64 * MiB, 2412: 1200 * MiB, 3188: 576 * MiB})
        self.assertEqual(gpu["memory_used_bytes"], (64 + 1200 + 576) * MiB)
        rails = {rail["name"]: rail["watts"] for rail in gpu["board"]["rails"]}
        self.assertEqual(set(rails), {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"})
#idle 4.6 W + 94 % of the 7.9 W above it, through the rail's mA and mV.
        self.assertAlmostEqual(gpu["power_draw_watts"], 4.6 + 7.9 * 0.94, delta=0.01)
        self.assertEqual(rails["VDD_IN"], gpu["power_draw_watts"])
        zones = {zone["name"] for zone in gpu["board"]["temperatures"]}
        self.assertIn("gpu-thermal", zones)
        engines = {engine["name"]: engine["on"] for engine in gpu["board"]["engines"]}
        self.assertEqual(engines, {"nvenc": True, "nvdec": True, "nvjpg": False, "vic": True})

    def test_the_load_moves_with_the_scenario(self):
        between_bursts = listed_at("orin-nano", 4.0)["gpus"][0]
        self.assertEqual(between_bursts["utilization_gpu_percent"], 6)
        self.assertLess(between_bursts["power_draw_watts"], 5.2)

    def test_the_nano_uses_the_l4t_32_layout(self):
        gpu = listed_at("nano", 1.0)["gpus"][0]
        self.assertEqual(gpu["name"], "NVIDIA Jetson Nano Developer Kit")
        self.assertEqual(gpu["utilization_gpu_percent"], 88)
        self.assertEqual(gpu["memory_used_bytes"], 512 * MiB)  # NvMapMemUsed
        rails = {rail["name"] for rail in gpu["board"]["rails"]}
        self.assertEqual(rails, {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"})

    def test_a_scenario_that_is_no_board_is_refused(self):
        failed = run("--simulate-jetson", HERE / "scenarios" / "fleet-a.json", "list")
        self.assertEqual(failed.returncode, 2)
        self.assertIn("not a Jetson scenario", failed.stderr)
        failed = run("--simulate-jetson", "thor", "list")
        self.assertEqual(failed.returncode, 2)
        self.assertIn("not a bundled board", failed.stderr)

    def test_the_board_writes_under_tmpdir_and_leaves_nothing_behind(self):
        with tempfile.TemporaryDirectory() as private:
            env = clean_env(TMPDIR=private, GPUMETER_SIM_EPOCH_US=EPOCH_US)
            run("--simulate-jetson", "nano", "list", env=env, check=True)
            self.assertEqual(list(Path(private).iterdir()), [])

#The worker's GPU use over scenario time: idle, 80 % from t = 2 s to t = 6 s, idle again.
BUSY_FROM, BUSY_UNTIL, BUSY_PERCENT = 2.0, 6.0, 80
IDLE_W, BUSY_W = 4.6, 12.5
WORKER_SCENARIO = {
    "jetson": {"board": "orin-nano", "serial": "1424023099999"},
    "devices": [{"name": "NVIDIA Jetson Orin Nano Developer Kit",
                 "memory_total_bytes": 7989915648,
                 "clocks_mhz": {"graphics": 306, "sm": 306, "memory": 2133, "video": 115},
                 "max_clocks_mhz": {"graphics": 1020, "sm": 1020, "memory": 3199, "video": 1152},
                 "power_limit_w": BUSY_W, "power_idle_w": IDLE_W}],
    "processes": [{"device": 0, "pid_env": "WORKER_PID", "used_memory_bytes": 512 * MiB,
                   "utilization": {"sm": {"steps": [[0, 0], [BUSY_FROM, BUSY_PERCENT],
                                                    [BUSY_UNTIL, 0]]}}}],
}


class WorkerOnASimulatedOrin(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="gpumeter-jsim-"))
        self.socket = self.directory / "gpumeter.sock"
        scenario = self.directory / "orin-worker.json"
        scenario.write_text(json.dumps(WORKER_SCENARIO))
        self.database = self.directory / "gpumeter.db"  # in --state-dir
#t = 0 lies a second ahead, so the daemon is up before the worker gets busy.
        self.epoch_us = int((time.time() + 1.0) * 1e6)
        self.env = clean_env(GPUMETER_SIM_EPOCH_US=self.epoch_us)
        self.worker = subprocess.Popen([sys.executable, HERE / "task_worker.py", self.socket],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                       env=self.env)
        self.addCleanup(self.finish, self.worker)
        self.env["WORKER_PID"] = str(self.worker.pid)
        self.log = self.directory / "daemon.log"
        # The board's files go to a temporary directory of the test's own, checked at the end.
        self.tmp = self.directory / "tmp"
        self.tmp.mkdir()
        with open(self.log, "w") as log:
            self.daemon = subprocess.Popen(
                [GPUMETER, "--simulate-jetson", scenario, "daemon", "--socket", self.socket,
                 "--interval", "100ms", "--record-interval", "1s", "--state-dir", self.directory,
                 "--listen", "127.0.0.1:0"],
                env={**self.env, "TMPDIR": str(self.tmp)}, stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(self.finish, self.daemon)
        self.port = daemon_http_port(self.daemon, self.log)
        wait_for_first_round(self.port, self.daemon)

    @staticmethod
    def finish(process):
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)

    def tell(self, command):
        self.worker.stdin.write(command + "\n")
        self.worker.stdin.flush()
        reply = self.worker.stdout.readline()
        self.assertTrue(reply, f"the worker said nothing to {command!r}")
        return json.loads(reply)

    def run_task(self, name, begin_at, end_at):
        self.tell(f"wait_until {begin_at}")
        begun = self.tell(f"begin {name}")
        self.assertTrue(begun["ok"], begun)
        self.tell(f"wait_until {end_at}")
        ended = self.tell(f"end {begun['task']}")
        self.assertTrue(ended["ok"], ended)
        return ended

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as reply:
            return reply.read().decode()

    def test_tasks_get_device_level_figures_and_the_history_keeps_them(self):
        busy = self.run_task("detect", 2.5, 5.0)
        self.assertEqual(busy["state"], "ended")
        gpu = busy["usage"]["gpus"][0]
        self.assertEqual(gpu["attribution"], "device")
        self.assertEqual(gpu["uuid"], "JETSON-1424023099999")
#Well inside the busy stretch : the board 's load, 80 %, all of it the worker' s.
        self.assertAlmostEqual(gpu["sm_percent"], BUSY_PERCENT, delta=0.2)
        self.assertEqual(gpu["coverage"], 1.0)
        self.assertEqual(gpu["memory_peak_bytes"], 512 * MiB)  # from nvmap
        seconds = (busy["end_time_us"] - busy["begin_time_us"]) / 1e6
        watts = IDLE_W + (BUSY_W - IDLE_W) * BUSY_PERCENT / 100
        self.assertAlmostEqual(gpu["energy_device_joules"], watts * seconds, delta=0.03 * watts * seconds)
        self.assertAlmostEqual(gpu["energy_joules"], gpu["energy_device_joules"], places=6)
        self.assertIsNone(gpu["energy_other_processes_joules"])
        self.assertEqual(gpu["unavailable"]["energy_other_processes_joules"], "not_supported")
        self.assertEqual(gpu["unavailable"]["encoder_percent"], "not_supported")
        host = busy["usage"]["host"]
        self.assertIsNotNone(host["cpu_user_seconds"])
        self.assertGreater(host["peak_rss_bytes"], 0)

        idle = self.run_task("wait", 6.6, 8.0)
        gpu = idle["usage"]["gpus"][0]
        self.assertEqual(gpu["attribution"], "device")
        self.assertAlmostEqual(gpu["sm_percent"], 0.0, delta=0.2)
        self.assertAlmostEqual(gpu["energy_idle_joules"], gpu["energy_device_joules"], delta=0.01)

        self.assertIn("gpumeter_board_rail_power_watts{", self.metrics())
        table = run("tasks", "--socket", self.socket, env=self.env, check=True).stdout
        self.assertIn("device-level", table)
#The history : both tasks with their device - level figures; the worker's GPU time with
#its SM use unknown rather than 0.
        deadline = time.monotonic() + 60
        while True:
            with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as db:
                rows = db.execute("SELECT name, gpus FROM tasks ORDER BY begin_us").fetchall()
            if len(rows) == 2:
                break
            if time.monotonic() > deadline:
                self.fail(f"the history has {rows}")
            time.sleep(0.25)
        self.assertEqual([name for name, _ in rows], ["detect", "wait"])
        recorded = json.loads(rows[0][1])[0]
        self.assertEqual(recorded["attribution"], "device")
        self.assertAlmostEqual(recorded["sm_percent"], BUSY_PERCENT, delta=0.2)
        report = json.loads(run("report", "--database", self.database, "--by", "process",
                                "--since", "2000-01-01", "--format", "json", env=self.env,
                                check=True).stdout)
        worker = [row for row in report["rows"] if row["pid"] == self.worker.pid]
        self.assertTrue(worker, report["rows"])
        self.assertGreater(worker[0]["gpu_hours"], 0)
        self.assertEqual(worker[0]["sm_unknown_reason"], "not_supported")
        # SIGTERM stops the daemon as it stops on a real board (the board's writer thread takes
        # no signal), and the simulated board's files go with it.
        self.assertEqual(len(list(self.tmp.iterdir())), 1)
        self.daemon.send_signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=60), 0, self.log.read_text())
        self.assertIn("gpumeter daemon: stopped", self.log.read_text())
        self.assertEqual(list(self.tmp.iterdir()), [])


if __name__ == "__main__":
    unittest.main()
