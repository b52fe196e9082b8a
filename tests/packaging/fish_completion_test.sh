#!/bin/sh
# SPDX-License-Identifier: MIT
# The fish completion (packaging/completions/gpumeter.fish) against the real gpumeter, through
# fish's own `complete -C`: commands with their summaries, a command after a global option's
# value, a command's options, and a global option's values.
# Usage: fish_completion_test.sh GPUMETER COMPLETION_FILE
set -eu
command -v fish >/dev/null || { echo "FAIL: fish is missing (scripts/install-deps.sh)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$1" "$bin/gpumeter"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

completes() {
  PATH="$bin:$PATH" fish --no-config -c "source '$2'; complete -C '$1'"
}

out=$(completes "gpumeter av" "$2")
[ "$(printf '%s\n' "$out" | cut -f1)" = available ] || fail "gpumeter av: $out"
printf '%s\n' "$out" | grep -q "Print free GPUs" || fail "no summary beside available: $out"
out=$(completes "gpumeter --simulate x.json lis" "$2")
[ "$(printf '%s\n' "$out" | cut -f1)" = list ] || fail "the command after --simulate FILE: $out"
out=$(completes "gpumeter available --" "$2")
for option in --limit --max-memory --order --no-reserve --reserve --uuid --wait; do
  printf '%s\n' "$out" | cut -f1 | grep -qx -- "$option" || fail "available's $option missing: $out"
done
out=$(completes "gpumeter --source j" "$2")
[ "$(printf '%s\n' "$out" | cut -f1)" = jetson ] || fail "--source's values: $out"
echo "fish completion: commands with their summaries, options and global option values offered"
