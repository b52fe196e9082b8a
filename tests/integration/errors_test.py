# SPDX-License-Identifier: MIT
"""Bad input and missing pieces: one clear line, the right exit status, nothing half-done."""

import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import clean_env, run, simulate


class MissingDriver(unittest.TestCase):
    def test_absent_library_is_one_line_and_exit_2(self):
        env = clean_env(GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        result = run("list", env=env)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("libnvidia-ml.so.1", lines[0])
        self.assertIn("could not be loaded", lines[0])

    def test_every_subcommand_reports_it_the_same_way(self):
        env = clean_env(GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        for args in (["list", "--json"], ["info"], ["info", "--json"], ["available"]):
            with self.subTest(args=args):
                result = run(*args, env=env)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn("could not be loaded", result.stderr)

    def test_init_failure_is_reported(self):
        result = simulate("init-fails", "list")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("NVML", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


class BadScenario(unittest.TestCase):
    def write(self, text):
        directory = tempfile.mkdtemp()
        path = Path(directory) / "bad.json"
        path.write_text(text)
        return path

    def test_syntax_error_names_file_and_line(self):
        path = self.write('{\n  "devices": [\n    {"name": "A100",, }\n  ]\n}\n')
        result = run("--simulate", path, "list")
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"{path}:3", result.stderr)

    def test_wrong_type_names_file_line_and_expectation(self):
        path = self.write('{\n  "devices": [\n    {\n      "name": "A100",\n'
                          '      "memory_total_bytes": "lots"\n    }\n  ]\n}\n')
        result = run("--simulate", path, "list")
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"{path}:5", result.stderr)
        self.assertIn("number", result.stderr)

    def test_missing_scenario_file(self):
        result = run("--simulate", "/nonexistent/scenario.json", "list")
        self.assertEqual(result.returncode, 2)
        self.assertIn("/nonexistent/scenario.json", result.stderr)


class BadOptions(unittest.TestCase):
    def test_unknown_option(self):
        result = simulate("dgx-8gpu", "list", "--no-such-option")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--no-such-option", result.stderr)

    def test_bad_number(self):
        result = simulate("dgx-8gpu", "available", "--max-memory", "lots")
        self.assertEqual(result.returncode, 2)

    def test_unknown_subcommand(self):
        result = run("frobnicate")
        self.assertEqual(result.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
