#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rewrites tests/golden/ from what the current build prints (tests/integration/golden_test.py),
# and docs/nvml-functions.md from what the simulated library answers
# (tests/integration/nvml_functions_test.py), and tests/top/golden/ from `gpumeter top`'s
# screens (tests/integration/top_test.py). Read `git diff tests/golden docs` afterwards:
# every change there is a change users will see.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
[ -d "$build" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"
GPUMETER_GOLDEN_UPDATE=1 ctest --test-dir "$build" -R '^integration\.(golden|nvml_functions|top)$' --output-on-failure
git status --short tests/golden tests/top/golden docs/nvml-functions.md
