# SPDX-License-Identifier: MIT
"""The Python client as a package: `pip install` from a copy of clients/python, offline, into a
fresh virtual environment, then nvgpu's calls (available_gpus, gpu_info), the richer devices()
and processes(), the `nvl` script and the public names, against the real gpumeter on the
simulated 8-GPU machine (the simulated libnvidia-ml.so.1 loaded as the driver would be), and
the same calls against a daemon on that machine over its HTTP API."""

import json
import os
import re
import shutil
import subprocess
import time
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["GPUMETER_SOURCE_DIR"])
BINARY = Path(os.environ["GPUMETER_BINARY_DIR"])
GPUMETER = os.environ["GPUMETER_BIN"]
SCENARIO = SOURCE / "examples" / "scenarios" / "dgx-8gpu.json"
MiB = 1 << 20
# Debian's interpreter, whose setuptools and wheel (Debian packages) build the package offline;
# the interpreter running this test may be another (a user's pyenv).
SYSTEM_PYTHON = "/usr/bin/python3"

PUBLIC = ["Client", "GpumeterError", "PROTOCOL_VERSION", "SYSTEM_SOCKET", "Task", "available_gpus",
          "default_socket_path", "devices", "gpu_info", "measured", "processes", "task"]

PROBE = """
import json, gpumeter
print(json.dumps({
    "public": sorted(n for n in dir(gpumeter) if not n.startswith("_")),
    "available": gpumeter.available_gpus(),
    "two": gpumeter.available_gpus(limit=2),
    "info": gpumeter.gpu_info(),
    "devices": len(gpumeter.devices()),
    "processes": [(p["gpu"], p["pid"]) for p in gpumeter.processes()],
    "typed": __import__("os").path.exists(__import__("os").path.join(
        __import__("os").path.dirname(gpumeter.__file__), "py.typed")),
}))
"""


class InstalledPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="gpumeter-pip-"))
        # A copy: pip builds in the tree it is given, which must not be the checkout.
        source = cls.directory / "python"
        shutil.copytree(SOURCE / "clients" / "python", source)
        cls.venv = cls.directory / "venv"
        # Debian's setuptools from the system: nothing is downloaded.
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", cls.venv], check=True)
        installed = subprocess.run(
            [cls.venv / "bin" / "python", "-m", "pip", "install", "--no-index",
             "--no-build-isolation", "--quiet", source], capture_output=True, text=True)
        if installed.returncode != 0:
            raise AssertionError(f"pip install failed:\n{installed.stdout}{installed.stderr}")
        runtime = cls.directory / "runtime"
        runtime.mkdir(mode=0o700)
        cls.env = {**{k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_SIM")},
                   "GPUMETER_BIN": GPUMETER,
                   "GPUMETER_NVML_LIBRARY": str(BINARY / "lib" / "gpumeter" / "sim" / "libnvidia-ml.so.1"),
                   "GPUMETER_SIM_SCENARIO": str(SCENARIO),
                   "XDG_RUNTIME_DIR": str(runtime)}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.directory, ignore_errors=True)

    def listed(self):
        result = subprocess.run([GPUMETER, "list", "--json"], env=self.env, capture_output=True,
                                text=True, check=True)
        return json.loads(result.stdout)["gpus"]

    def test_nvgpus_calls_answer_in_nvgpus_shapes(self):
        probe = subprocess.run([self.venv / "bin" / "python", "-c", PROBE], env=self.env,
                               capture_output=True, text=True, cwd=self.directory)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        answer = json.loads(probe.stdout)
        self.assertEqual(answer["public"], PUBLIC)
        self.assertEqual(answer["available"], ["0", "4", "5", "6", "7"])
        self.assertEqual(answer["two"], ["0", "4"])
        self.assertTrue(answer["typed"])
        gpus = self.listed()
        self.assertEqual(answer["devices"], len(gpus))
        self.assertEqual(len(answer["info"]), 8)
        for info, gpu in zip(answer["info"], gpus):
            self.assertEqual(set(info), {"index", "type", "uuid", "mem_used", "mem_total",
                                         "mem_used_percent"})
            self.assertEqual(info["index"], str(gpu["index"]))
            self.assertEqual(info["type"], "Tesla V100-SXM2-16GB")
            self.assertEqual(info["uuid"], gpu["uuid"])
            self.assertEqual(info["mem_used"], gpu["memory_used_bytes"] // MiB)
            self.assertEqual(info["mem_total"], gpu["memory_total_bytes"] // MiB)
            self.assertAlmostEqual(info["mem_used_percent"],
                                   100.0 * info["mem_used"] / info["mem_total"])
        busy = sorted((gpu["index"], p["pid"]) for gpu in gpus for p in gpu["processes"] or [])
        self.assertEqual(sorted(map(tuple, answer["processes"])), busy)
        self.assertEqual(len(busy), 3)

    def test_nvl_shows_the_gpu_table(self):
        shown = subprocess.run([self.venv / "bin" / "nvl", "--no-color"], env=self.env,
                               capture_output=True, text=True)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("Tesla V100-SXM2-16GB", shown.stdout)
        self.assertIn("GPU", shown.stdout.splitlines()[1])

    def test_without_gpumeter_the_error_says_where_to_look(self):
        env = {k: v for k, v in self.env.items() if k != "GPUMETER_BIN"}
        env["PATH"] = str(self.directory / "nowhere")
        probe = subprocess.run(
            [self.venv / "bin" / "python", "-c",
             "import gpumeter\ntry:\n gpumeter.gpu_info()\nexcept gpumeter.GpumeterError as e:\n print(e.code, e)"],
            env=env, capture_output=True, text=True, cwd=self.directory)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        self.assertIn("not_found", probe.stdout)
        self.assertIn("GPUMETER_BIN", probe.stdout)

    def test_the_same_calls_answer_from_a_daemon(self):
        log = self.directory / "daemon.log"
        with open(log, "w") as out:
            daemon = subprocess.Popen(
                [GPUMETER, "daemon", "--listen", "127.0.0.1:0", "--state-dir",
                 self.directory / "state", "--socket", self.directory / "d.sock"],
                env=self.env, stdout=out, stderr=subprocess.STDOUT)
        self.addCleanup(daemon.wait, 30)
        self.addCleanup(daemon.terminate)
        deadline = time.monotonic() + 60
        while not (found := re.search(r"serving HTTP on (http://127\.0\.0\.1:\d+)", log.read_text())):
            self.assertIsNone(daemon.poll(), log.read_text())
            self.assertLess(time.monotonic(), deadline, log.read_text())
            time.sleep(0.1)
        url = found.group(1)
        probe = (f"import json, time, gpumeter\n"
                 f"for _ in range(100):\n"
                 f"    try:\n"
                 f"        info = gpumeter.gpu_info(server={url!r}); break\n"
                 f"    except gpumeter.GpumeterError:\n"
                 f"        time.sleep(0.2)  # 503 until the daemon's first round\n"
                 f"print(json.dumps([info, gpumeter.gpu_info(), len(gpumeter.processes(server={url!r}))]))")
        result = subprocess.run([self.venv / "bin" / "python", "-c", probe], env=self.env,
                                capture_output=True, text=True, cwd=self.directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        served, local, busy = json.loads(result.stdout)
        self.assertEqual(served, local)
        self.assertEqual(busy, 3)
        refused = subprocess.run(
            [self.venv / "bin" / "python", "-c",
             "import gpumeter\ntry:\n gpumeter.devices(server='http://127.0.0.1:1')\n"
             "except gpumeter.GpumeterError as e:\n print(e.code)"],
            env=self.env, capture_output=True, text=True, cwd=self.directory)
        self.assertEqual(refused.stdout.strip(), "not_found", refused.stderr)

    def test_it_uninstalls_cleanly(self):
        listed = subprocess.run([self.venv / "bin" / "python", "-m", "pip", "show", "-f", "gpumeter"],
                                capture_output=True, text=True, check=True).stdout
        self.assertIn("gpumeter/py.typed", listed)
        self.assertIn("nvl", listed)


if __name__ == "__main__":
    unittest.main()
