#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Serves the dashboard of a simulated 4-GPU server whose load keeps moving
# (examples/scenarios/demo-live.json) until Ctrl-C: `gpumeter daemon` with a fresh history in
# a temporary directory, small quotas (examples/quota-demo.txt), and a worker that marks tasks.
# Usage: scripts/demo-live.sh GPUMETER_BINARY   (port: $GPUMETER_DEMO_PORT, else 9416 if free)
set -euo pipefail
cd "$(dirname "$0")/.."
gpumeter=${1:?usage: scripts/demo-live.sh GPUMETER_BINARY}

# The port asked for, or any free one when it is taken (a real daemon may own 9416).
pick_port() {
  python3 - "${GPUMETER_DEMO_PORT:-9416}" <<'PY'
import socket, sys
for port in (int(sys.argv[1]), 0):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(s.getsockname()[1])
        break
PY
}

wait_until_served() {
  python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1] + "healthz", timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)
PY
}

state=$(mktemp -d "${TMPDIR:-/tmp}/gpumeter-demo.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

port=$(pick_port)
url="http://127.0.0.1:$port/"
# The scenario started a minute ago: erin's sweep arrives on GPU 3 a minute into the demo.
export GPUMETER_SIM_EPOCH_US=$(( ($(date +%s) - 60) * 1000000 ))
# Each simulated call takes about what it takes on a real driver (docs/scenarios.md).
export GPUMETER_SIM_CALL_COSTS=typical
"$gpumeter" --simulate examples/scenarios/demo-live.json daemon --listen "127.0.0.1:$port" \
  --state-dir "$state" --socket "$state/gpumeter.sock" --record-interval 10s \
  --quota examples/quota-demo.txt 2>"$state/daemon.log" &
pids+=($!)
if ! wait_until_served "$url"; then
  echo "the demo daemon did not start:" >&2
  cat "$state/daemon.log" >&2
  exit 1
fi
python3 examples/workers/python_worker.py --tasks 100000 --max-idle 20 \
  --socket "$state/gpumeter.sock" >/dev/null 2>&1 &
pids+=($!)

echo
echo "== the dashboard of a simulated 4-GPU server whose load keeps moving (demo-live.json)"
echo "   $url"
echo "   (history in $state, removed at the end; Ctrl-C stops)"
wait "${pids[0]}"
