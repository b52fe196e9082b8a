#!/usr/bin/env bash
# Installs what is needed, builds with warnings as errors, runs the static checks and every
# test; then builds again with AddressSanitizer and UndefinedBehaviorSanitizer and runs the
# tests under them, and runs the threaded parts (the sampler, the task server, the history
# recorder, the HTTP server, the master's poller) under ThreadSanitizer; last, fuzzes every
# parser of outside input for 10 s each (scripts/fuzz.sh).
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
configure() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DGPUMETER_WERROR=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache "$@" >/dev/null
}

phase "build (RelWithDebInfo, warnings as errors)"
configure build/ci -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/ci -j "$jobs"

phase "static checks"
scripts/lint.sh build/ci

phase "tests"
ctest --test-dir build/ci --output-on-failure -j "$test_jobs"

phase "tests under ASan + UBSan"
configure build/asan -DCMAKE_BUILD_TYPE=Debug -DGPUMETER_SANITIZE=ON -DGPUMETER_BENCH=OFF
cmake --build build/asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$test_jobs" -LE ctypes

phase "sampler, task server, history recorder, HTTP server and the master's poller under TSan"
configure build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_TSAN=ON -DGPUMETER_BENCH=OFF
cmake --build build/tsan -j "$jobs" --target sampler_tests task_tests recorder_tests net_tests net_master_tests
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions="$PWD/tests/tsan.supp" \
  ctest --test-dir build/tsan --output-on-failure -j "$jobs" -R '^(sampler_tests|task_tests|recorder_tests|net_tests|net_master_tests)\.'

phase "fuzzing every parser of outside input, 10 s each (docs/fuzzing.md)"
scripts/fuzz.sh 10
phase "done"
