#!/bin/sh
# SPDX-License-Identifier: MIT
# What `cmake --install` writes: installed into a temporary prefix, the systemd units name the
# installed binary and config, and `systemd-analyze verify` finds nothing to say about them (two
# broken copies show that verify really checks here); the user units, the manual pages and the
# bash completion are there; and a DESTDIR staging puts each file under the stage once.
# Usage: systemd_units_test.sh CMAKE BUILD_DIR SOURCE_DIR
set -eu
cmake=$1
build=$2
source_dir=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

if ! command -v systemd-analyze >/dev/null 2>&1; then
  fail "systemd-analyze is missing: install Debian's systemd package (scripts/install-deps.sh)"
fi

"$cmake" --install "$build" --prefix "$prefix" --component Unspecified >/dev/null
"$cmake" --install "$build" --prefix "$prefix" --component systemd >/dev/null
units="$prefix/lib/systemd/system"
for unit in gpumeter.service gpumeter-record.service gpumeter-record.timer; do
  [ -f "$units/$unit" ] || fail "$unit was not installed in $units"
done
[ -f "$prefix/etc/gpumeter/gpumeter.toml" ] || fail "the config was not installed"
# The unit runs bin/gpumeter, which hands `daemon` over to the installed lib/gpumeter/gpumeter-serve.
[ -x "$prefix/lib/gpumeter/gpumeter-serve" ] || fail "gpumeter-serve was not installed"
"$prefix/bin/gpumeter" daemon --help | grep -q "^Usage: gpumeter daemon" ||
  fail "the installed gpumeter does not hand daemon over to gpumeter-serve"
grep -qx "ExecStart=$prefix/bin/gpumeter daemon --config $prefix/etc/gpumeter/gpumeter.toml" \
  "$units/gpumeter.service" || fail "gpumeter.service does not run the installed binary"
grep -qx "ExecStart=$prefix/bin/gpumeter record --once --config $prefix/etc/gpumeter/gpumeter.toml" \
  "$units/gpumeter-record.service" || fail "gpumeter-record.service does not run the installed binary"

if [ "$(cat /proc/1/comm 2>/dev/null)" != systemd ]; then
  echo "note: systemd is not PID 1 here; verify checks the units offline (keys, values, the" \
    "binaries they run, their dependencies), but nothing is started: readiness (sd_notify)" \
    "is tested by tests/integration/history_test.py, the sandbox only on a systemd machine"
fi

# Verify prints warnings (an unknown key, a bad value) but exits 0 for them: any output fails.
output=$(cd "$units" && systemd-analyze verify gpumeter.service gpumeter-record.service \
  gpumeter-record.timer 2>&1) || fail "systemd-analyze verify failed: $output"
[ -z "$output" ] || fail "systemd-analyze verify: $output"
echo "systemd-analyze verify: gpumeter.service, gpumeter-record.service, gpumeter-record.timer clean"

broken="$prefix/broken"
mkdir "$broken"
sed 's/^Type=notify/Typ=notify/' "$units/gpumeter.service" >"$broken/gpumeter.service"
output=$(cd "$broken" && systemd-analyze verify gpumeter.service 2>&1) || true
case $output in *"Unknown key"*) ;; *) fail "verify did not notice a misspelled key: $output" ;; esac
sed "s|$prefix/bin/gpumeter|$prefix/bin/missing|" "$units/gpumeter-record.service" \
  >"$broken/gpumeter-record.service"
if (cd "$broken" && systemd-analyze verify gpumeter-record.service >/dev/null 2>&1); then
  fail "verify did not notice a missing binary"
fi

# A manual page for gpumeter, for every command it lists and for nvl, compressed, which groff
# renders without a warning.
man1="$prefix/share/man/man1"
[ -f "$man1/gpumeter.1.gz" ] || fail "gpumeter.1.gz was not installed in $man1"
[ -f "$man1/nvl.1.gz" ] || fail "nvl.1.gz was not installed in $man1"
for command in $("$prefix/bin/gpumeter" --help | sed -n '/^Subcommands:/,$p' | tail -n +2 | awk '{print $1}'); do
  [ -f "$man1/gpumeter-$command.1.gz" ] || fail "no manual page for gpumeter $command"
done
for page in "$man1"/*.1.gz; do
  warnings=$(zcat "$page" | groff -man -Tutf8 -ww -z 2>&1)
  [ -z "$warnings" ] || fail "$page: $warnings"
done
zcat "$man1/gpumeter-available.1.gz" | grep -qF -- '\-\-limit' ||
  fail "gpumeter-available.1 lacks its options"
echo "manual pages: $(ls "$man1" | wc -l), each rendered without a warning"

[ -f "$prefix/share/bash-completion/completions/gpumeter" ] || fail "the bash completion was not installed"
[ -f "$prefix/share/fish/vendor_completions.d/gpumeter.fish" ] || fail "the fish completion was not installed"

# The user units: a user's statistics every five minutes into ~/gpu_stats, verified by a user
# manager of their own (a private runtime directory: no session is needed).
user_units="$prefix/lib/systemd/user"
for unit in gpumeter-stats.service gpumeter-stats.timer; do
  [ -f "$user_units/$unit" ] || fail "$unit was not installed in $user_units"
done
grep -qx "ExecStart=$prefix/bin/gpumeter record --once --csv-dir %h/gpu_stats" \
  "$user_units/gpumeter-stats.service" || fail "gpumeter-stats.service does not run the installed binary"
runtime="$prefix/runtime"
mkdir -m 0700 "$runtime"
output=$(cd "$user_units" && XDG_RUNTIME_DIR="$runtime" systemd-analyze --user verify \
  gpumeter-stats.service gpumeter-stats.timer 2>&1) || fail "systemd-analyze --user verify failed: $output"
[ -z "$output" ] || fail "systemd-analyze --user verify: $output"
echo "systemd-analyze --user verify: gpumeter-stats.service, gpumeter-stats.timer clean"
# What the user timer runs, as systemd would run it for a user whose HOME is a temporary
# directory, on the simulated 8-GPU machine: twice (the first run only reads the GPUs; the
# second records the interval since), then the day's CSV file has the classic header and a row
# per GPU process.
home="$prefix/home"
mkdir "$home"
exec_start=$(sed -n 's/^ExecStart=//p' "$user_units/gpumeter-stats.service" | sed "s|%h|$home|g")
for run in 1 2; do
  # shellcheck disable=SC2086
  HOME="$home" XDG_STATE_HOME="$home/.local/state" \
    GPUMETER_NVML_LIBRARY="$build/lib/gpumeter/sim/libnvidia-ml.so.1" \
    GPUMETER_SIM_SCENARIO="$source_dir/examples/scenarios/dgx-8gpu.json" \
    $exec_start 2>/dev/null || fail "run $run of gpumeter-stats.service failed: $exec_start"
  sleep 1
done
csv=$(ls "$home"/gpu_stats/*.csv 2>/dev/null | head -n 1)
[ -n "$csv" ] || fail "gpumeter-stats.service wrote no CSV file in $home/gpu_stats"
[ "$(head -n 1 "$csv")" = "Timestamp,User,PID,GPU Number,GPU Usage" ] ||
  fail "$csv does not start with the classic header: $(head -n 1 "$csv")"
# One row per process and GPU for each interval: the second run's, cut in two where it crosses
# a minute; the 8-GPU machine has three processes, on GPUs 1 to 3.
rows=$(tail -n +2 "$csv" | wc -l)
pairs=$(tail -n +2 "$csv" | cut -d, -f3,4 | sort -u | cut -d, -f2 | tr '\n' ' ')
[ "$rows" -ge 3 ] && [ "$pairs" = "1 2 3 " ] ||
  fail "$csv: $rows rows for the GPUs $pairs; expected the 8-GPU machine's three processes on GPUs 1 2 3"
echo "gpumeter-stats.service with HOME=$home: $(basename "$csv"), header and $rows rows"

# Staged as a distribution package stages it (DESTDIR, the /usr prefix): every file under the
# stage once, naming the paths it will have once installed.
stage="$prefix/stage"
DESTDIR="$stage" "$cmake" --install "$build" --prefix /usr --component Unspecified >/dev/null
DESTDIR="$stage" "$cmake" --install "$build" --prefix /usr --component systemd >/dev/null
for file in usr/bin/gpumeter usr/lib/systemd/system/gpumeter.service \
  usr/lib/systemd/system/gpumeter-record.timer usr/lib/systemd/user/gpumeter-stats.timer \
  etc/gpumeter/gpumeter.toml; do
  [ -f "$stage/$file" ] || fail "DESTDIR staging: $file is not under the stage"
done
[ ! -e "$stage$stage" ] || fail "DESTDIR staging: files went under DESTDIR twice ($stage$stage)"
grep -qx "ExecStart=/usr/bin/gpumeter daemon --config /etc/gpumeter/gpumeter.toml" \
  "$stage/usr/lib/systemd/system/gpumeter.service" ||
  fail "DESTDIR staging: gpumeter.service does not name /usr/bin/gpumeter and /etc/gpumeter"
echo "DESTDIR staging: every file once under the stage"

# The sandbox's exposure as systemd rates it (lower is better; 10 is no sandbox at all).
for unit in gpumeter.service gpumeter-record.service; do
  (cd "$units" && systemd-analyze security --offline=true "./$unit" 2>&1 | tail -n 1)
done
