#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static checks: formatting, clang-tidy (a curated set) and the project's policy lints.
# Usage: scripts/lint.sh BUILD_DIR   (a configured build with compile_commands.json)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: scripts/lint.sh BUILD_DIR}

mapfile -t sources < <(git ls-files 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' 'fuzz/*.cpp' 'fuzz/*.h')
# clang-tidy reads what the compiler compiles: a library's unity batches (each includes its
# .cpp files, whose diagnostics come through HeaderFilterRegex) and the files built alone.
mapfile -t tidy_sources < <(python3 - "$build_dir/compile_commands.json" "$PWD/src/" <<'PY'
import json, sys
database, source_root = sys.argv[1], sys.argv[2]
for entry in json.load(open(database)):
    name = entry["file"]
    if name.startswith(source_root) or ("/src/" in name and "/Unity/unity_" in name):
        print(name)
PY
)

echo "lint: clang-format on ${#sources[@]} files"
clang-format-19 --dry-run --Werror "${sources[@]}"

echo "lint: policy"
status=0
# Vendor types stay in the backend: only src/nvml and the simulator include the NVML ABI.
# (tests/support/sim_library.h opens the simulated library for the nvml and sim tests.)
if git grep -n '#include "nvml/abi.h"' -- 'src' 'tests' ':!src/nvml' ':!src/sim' ':!tests/nvml' ':!tests/sim' ':!tests/support/sim_library.h'; then
  echo "lint: nvml/abi.h included outside src/nvml and src/sim" >&2
  status=1
fi
# Each folder of src/ includes only the folders below it (docs/architecture.md, "Layers").
if ! python3 - <<'PY'
import re, subprocess, sys
allowed = {
    "core": set(), "client": set(),
    "nvml": {"core"}, "jetson": {"core"}, "host": {"core"}, "store": {"core"},
    "sim": {"core", "nvml"},
    # The task daemon reads its owners' CPU time and memory at each task's edges itself
    # (task/sampler_monitor.h): exactness there cannot wait for the sampler's next round.
    "task": {"core", "host"},
    "recorder": {"core", "store", "task"},
    "view": {"core", "store"},
    "exposition": {"core", "view"},
    "top": {"core", "view"},
    "net": {"core", "exposition", "store", "task", "view"},
    "master": {"core", "net"},
    "run": {"core", "host", "task", "view"},
    "daemon": {"core"},
    "cli": {"core", "daemon", "exposition", "host", "jetson", "master", "net", "nvml", "recorder", "run",
            "sim", "store", "task", "top", "view"},
}
broken = []
files = subprocess.run(["git", "ls-files", "src/*.h", "src/*.cpp"], capture_output=True,
                       text=True, check=True).stdout.split()
for path in files:
    folder = path.split("/")[1]
    if folder not in allowed:
        broken.append(f"{path}: src/{folder}/ has no entry in the layer table (scripts/lint.sh)")
        continue
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            found = re.match(r'#include "([a-z_]+)/', line)
            if found and found[1] != folder and found[1] not in allowed[folder]:
                broken.append(f"{path}:{number}: src/{folder}/ may not include src/{found[1]}/")
print("\n".join(broken), file=sys.stderr)
sys.exit(1 if broken else 0)
PY
then
  echo "lint: an include breaks the layers" >&2
  status=1
fi
# Sources include headers only (clang-tidy's bugprone-suspicious-include, which cannot run on
# the unity batches below: including .cpp files is what they do).
if git grep -nE '#include ["<][^">]*\.(c|cc|cpp|cxx)[">]' -- 'src' 'tests' 'bench' 'fuzz'; then
  echo "lint: a source file included" >&2
  status=1
fi
# No shelling out from the tool itself.
if git grep -nE '\b(popen|system)\(' -- 'src'; then
  echo "lint: popen/system in sources" >&2
  status=1
fi
# g++ 12 has no <format>; fmt is the formatting library.
if git grep -nE '#include <format>|std::format\(' -- 'src' 'tests' 'bench'; then
  echo "lint: use fmt, not std::format" >&2
  status=1
fi
# Test files share unity batches: each keeps its code in a namespace named after the file, and
# none in an anonymous one (whose names two files of a batch would both define).
for file in $(git ls-files 'tests/*_test.cpp'); do
  stem=$(basename "$file" .cpp)
  if ! grep -qE "^namespace [a-z_:]*::${stem} \{$" "$file" || grep -qE '^namespace \{' "$file"; then
    echo "lint: $file: its code belongs in namespace gpumeter::...::${stem}, not an anonymous one" >&2
    status=1
  fi
done
# Every file of code says its licence (LICENSE: MIT) in its first lines.
for file in $(git ls-files '*.cpp' '*.h' '*.c' '*.py' '*.sh' '*.bash' '*.js' '*.mjs' '*.cmake' \
  '*CMakeLists.txt' 'packaging/deb/nvl' 'packaging/deb/postinst' 'packaging/deb/postrm'); do
  if ! head -n 3 "$file" | grep -q 'SPDX-License-Identifier: MIT'; then
    echo "lint: $file: no \"SPDX-License-Identifier: MIT\" in its first three lines" >&2
    status=1
  fi
done
[ $status -eq 0 ] || exit $status

echo "lint: clang-tidy on ${#tidy_sources[@]} files"
# libstdc++ 12 marks a helper of stable_sort deprecated in C++23 mode; g++ already reports
# deprecations in our own code.
run-clang-tidy-19 -quiet -checks=-bugprone-suspicious-include -extra-arg=-Wno-deprecated-declarations -p "$build_dir" -j "$(nproc)" "${tidy_sources[@]}" > "$build_dir/clang-tidy.log" 2>&1 || {
  grep -E 'error:|warning:' "$build_dir/clang-tidy.log" | sort -u | head -50 >&2
  echo "lint: clang-tidy failed (full log: $build_dir/clang-tidy.log)" >&2
  exit 1
}
echo "lint: ok"
