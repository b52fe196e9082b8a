# SPDX-License-Identifier: MIT
"""Faults the driver really has: a GPU that falls off the bus, calls that fail now and then.
The affected values are absent; everything else carries on."""

import os
import re
import unittest

from gpumeter_testlib import clean_env, epoch_seconds_ago, list_json, simulate


def rows_of_gpu(table, index):
    """Each frame's row for GPU `index`, in order."""
    return [line for line in table.splitlines() if re.match(rf"^\s*{index}\s+(\[|lost)", line)]


class LostGpu(unittest.TestCase):
    def test_lost_gpu_is_marked_and_the_other_carries_on(self):
        doc = list_json("lost-gpu", env=clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(10)))
        first, second = doc["gpus"]
        self.assertEqual(second["status"], "lost")
        self.assertEqual(second["index"], 1)
        # Lost before this process first saw it: not even its handle can be had, so its
        # identity is unknown too (a watching process keeps what it saw before).
        self.assertIsNone(second["uuid"])
        self.assertIsNone(second["utilization_gpu_percent"])
        self.assertEqual(first["status"], "in_use")
        self.assertEqual(first["processes"][0]["pid"], 61021)
        self.assertEqual(first["utilization_gpu_percent"], 83)

    def test_gpu_lost_while_watching(self):
        # The GPU is lost 2 s into the scenario: the first row must come before. A sanitized
        # build takes about a second to start, so its scenario starts with the command.
        sanitized = os.environ.get("GPUMETER_TEST_SANITIZED") == "1"
        env = clean_env(GPUMETER_SIM_EPOCH_US=epoch_seconds_ago(0 if sanitized else 0.5))
        result = simulate("lost-gpu", "list", "--no-color", "--watch", "1", "--count", "4",
                          env=env, check=True)
        rows = rows_of_gpu(result.stdout, 1)
        self.assertEqual(len(rows), 4, result.stdout)
        self.assertIn("[~]", rows[0])
        self.assertIn("lost", rows[-1])
        self.assertTrue(all("[~]" in r for r in rows_of_gpu(result.stdout, 0)))
        self.assertIn("A100", rows[-1])  # identity seen before the loss is kept


class FlakyDriver(unittest.TestCase):
    def test_intermittent_unknown_blanks_only_that_value(self):
        result = simulate("flaky", "list", "--no-color", "--watch", "0.05", "--count", "6",
                          check=True)
        gpu0 = rows_of_gpu(result.stdout, 0)
        gpu1 = rows_of_gpu(result.stdout, 1)
        self.assertEqual(len(gpu0), 6, result.stdout)
        self.assertTrue(any(re.search(r"N/A\s*/\s*\d+\s*W", r) for r in gpu0), gpu0)
        self.assertTrue(any(re.search(r"\d+\s*W\s*/\s*\d+\s*W", r) for r in gpu0), gpu0)
        self.assertFalse(any(re.search(r"N/A\s*/\s*\d+\s*W", r) for r in gpu1), gpu1)
        self.assertTrue(all("[~]" in row for row in gpu0), gpu0)

    def test_json_stays_valid_with_absent_values(self):
        doc = list_json("flaky")
        self.assertEqual(len(doc["gpus"]), 2)
        for gpu in doc["gpus"]:
            self.assertIsInstance(gpu["memory_used_bytes"], int)


class UnsupportedFields(unittest.TestCase):
    def test_fields_a_gpu_lacks_are_null_with_a_reason(self):
        doc = list_json("dgx-8gpu")  # V100 SXM2 boards have no fan
        for gpu in doc["gpus"]:
            self.assertIsNone(gpu["fan_speed_percent"])
            self.assertEqual(gpu["unavailable"]["fan_speed_percent"], "not_supported")
            self.assertIsInstance(gpu["temperature_celsius"], int)


if __name__ == "__main__":
    unittest.main(verbosity=2)
