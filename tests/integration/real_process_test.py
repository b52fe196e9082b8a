# SPDX-License-Identifier: MIT
"""A scenario process that is a real process this test spawned: user, command and start
time come from the real /proc."""

import json
import os
import pwd
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import clean_env, run

SCENARIO = {
    "driver": {"driver_version": "570.124.06", "nvml_version": "12.570.124.06",
               "cuda_driver_version": 12080},
    "devices": [{"name": "NVIDIA L4", "memory_total_bytes": 24152899584}],
    "processes": [{"device": 0, "pid_env": "WORKER_PID", "used_memory_bytes": 1073741824,
                   "utilization": {"sm": 30}}],
}


class RealProcess(unittest.TestCase):
    def setUp(self):
        self.started = time.time()
        self.worker = subprocess.Popen(["sleep", "300"])
        self.addCleanup(self.worker.wait)
        self.addCleanup(self.worker.kill)
        path = Path(tempfile.mkdtemp()) / "real.json"
        path.write_text(json.dumps(SCENARIO))
        self.scenario = path

    def test_user_command_and_start_time_come_from_proc(self):
        env = clean_env(WORKER_PID=self.worker.pid)
        result = run("--simulate", self.scenario, "list", "--json", env=env, check=True)
        process = json.loads(result.stdout)["gpus"][0]["processes"][0]
        self.assertEqual(process["pid"], self.worker.pid)
        self.assertEqual(process["uid"], os.getuid())
        self.assertEqual(process["user"], pwd.getpwuid(os.getuid()).pw_name)
        self.assertEqual(process["cmdline"], ["sleep", "300"])
        self.assertEqual(process["command"], "sleep 300")
        # /proc start times have clock-tick resolution and btime whole seconds.
        self.assertAlmostEqual(process["start_time_us"] / 1e6, self.started, delta=2.0)

    def test_process_that_exits_is_dropped_or_marked_gone(self):
        env = clean_env(WORKER_PID=self.worker.pid)
        self.worker.kill()
        self.worker.wait()
        result = run("--simulate", self.scenario, "list", "--json", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        gpu = json.loads(result.stdout)["gpus"][0]
        for process in gpu["processes"]:
            self.assertIsNone(process["user"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
