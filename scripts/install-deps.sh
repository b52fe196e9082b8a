#!/usr/bin/env bash
# Installs everything gpumeter needs to build and test, from Debian's packages.
# Non-interactive and idempotent: when everything is present it only checks and exits.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libfmt-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev sqlite3
  libcpp-httplib-dev libssl-dev openssl
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format-19 clang-tidy-19
  python3 python3-jsonschema
  librsvg2-bin
  systemd  # systemd-analyze, which checks the units in packaging/systemd
  prometheus  # promtool lints the /metrics exposition; the server scrapes daemons in tests
  wrk  # the /metrics load benchmark (docs/benchmarks.md)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
