# SPDX-License-Identifier: MIT
"""`gpumeter run` end to end: a real worker process, started by gpumeter, names itself to the
simulated driver through the scenario's pid_file and is busy at a scripted SM rate; the
summary and the JSON document follow the script and the schema; the command's exit status,
signals, orphaned grandchildren, failures to execute, a machine without a GPU and limits
(or the error that says how to get them)."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import GPUMETER, SCHEMAS, clean_env

HERE = Path(__file__).resolve().parent
NOBODY = 65534
WORKER = HERE / "run_worker.py"
GiB = 1 << 30
# The worker's SM use over scenario time: idle, 80 % from t = 1 s to t = 3 s, idle again.
BUSY_FROM, BUSY_UNTIL, BUSY_PERCENT = 1.0, 3.0, 80


def scenario(pid_file):
    return {
        "devices": [{"name": "NVIDIA L4", "memory_total_bytes": 24152899584,
                     "power_limit_w": 72, "power_idle_w": 16}],
        "processes": [{"device": 0, "pid_file": str(pid_file), "used_memory_bytes": GiB,
                       "utilization": {"sm": {"steps": [[0, 0], [BUSY_FROM, BUSY_PERCENT],
                                                        [BUSY_UNTIL, 0]]},
                                       "enc": {"steps": [[0, 0], [BUSY_FROM, 10],
                                                         [BUSY_UNTIL, 0]]}}}],
    }


def scripted_sm_average(begin_us, end_us, epoch_us):
    """What the script says the SM average over [begin, end] is."""
    begin, end = (begin_us - epoch_us) / 1e6, (end_us - epoch_us) / 1e6
    overlap = max(0.0, min(end, BUSY_UNTIL) - max(begin, BUSY_FROM))
    return BUSY_PERCENT * overlap / (end - begin)


def validate(document):
    import jsonschema  # Debian's python3-jsonschema
    schema = json.loads((SCHEMAS / "run.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)


class Run(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp())
        self.pid_file = self.directory / "worker.pid"
        self.scenario = self.directory / "worker.json"
        self.scenario.write_text(json.dumps(scenario(self.pid_file)))
        self.json = self.directory / "run.json"
        # t = 0 lies half a second ahead: gpumeter and the worker are up before it gets busy.
        self.epoch_us = int((time.time() + 0.5) * 1e6)
        self.env = clean_env(GPUMETER_SIM_EPOCH_US=self.epoch_us)

    def gpumeter(self, *args, simulate=True):
        prefix = ["--simulate", self.scenario] if simulate else []
        return [GPUMETER, *map(str, prefix), "run", "--interval", "200ms", "--json", self.json,
                *map(str, args)]

    def run_gpumeter(self, *args, simulate=True, env=None):
        return subprocess.run(self.gpumeter(*args, simulate=simulate), capture_output=True,
                              text=True, env=env or self.env, timeout=120)

    def worker(self, until, *options):
        return ["--", sys.executable, WORKER, self.pid_file, until, *options]

    def document(self):
        document = json.loads(self.json.read_text())
        validate(document)
        return document

    def test_the_gpu_figures_follow_the_script(self):
        result = self.run_gpumeter(*self.worker(4.0))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "worker started\n", "the command's stdout stays clean")
        run = self.document()
        self.assertEqual(run["exit"], {"status": 0, "code": 0, "signal": None,
                                       "signal_name": None, "core_dumped": False})
        self.assertEqual(run["gpu_source"], "nvml (simulated: worker.json)")
        self.assertEqual(run["gpus_seen"], 1)
        self.assertEqual(len(run["gpus"]), 1, run)
        gpu = run["gpus"][0]
        expected = scripted_sm_average(run["start_time_us"], run["end_time_us"], self.epoch_us)
        self.assertAlmostEqual(gpu["sm_percent"], expected, delta=3.0)
        self.assertAlmostEqual(gpu["sm_peak_percent"], BUSY_PERCENT, delta=1.0)
        self.assertAlmostEqual(gpu["sm_busy_seconds"],
                               BUSY_PERCENT / 100 * (BUSY_UNTIL - BUSY_FROM), delta=0.1)
        self.assertGreater(gpu["encoder_percent"], 0.0)
        self.assertEqual(gpu["memory_peak_bytes"], GiB)
        self.assertGreater(gpu["energy_joules"], 0.0)
        self.assertLessEqual(gpu["energy_joules"], gpu["energy_device_joules"])
        self.assertEqual(gpu["coverage"], 1.0)
        self.assertFalse(gpu["low_confidence"])
        self.assertGreaterEqual(run["processes"], 1)
        self.assertAlmostEqual(run["wall_seconds"],
                               (run["end_time_us"] - run["start_time_us"]) / 1e6, delta=0.05)
        for line in ["gpumeter run: ", "exit status           0", "GPU 0                 NVIDIA L4",
                     f"SM                  {gpu['sm_percent']:.1f}% average, 80% peak",
                     "encoder",
                     "GPU memory          1.0GiB peak"]:
            self.assertIn(line, result.stderr)
        self.assertNotIn("decoder", result.stderr, "an engine the tree did not use is left out")

    def test_the_exit_status_passes_through(self):
        result = self.run_gpumeter(*self.worker(0, "--exit", "7"))
        self.assertEqual(result.returncode, 7, result.stderr)
        self.assertEqual(self.document()["exit"]["code"], 7)
        killed = self.run_gpumeter("--", sys.executable, "-c",
                                   "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
        self.assertEqual(killed.returncode, 128 + signal.SIGKILL, killed.stderr)
        run = self.document()
        self.assertEqual((run["exit"]["status"], run["exit"]["code"], run["exit"]["signal"],
                          run["exit"]["signal_name"]), (137, None, 9, "SIGKILL"))
        self.assertIn("137 (killed by SIGKILL)", killed.stderr)

    def start_and_wait_for_worker(self, *options):
        process = subprocess.Popen(self.gpumeter(*self.worker(60, *options)),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=self.env)
        self.addCleanup(self.finish, process)
        self.assertEqual(process.stdout.readline(), "worker started\n")
        return process

    @staticmethod
    def finish(process):
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=60)

    def test_sigterm_is_passed_on_to_the_command(self):
        process = self.start_and_wait_for_worker()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 128 + signal.SIGTERM, stderr)
        self.assertEqual(self.document()["exit"]["signal_name"], "SIGTERM")

    def test_a_command_that_handles_sigterm_gives_its_own_status(self):
        process = self.start_and_wait_for_worker("--on-term", "42")
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 42, stderr)
        self.assertEqual(Path(str(self.pid_file) + ".terminated").read_text(), "terminated\n")

    def test_an_orphaned_grandchild_is_followed_and_its_cpu_counted(self):
        cpu = 1.5
        result = self.run_gpumeter(*self.worker(0, "--orphan", str(cpu)), simulate=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        run = self.document()
        # The grandchild's parent exited at once; without gpumeter as its subreaper it would
        # have been reparented to init, and neither waited for nor counted.
        self.assertGreaterEqual(run["cpu_user_seconds"] + run["cpu_system_seconds"], cpu)
        self.assertGreaterEqual(run["cpu_user_seconds"], cpu / 2)
        self.assertGreaterEqual(run["processes"], 2)

    def test_a_command_that_cannot_be_run(self):
        missing = self.run_gpumeter("--", "gpumeter-no-such-command")
        self.assertEqual(missing.returncode, 127)
        self.assertEqual(missing.stderr,
                         "gpumeter run: gpumeter-no-such-command: command not found\n")
        not_executable = self.directory / "script"
        not_executable.write_text("#!/bin/sh\n")
        denied = self.run_gpumeter("--", not_executable)
        self.assertEqual(denied.returncode, 126)
        self.assertEqual(denied.stderr, f"gpumeter run: {not_executable}: Permission denied\n")
        self.assertFalse(self.json.exists(), "no document for a command that never ran")

    def test_without_a_gpu_cpu_and_memory_are_still_measured(self):
        env = dict(self.env, GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        result = self.run_gpumeter("--", sys.executable, "-c", "print('hello')",
                                   simulate=False, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "hello\n")
        self.assertIn("no GPU found: NVML (/nonexistent/libnvidia-ml.so.1) could not be loaded",
                      result.stderr)
        run = self.document()
        self.assertTrue(run["gpu_error"].startswith("no GPU found"))
        self.assertEqual(run["gpus"], [])
        self.assertGreater(run["max_rss_bytes"], 0)

    def test_limits_run_in_a_cgroup_or_are_refused_with_the_way_to_get_one(self):
        marker = self.directory / "ran"
        reader = ("import pathlib, sys\n"
                  "pathlib.Path(sys.argv[1]).write_text('')\n"
                  "print(open('/proc/self/cgroup').read())\n")
        result = self.run_gpumeter("--memory", "256M", "--cpus", "0.5", "--", sys.executable,
                                   "-c", reader, marker, simulate=False)
        if result.returncode == 2:
            self.assertIn("need a cgroup of their own", result.stderr)
            self.assertIn("systemd-run --user --scope -p Delegate=yes gpumeter run", result.stderr)
            self.assertIn("The command was not run.", result.stderr)
            self.assertFalse(marker.exists())
            return
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(marker.exists())
        run = self.document()
        self.assertEqual(run["limits"], {"cpu_quota_us": 50000, "cpu_period_us": 100000,
                                         "cpuset": None, "memory_bytes": 256 << 20})
        self.assertIsNotNone(run["cgroup"])
        group = Path(run["cgroup"]["path"]).name
        self.assertRegex(group, r"^gpumeter-run-[0-9]+$")
        self.assertIn(f"/{group}\n", result.stdout, "the command ran in the cgroup")
        self.assertFalse(Path(run["cgroup"]["path"]).exists(), "the cgroup is removed")

    @unittest.skipUnless(os.getuid() == 0, "runs gpumeter as another user, which needs root")
    def test_limits_where_no_cgroup_may_be_made_are_refused(self):
        self.directory.chmod(0o777)
        marker = self.directory / "ran"

        def as_nobody():
            os.setgid(NOBODY)
            os.setuid(NOBODY)

        result = subprocess.run([GPUMETER, "run", "--memory", "1G", "--", "touch", marker],
                                capture_output=True, text=True, env=self.env, timeout=120,
                                preexec_fn=as_nobody)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(result.stderr, r"^gpumeter run: the limits asked for \(memory\) need a "
                                        r"cgroup of their own, and none could be made: cannot ")
        self.assertIn("Run as root, or where a cgroup is delegated to you, e.g. `systemd-run "
                      "--user --scope -p Delegate=yes gpumeter run ...`. The command was not "
                      "run.\n", result.stderr)
        self.assertFalse(marker.exists())

    def test_a_cpu_limit_holds_a_busy_loop_back(self):
        loop = "import time\nt = time.time()\nwhile time.time() - t < 1.5: pass\n"
        result = self.run_gpumeter("--cpus", "0.5", "--", sys.executable, "-c", loop,
                                   simulate=False)
        if result.returncode == 2:
            self.assertIn("need a cgroup of their own", result.stderr)
            return
        self.assertEqual(result.returncode, 0, result.stderr)
        run = self.document()
        # An upper bound only: a busy machine can give the loop less, never more.
        busy = run["cpu_user_seconds"] + run["cpu_system_seconds"]
        self.assertLessEqual(busy, 0.5 * run["wall_seconds"] + 0.2, run)

    def test_a_cpu_percentage_of_a_cpuset_is_of_its_cpus_only(self):
        loop = "import time\nt = time.time()\nwhile time.time() - t < 1.5: pass\n"
        result = self.run_gpumeter("--cpu-percent", "50", "--cpuset", "0", "--", sys.executable,
                                   "-c", loop, simulate=False)
        if result.returncode == 2:
            self.assertIn("need a cgroup of their own", result.stderr)
            return
        self.assertEqual(result.returncode, 0, result.stderr)
        run = self.document()
        self.assertEqual(run["limits"]["cpu_quota_us"], 50000, "half of CPU 0, on any machine")
        # Counted over every online CPU, the quota would let the loop keep CPU 0 busy.
        busy = run["cpu_user_seconds"] + run["cpu_system_seconds"]
        self.assertLessEqual(busy, 0.5 * run["wall_seconds"] + 0.2, run)

    def test_bad_options_exit_2_before_anything_runs(self):
        marker = self.directory / "ran"
        command = ["--", "touch", marker]
        for options, message in [
                (["--cpus", "1", "--cpu-percent", "50"], "excludes"),
                (["--cpuset", "100000"], "--cpuset: "),
                (["--memory", "4X"], "--memory: \"4X\" is not a size"),
                (["--no-cgroup", "--memory", "1G"], "excludes")]:
            result = self.run_gpumeter(*options, *command, simulate=False)
            self.assertEqual(result.returncode, 2, options)
            self.assertIn(message, result.stderr, options)
        self.assertFalse(marker.exists())


if __name__ == "__main__":
    unittest.main(verbosity=2)
