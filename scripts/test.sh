#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is needed, builds with warnings as errors, runs the static checks and the
# end-to-end tests; then builds again with AddressSanitizer and UndefinedBehaviorSanitizer and
# runs every test under them (the unit tests run there only: building them a second time
# without the sanitizers was half of the plain build), and runs the threaded parts (the sampler,
# the task server, the history recorder, the HTTP server, the master's poller) under
# ThreadSanitizer; last, fuzzes every parser of outside input for 10 s each (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's banner says how long the run has taken so far (docs/benchmarks.md).
phase() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1"; }

scripts/install-deps.sh

jobs=$(nproc)
# The tests mostly wait (daemons, sleeps): twice as many at once as there are cores; the ones
# that load the machine count double and the task-truth test runs alone
# (tests/integration/CMakeLists.txt).
test_jobs=$((2 * jobs))
# Objects compiled in another checkout of the same sources are reused.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# The test executables' precompiled headers are cacheable only with these (ccache's manual).
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# Debug information as line tables only (-g1): enough for the sanitizers' reports and for
# backtraces with file and line, and 10-15 % less compile time than full -g (docs/benchmarks.md).
# Each library and test executable is one translation unit (GPUMETER_UNITY_BATCH=0): the heavy
# headers are parsed once per library instead of once per 16 sources, in the three builds and in
# clang-tidy, which walks the headers' whole syntax tree again for every translation unit. Builds
# for development keep batches of 16, which rebuild less after a change.
configure() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DGPUMETER_WERROR=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DGPUMETER_UNITY_BATCH=0 \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_DEBUG="-g1" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_DEBUG="-g1" "$@" >/dev/null
}

# The builds that later phases need run beside the phases that leave CPU idle, at the lowest
# priority, so that the compiler takes only what the checks and tests leave: the tests mostly
# wait on daemons and sleeps (the plain run used 66 s of CPU in 280 s on 2 cores). A background
# build's output goes to its log, which is printed if it fails.
background_pid=
background_log=
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
# A phase that fails stops the background build with it.
trap '[ -z "$background_pid" ] || kill_tree "$background_pid"' EXIT
start_background() {
  background_log=$1
  shift
  nice -n 19 "$@" >"$background_log" 2>&1 &
  background_pid=$!
}
finish_background() {
  local pid=$background_pid
  background_pid=
  if ! wait "$pid"; then
    cat "$background_log" >&2
    echo "test.sh: a build run beside the tests failed (log: $background_log)" >&2
    exit 1
  fi
}

phase "build (RelWithDebInfo, warnings as errors; the unit tests are built with the sanitizers)"
configure build/ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_UNIT_TESTS=OFF
cmake --build build/ci -j "$jobs"

# The ASan + UBSan build runs beside the static checks and the plain tests; the TSan build of
# the threaded parts' tests and the fuzzing build run beside the ASan tests. The sanitizer test
# run itself has only those builds beside it, at the lowest priority.
# In both, each unit-test executable runs as one process (GPUMETER_TEST_PER_EXECUTABLE): a
# sanitized process per test case cost four times the CPU of the cases themselves.
configure build/asan -DCMAKE_BUILD_TYPE=Debug -DGPUMETER_SANITIZE=ON -DGPUMETER_BENCH=OFF \
  -DGPUMETER_TEST_PER_EXECUTABLE=ON
configure build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_TSAN=ON -DGPUMETER_BENCH=OFF \
  -DGPUMETER_TEST_PER_EXECUTABLE=ON
tsan_targets=(sampler_tests task_tests recorder_tests net_tests master_tests)
start_background build/background-builds.log cmake --build build/asan -j "$jobs"

phase "static checks (the ASan build runs beside them and the tests)"
scripts/lint.sh build/ci

phase "end-to-end tests"
ctest --test-dir build/ci --output-on-failure -j "$test_jobs"

phase "the ASan build finishes"
finish_background

start_background build/background-builds.log bash -c \
  'cmake --build build/tsan -j "$1" --target "${@:2}" && scripts/fuzz.sh --build-only' \
  build "$jobs" "${tsan_targets[@]}"
phase "every test under ASan + UBSan (the TSan and fuzzing builds run beside them)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$test_jobs" -LE ctypes

phase "the TSan and fuzzing builds finish"
finish_background

phase "sampler, task server, history recorder, HTTP server and the master's poller under TSan"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions="$PWD/tests/tsan.supp" \
  ctest --test-dir build/tsan --output-on-failure -j "$jobs" -R '^(sampler_tests|task_tests|recorder_tests|net_tests|master_tests)\.'

phase "fuzzing every parser of outside input, 10 s each (docs/fuzzing.md)"
scripts/fuzz.sh 10
phase "done"
