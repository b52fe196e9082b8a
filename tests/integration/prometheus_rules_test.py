# SPDX-License-Identifier: MIT
"""examples/prometheus/rules.yml and alerts.yml pass `promtool check rules`, and their unit
tests (tests/prometheus/*_test.yml) pass `promtool test rules`; every alert is exercised by a
test that expects it to fire, and every documented dcgm-exporter and nvidia_gpu_exporter name
is recorded. (tests/integration/fleet_report_test.py loads both files into a real Prometheus.)"""

import re
import shutil
import subprocess
import unittest

from gpumeter_testlib import SOURCE_DIR

PROMTOOL = shutil.which("promtool")
EXAMPLES = SOURCE_DIR / "examples" / "prometheus"
TESTS = SOURCE_DIR / "tests" / "prometheus"


def promtool(*args):
    return subprocess.run([PROMTOOL, *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@unittest.skipIf(PROMTOOL is None, "promtool is not installed (scripts/install-deps.sh)")
class PrometheusRules(unittest.TestCase):
    def test_the_rule_files_check_clean(self):
        for name in ["rules.yml", "alerts.yml"]:
            checked = promtool("check", "rules", EXAMPLES / name)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
            self.assertIn("SUCCESS", checked.stdout)
            self.assertNotIn("WARNING", checked.stdout + checked.stderr)

    def test_the_unit_tests_pass(self):
        tested = promtool("test", "rules", TESTS / "rules_test.yml", TESTS / "alerts_test.yml")
        self.assertEqual(tested.returncode, 0, tested.stdout + tested.stderr)

    def test_every_alert_is_seen_firing(self):
        alerts = re.findall(r"^\s*- alert: (\w+)", (EXAMPLES / "alerts.yml").read_text(),
                            re.MULTILINE)
        self.assertGreaterEqual(len(alerts), 11)
        tests = (TESTS / "alerts_test.yml").read_text()
        # A test case that expects alerts names the alert and lists at least one.
        firing = set(re.findall(r"alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels", tests))
        self.assertEqual(sorted(firing), sorted(alerts))

    def test_every_documented_name_is_recorded(self):
        recorded = set(re.findall(r"^\s*- record: (\S+)", (EXAMPLES / "rules.yml").read_text(),
                                  re.MULTILINE))
        documented = set(re.findall(r"`((?:DCGM_FI_DEV|nvidia_smi)_\w+)`",
                                    (SOURCE_DIR / "docs" / "metrics.md").read_text()))
        self.assertGreaterEqual(len(documented), 10)
        self.assertLessEqual(documented, recorded, documented - recorded)
        tested = set(re.findall(r"expr: ((?:DCGM_FI_DEV|nvidia_smi)_\w+)",
                                (TESTS / "rules_test.yml").read_text()))
        self.assertGreaterEqual(len(tested), 5)
        self.assertLessEqual(tested, recorded)


if __name__ == "__main__":
    unittest.main()
