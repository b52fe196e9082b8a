# SPDX-License-Identifier: MIT
"""`gpumeter available`: which GPUs are free, and no two callers get the same one."""

import subprocess
import tempfile
import unittest

from gpumeter_testlib import GPUMETER, clean_env, list_json, scenario, simulate

FREE = [0, 4, 5, 6, 7]  # the 8-GPU scenario: GPUs 1, 2 and 3 are busy


def private_runtime_env():
    """Each test reserves in its own runtime directory, as a separate login would."""
    return clean_env(XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="gpumeter-rt-"))


class Selection(unittest.TestCase):
    def test_all_free_gpus_comma_separated(self):
        result = simulate("dgx-8gpu", "available", "--no-reserve", env=private_runtime_env())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), ",".join(map(str, FREE)))

    def test_limit(self):
        result = simulate("dgx-8gpu", "available", "-l", "2", env=private_runtime_env())
        self.assertEqual(result.stdout.strip(), "0,4")

    def test_uuid(self):
        uuids = {g["index"]: g["uuid"] for g in list_json("dgx-8gpu")["gpus"]}
        result = simulate("dgx-8gpu", "available", "-l", "1", "--uuid", env=private_runtime_env())
        self.assertEqual(result.stdout.strip(), uuids[0])

    def test_thresholds_can_admit_busy_gpus(self):
        result = simulate("dgx-8gpu", "available", "--no-reserve", "--max-memory", "100",
                          "--max-util", "100", env=private_runtime_env())
        self.assertEqual(result.stdout.strip(), ",".join(map(str, range(8))))


    def test_priority_puts_the_strongest_gpu_first(self):
        # The workstation's 250 W GTX 1080 Tis before its 151 W GTX 1070s; within each model,
        # the one with the most free memory first (every GPU admitted by the thresholds).
        result = simulate("workstation", "available", "--order", "priority", "--max-memory",
                          "100", "--max-util", "100", env=private_runtime_env())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "1,0,3,2")


class Reservation(unittest.TestCase):
    def test_concurrent_callers_never_get_the_same_gpu(self):
        env = private_runtime_env()
        command = [GPUMETER, "--simulate", str(scenario("dgx-8gpu")), "available", "-l", "1"]
        callers = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for _ in range(5)]
        outputs = [c.communicate(timeout=60) for c in callers]
        chosen = [out.strip() for out, _ in outputs]
        self.assertTrue(all(c.returncode == 0 for c in callers), outputs)
        self.assertEqual(sorted(map(int, chosen)), FREE)

    def test_nothing_left_means_exit_1_and_a_reason(self):
        env = private_runtime_env()
        first = simulate("dgx-8gpu", "available", "-l", "5", env=env)
        self.assertEqual(first.returncode, 0, first.stderr)
        second = simulate("dgx-8gpu", "available", "-l", "1", env=env)
        self.assertEqual(second.returncode, 1)
        self.assertEqual(second.stdout, "")
        self.assertIn("no free GPU", second.stderr)

    def test_asking_for_more_than_are_free_holds_nothing(self):
        env = private_runtime_env()
        too_many = simulate("dgx-8gpu", "available", "-l", "6", env=env)
        self.assertEqual(too_many.returncode, 1)
        self.assertEqual(too_many.stdout, "")
        every_free = simulate("dgx-8gpu", "available", "-l", "5", env=env)
        self.assertEqual(every_free.stdout.strip(), ",".join(map(str, FREE)))

    def test_listing_every_free_gpu_reserves_nothing(self):
        # A look at what is free must not hold it against the next call that picks one.
        env = private_runtime_env()
        listed = simulate("dgx-8gpu", "available", env=env, check=True)
        self.assertEqual(listed.stdout.strip(), ",".join(map(str, FREE)))
        picked = simulate("dgx-8gpu", "available", "-l", "5", env=env)
        self.assertEqual(picked.returncode, 0, picked.stderr)
        self.assertEqual(picked.stdout.strip(), ",".join(map(str, FREE)))

    def test_reserve_makes_a_listing_hold_what_it_prints(self):
        env = private_runtime_env()
        simulate("dgx-8gpu", "available", "--reserve", env=env, check=True)
        blocked = simulate("dgx-8gpu", "available", "-l", "1", env=env)
        self.assertEqual(blocked.returncode, 1)
        self.assertIn("--no-reserve prints them anyway", blocked.stderr)
        both = simulate("dgx-8gpu", "available", "--reserve", "--no-reserve", env=env)
        self.assertEqual(both.returncode, 2)

    def test_a_limit_of_zero_is_refused_with_a_reason(self):
        result = simulate("dgx-8gpu", "available", "-l", "0", env=private_runtime_env())
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn("N must be a whole number of GPUs from 1", result.stderr)
        self.assertLess(len(result.stderr), 200, result.stderr)

    def test_wait_gives_up_after_its_timeout(self):
        env = private_runtime_env()
        simulate("dgx-8gpu", "available", "-l", "5", env=env, check=True)
        result = simulate("dgx-8gpu", "available", "-l", "1", "--wait", "1", env=env)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
