#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets of fuzz/ with clang, ASan and UBSan in build/fuzz, and runs
# each for a bounded time from its checked-in seeds (fuzz/corpus/TARGET). Fails on any crash,
# sanitizer report, leak, timeout or excess memory; the input that did it is left in
# build/fuzz/artifacts/. docs/fuzzing.md has the targets and how to replay an input.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default: 20 s, every target)
#   scripts/fuzz.sh --build-only                       (builds every target, runs none)
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=false
if [ "${1:-}" = "--build-only" ]; then
  build_only=true
  shift
fi
seconds=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(scenario_fuzz daemon_config_fuzz config_tables_fuzz quota_fuzz query_fuzz
           task_protocol_fuzz procfs_fuzz cgroup_fuzz jetson_fuzz)
fi

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# The test executables' precompiled headers are cacheable only with these (ccache's manual).
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
cmake -S . -B build/fuzz -G Ninja -DGPUMETER_FUZZ=ON -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19 -DGPUMETER_TESTS=OFF -DGPUMETER_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target "${targets[@]}"
if $build_only; then
  exit 0
fi

mkdir -p build/fuzz/artifacts
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Stack traces with function names and lines: clang-19's symbolizer, else any installed one.
symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
if [ -n "$symbolizer" ]; then
  export ASAN_SYMBOLIZER_PATH="$symbolizer"
fi
# One target's run: its corpus, its dictionary, its log; a short summary when it passes.
fuzz_one() {
  local target=$1
  # New inputs go to a corpus under the build tree; the checked-in seeds stay as they are.
  local work=build/fuzz/corpus/$target
  mkdir -p "$work"
  local dict=()
  if [ -f "fuzz/$target.dict" ]; then
    dict=(-dict="fuzz/$target.dict")
  fi
  build/fuzz/bin/"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$target-" \
    "${dict[@]}" "$work" "fuzz/corpus/$target" >"build/fuzz/$target.log" 2>&1
}

# The targets run as many at a time as there are cores (each fuzzer is one process on one
# core); their results are read in order once each has finished.
parallel=$(nproc)
declare -A running=()
failed=()
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
    wait -n || true
  done
  echo "== $target, ${seconds} s"
  fuzz_one "$target" &
  running[$target]=$!
done
for target in "${targets[@]}"; do
  if wait "${running[$target]}"; then
    echo "== $target"
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov: ' "build/fuzz/$target.log" | tail -n 3
  else
    tail -n 60 "build/fuzz/$target.log"
    echo "fuzz: $target failed; the input is in build/fuzz/artifacts/ (log: build/fuzz/$target.log)"
    failed+=("$target")
  fi
done
[ ${#failed[@]} -eq 0 ]
