# SPDX-License-Identifier: MIT
"""examples/prometheus/prometheus.yml passes `promtool check config` (which loads the rule files
it names), as shipped and with its bearer-token block uncommented (the way a fleet that runs
daemons with --token-file uses it)."""

import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import SOURCE_DIR

PROMTOOL = shutil.which("promtool")
EXAMPLE = SOURCE_DIR / "examples" / "prometheus" / "prometheus.yml"


def check_config(path):
    return subprocess.run([PROMTOOL, "check", "config", str(path)], capture_output=True,
                          text=True, timeout=60)


@unittest.skipIf(PROMTOOL is None, "promtool is not installed (scripts/install-deps.sh)")
class PrometheusExample(unittest.TestCase):
    def test_as_shipped(self):
        checked = check_config(EXAMPLE)
        self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)

    def test_with_the_bearer_token_uncommented(self):
        text = EXAMPLE.read_text()
        with tempfile.TemporaryDirectory() as tmp:
            token = Path(tmp) / "token"
            token.write_text("s3cret\n")
            # "    # authorization:  # comment" -> "    authorization:", and the two lines after.
            lines = text.splitlines()
            start = next(i for i, line in enumerate(lines) if "# authorization:" in line)
            for i in range(start, start + 3):
                lines[i] = re.sub(r"^(\s*)# ?", r"\1", lines[i]).split("  #")[0].rstrip()
            enabled = "\n".join(lines).replace("/etc/prometheus/gpumeter-token", str(token))
            # The rule files are named relative to the example's folder.
            for rules in ["rules.yml", "alerts.yml"]:
                enabled = enabled.replace(f"- {rules}", f"- {EXAMPLE.parent / rules}")
            self.assertIn(f"credentials_file: {token}", enabled)
            config = Path(tmp) / "prometheus.yml"
            config.write_text(enabled + "\n")
            checked = check_config(config)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr + enabled)


if __name__ == "__main__":
    unittest.main()
