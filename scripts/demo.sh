#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is needed, builds gpumeter and shows the GPUs: the real ones when NVIDIA's
# driver is present, else the bundled simulated 8-GPU machine and a simulated Jetson board.
# Then serves the web dashboard of a simulated 4-GPU server whose load keeps moving, until
# Ctrl-C (scripts/demo-live.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMETER_TESTS=OFF \
  -DGPUMETER_BENCH=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build build/release -j "$(nproc)"

gpumeter=build/release/bin/gpumeter
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1' || [ -n "${GPUMETER_NVML_LIBRARY:-}" ]; then
  echo "== gpumeter list (NVIDIA driver found)"
  "$gpumeter" list
else
  echo "== no NVIDIA driver here: gpumeter list on the simulated 8-GPU machine"
  echo "   ($gpumeter --simulate examples/scenarios/dgx-8gpu.json list)"
  # Each simulated call takes about what it takes on a real driver (docs/scenarios.md).
  GPUMETER_SIM_CALL_COSTS=typical "$gpumeter" --simulate examples/scenarios/dgx-8gpu.json list
  echo
  echo "== a simulated Jetson Orin Nano: its kernel files, read as on a board"
  echo "   ($gpumeter --simulate-jetson orin-nano list)"
  "$gpumeter" --simulate-jetson orin-nano list
fi

# GPUMETER_DEMO_LIVE=0 stops here (for scripts that need the demo to end by itself).
if [ "${GPUMETER_DEMO_LIVE:-1}" = 0 ]; then
  exit 0
fi
exec scripts/demo-live.sh "$gpumeter"
