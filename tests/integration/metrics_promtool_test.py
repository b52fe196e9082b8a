# SPDX-License-Identifier: MIT
"""`gpumeter list --prometheus` on every bundled scenario, checked by Prometheus's own linter
(`promtool check metrics`, Debian's prometheus package): it must pass without a single warning."""

import re
import shutil
import subprocess
import unittest
from concurrent.futures import ThreadPoolExecutor

from gpumeter_testlib import SCENARIOS, simulate

PROMTOOL = shutil.which("promtool")
# Scenarios whose driver cannot be read (driver-late: not in a process's first seconds): the
# command fails, as `list` does.
FAILING = {"init-fails", "driver-late"}


def promtool_check(text):
    return subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=60)


@unittest.skipIf(PROMTOOL is None, "promtool is not installed (scripts/install-deps.sh)")
class PromtoolLint(unittest.TestCase):
    def check_clean(self, label, exposition):
        checked = promtool_check(exposition)
        self.assertEqual(checked.returncode, 0,
                         f"{label}: promtool: {checked.stdout}{checked.stderr}")
        self.assertEqual(checked.stdout + checked.stderr, "", label)

    def test_every_scenario_lints_clean(self):
        names = sorted(p.stem for p in SCENARIOS.glob("*.json"))
        self.assertGreaterEqual(len(names), 5)
        # Each run samples for two seconds: run them side by side.
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = dict(zip(names, pool.map(lambda n: simulate(n, "list", "--prometheus"),
                                                names)))
        for name, result in results.items():
            with self.subTest(scenario=name):
                if name in FAILING:
                    self.assertNotEqual(result.returncode, 0)
                    self.assertEqual(result.stdout, "")
                    continue
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn("# TYPE gpumeter_build_info gauge\n", result.stdout)
                self.check_clean(name, result.stdout)
        self.assert_series_per_gpu(results)

    def assert_series_per_gpu(self, results):
        """docs/metrics.md's bound on the series of one GPU: 34 families of gpumeter_gpu_*, and
        8 more with GPM (a board before Ampere has 3 of retired pages instead of 4 of remapped
        rows). No GPU has more, and the scenarios between them show every one of
        them (no bundled GPU has them all: a datacenter GPU has no fan)."""
        families = set()
        for name, result in results.items():
            per_gpu = {}
            for line in result.stdout.splitlines():
                found = re.match(r'(gpumeter_gpu_\w+)\{[^}]*gpu="(\d+)"', line)
                if found:
                    per_gpu.setdefault(found.group(2), []).append(found.group(1))
                    families.add(found.group(1))
            for gpu, series in per_gpu.items():
                gpm = any("_gpm_" in family for family in series)
                self.assertLessEqual(len(series), 42 if gpm else 34, f"{name} GPU {gpu}")
        gpm = {family for family in families if "_gpm_" in family}
        self.assertEqual((len(families - gpm), len(gpm)), (37, 8), sorted(families))

    def test_every_process_limit_lints_clean(self):
        limits = ["top:1", "users", "none"]
        with ThreadPoolExecutor(max_workers=3) as pool:
            results = list(pool.map(lambda limit: simulate(
                "workstation", "list", "--prometheus", "--metrics-processes", limit, check=True),
                limits))
        for limit, result in zip(limits, results):
            with self.subTest(limit=limit):
                self.check_clean(limit, result.stdout)

    def test_promtool_does_flag_a_bad_exposition(self):
        # The linter this test relies on does speak up: a counter without _total, and a
        # millisecond unit.
        checked = promtool_check("# HELP x_milliseconds X\n# TYPE x_milliseconds counter\n"
                                 "x_milliseconds 1\n")
        self.assertNotEqual(checked.returncode, 0)
        self.assertIn("_total", checked.stdout + checked.stderr)


if __name__ == "__main__":
    unittest.main()
