#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package, as a distribution's CI would check it: `cpack -G DEB` builds it from
# BUILD_DIR, lintian finds no error in it, dpkg installs it into a clean root (dpkg --root, its
# maintainer scripts run outside the root with DPKG_ROOT set, as dpkg allows for this), where
# the installed gpumeter runs (on its own simulated library), its units pass systemd-analyze
# verify, its manual page renders, its bash completion loads; and purging it leaves nothing.
# Usage: deb_test.sh CPACK BUILD_DIR
set -eu
cpack=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$cpack" --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$work/cpack.log")"
deb=$(ls "$work"/out/gpumeter_*.deb)
ddeb=$(ls "$work"/out/gpumeter-dbgsym_*.ddeb)
echo "packages: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB; $(basename "$ddeb"), $(du -k "$ddeb" | cut -f1) KiB"


command -v lintian >/dev/null || fail "lintian is missing: install Debian's lintian (scripts/install-deps.sh)"
lintian --fail-on error --tag-display-limit 0 "$deb" "$ddeb" >"$work/lintian.log" 2>&1 ||
  fail "lintian: $(cat "$work/lintian.log")"
grep -v "root privileges" "$work/lintian.log" || true
echo "lintian: no error"

root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status"
dpkg_root() {
  dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null "$@"
}
dpkg_root -i "$deb" >"$work/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$work/dpkg.log")"

version=$("$root/usr/bin/gpumeter" --version) || fail "the installed gpumeter does not run"
# Stripped, with its debug information in the -dbgsym package under its build id.
build_id=$(readelf -n "$root/usr/bin/gpumeter" | sed -n 's/.*Build ID: //p')
[ -n "$build_id" ] || fail "the installed gpumeter has no build id"
! readelf -S "$root/usr/bin/gpumeter" | grep -q '\.debug_info' || fail "the installed gpumeter is not stripped"
dpkg-deb -c "$ddeb" >"$work/ddeb.list"
grep -q "usr/lib/debug/.build-id/$(echo "$build_id" | cut -c1-2)/$(echo "$build_id" | cut -c3-).debug" "$work/ddeb.list" ||
  fail "the -dbgsym package lacks gpumeter's debug information ($build_id)"
[ "$version" = "gpumeter 0.1.0" ] || fail "the installed gpumeter says $version"
"$root/usr/bin/gpumeter" --simulate "$root/usr/share/gpumeter/scenarios/dgx-8gpu.json" list \
  --json >/dev/null || fail "the installed gpumeter cannot read its simulated machine"
[ -f "$root/etc/gpumeter/gpumeter.toml" ] || fail "the config is not in /etc/gpumeter"
grep -qx /etc/gpumeter/gpumeter.toml "$root/var/lib/dpkg/info/gpumeter.conffiles" ||
  fail "the config is not a conffile"
# The units as installed, verified against this machine's systemd with the paths they name
# moved into the root (the root holds no systemd to verify them with).
units="$work/units"
mkdir "$units"
for unit in gpumeter.service gpumeter-record.service gpumeter-record.timer; do
  sed -e "s|/usr/bin/gpumeter|$root/usr/bin/gpumeter|g" -e "s|/etc/gpumeter|$root/etc/gpumeter|g" \
    "$root/usr/lib/systemd/system/$unit" >"$units/$unit"
done
grep -q "^ExecStart=$root/usr/bin/gpumeter daemon --config $root/etc/gpumeter/gpumeter.toml" \
  "$units/gpumeter.service" || fail "gpumeter.service does not run /usr/bin/gpumeter with /etc/gpumeter"
output=$(cd "$units" && systemd-analyze verify gpumeter.service gpumeter-record.service \
  gpumeter-record.timer 2>&1) || fail "systemd-analyze verify of the installed units: $output"
[ -z "$output" ] || fail "systemd-analyze verify of the installed units: $output"
page=$(MANPATH="$root/usr/share/man" MANWIDTH=80 man -P cat gpumeter-available 2>&1) ||
  fail "man gpumeter-available: $page"
printf '%s\n' "$page" | grep -q -- "--limit" || fail "man gpumeter-available lacks --limit"
bash -c ". '$root/usr/share/bash-completion/completions/gpumeter' && complete -p gpumeter" \
  >/dev/null || fail "the bash completion does not load"
PYTHONPATH="$root/usr/lib/python3/dist-packages" GPUMETER_BIN="$root/usr/bin/gpumeter" \
  python3 -c "import gpumeter; assert gpumeter.available_gpus.__doc__" ||
  fail "the Python client does not import"
echo "installed into a clean root: gpumeter --version, the simulated list, units verified, man page, completion, Python client"

dpkg_root --purge gpumeter >"$work/dpkg.log" 2>&1 || fail "dpkg --purge: $(cat "$work/dpkg.log")"
left=$(cd "$root" && find . -mindepth 1 -not -path './var/lib/dpkg*' -not -path './var/lib' \
  -not -path './var' -type f)
[ -z "$left" ] || fail "files left after purge: $left"
echo "purged: nothing left but dpkg's own database"
