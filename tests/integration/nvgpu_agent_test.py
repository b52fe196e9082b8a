# SPDX-License-Identifier: MIT
"""An nvgpu master polling a gpumeter daemon: GET /gpu_status on a daemon of the simulated
workstation, read the way nvgpu's master reads each agent's report: `hostname`, then per GPU
the nine columns of its table, each of the JSON type a recorded nvgpu agent sends
(tests/view/fixtures/nvgpu-agent-gpu-status.json), and its status marks: `[ ]` for an
available GPU, `[!]` where the owner cannot be seen, `[~]` for the rest."""

import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import GPUMETER, SOURCE_DIR, OneDaemon, clean_env, scenario

FIXTURE = SOURCE_DIR / "tests" / "view" / "fixtures" / "nvgpu-agent-gpu-status.json"
# The columns nvgpu's master builds its table from, in its order.
COLUMNS = ["is_available", "type", "utilization", "clock_mhz", "temperature", "users",
           "running_since", "pids", "cmd"]


def nvgpu_mark(gpu):
    """The status column nvgpu's master draws for one GPU of a report."""
    if gpu["users"] == "?":
        return "[!]"
    return "[ ]" if gpu["is_available"] else "[~]"


class NvgpuMasterReadsAGpumeterAgent(OneDaemon, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-nvgpu-"))
        cls.log = cls.directory / "daemon.log"
        with open(cls.log, "w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("workstation"), "daemon", "--interval",
                 "500ms", "--state-dir", cls.directory, "--socket", cls.directory / "d.sock",
                 "--listen", "127.0.0.1:0"],
                env=clean_env(), stdout=log, stderr=subprocess.STDOUT)
        cls.port = cls.served_port()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.directory, ignore_errors=True)

    def test_every_column_with_the_type_an_nvgpu_agent_sends(self):
        recorded = json.loads(FIXTURE.read_text())
        kinds = {}
        for gpu in recorded["gpus"]:
            for column in COLUMNS:
                if gpu[column] is not None:
                    kinds[column] = type(gpu[column])
        report = json.loads(self.get("/gpu_status"))
        self.assertIsInstance(report["hostname"], str)
        self.assertEqual(len(report["gpus"]), 4)
        for gpu in report["gpus"]:
            for column in COLUMNS:
                self.assertIn(column, gpu)
                if gpu[column] is not None:
                    self.assertIsInstance(gpu[column], kinds[column], (column, gpu[column]))
        marks = [nvgpu_mark(gpu) for gpu in report["gpus"]]
        # The workstation: two GPUs in use, one whose process's owner cannot be seen, one free.
        self.assertEqual(marks, ["[~]", "[!]", "[~]", "[ ]"])
        busy = report["gpus"][0]
        self.assertEqual(busy["type"], "NVIDIA GeForce GTX 1080 Ti")
        self.assertTrue(busy["running_since"].endswith(" ago"), busy)
        self.assertEqual(len(busy["pids"].split(",")), len(busy["users"].split(",")))
        free = report["gpus"][3]
        self.assertEqual((free["pids"], free["users"], free["running_since"], free["cmd"]),
                         ("", "", None, None))


if __name__ == "__main__":
    unittest.main()
