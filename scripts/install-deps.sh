#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs everything gpumeter needs to build and test, from Debian's packages, and the
# dashboard's npm packages (web/package-lock.json) into web/node_modules.
# Non-interactive and idempotent: when everything is present it only checks and exits.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libsqlite3-dev sqlite3
  libcpp-httplib-dev libssl-dev openssl
  libcurl4-openssl-dev  # the master's client for agents and Prometheus
  libmicrohttpd-dev zlib1g-dev  # the HTTP server; gzip of its responses
  libncurses-dev  # `gpumeter top`'s screen
  tmux  # drives `gpumeter top` in a pseudo-terminal (tests/integration/top_test.py)
  libjemalloc-dev  # the daemon's allocator: hands freed memory back (docs/benchmarks.md, "Soak")
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format-19 clang-tidy-19
  clang-19 libclang-rt-19-dev  # libFuzzer and the sanitizers' runtimes for fuzz/ (scripts/fuzz.sh)
  python3 python3-jsonschema
  python3-pip python3-venv python3-setuptools python3-wheel  # pip installs clients/python offline
  librsvg2-bin
  lintian man-db  # the Debian package's checks (tests/packaging/deb_test.sh)
  fish  # its completion is tested through fish's own `complete -C`
  help2man  # the manual pages, from each command's --help (scripts/man-pages.sh)
  systemd  # systemd-analyze, which checks the units in packaging/systemd
  prometheus  # promtool lints the /metrics exposition; the server scrapes daemons in tests
  wrk  # the /metrics load benchmark (docs/benchmarks.md)
  chromium  # the dashboard's browser tests
  procps  # pgrep: scripts/test.sh stops the build it runs beside the tests when a phase fails
  libfaketime  # a fixed clock for the golden-output tests (tests/integration/golden_test.py)
  # NVML's public header as Rust bindings: the list of functions the simulated library must
  # export (scripts/nvml-header-functions.py, tests/integration/nvml_functions_test.py)
  librust-nvml-wrapper-sys-dev
)
# npm for the dashboard's chart library; Debian's, unless a Node.js with npm is installed.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The dashboard's packages, exactly as locked; again only when the lock file changed since.
web="$(dirname "$0")/../web"
if [ ! -f "$web/node_modules/.package-lock.json" ] ||
   [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
  echo "Installing the dashboard's npm packages (web/package-lock.json)"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
