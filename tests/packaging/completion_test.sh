#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion (packaging/completions/gpumeter.bash) against the real gpumeter: what it
# offers after `gpumeter `, `gpumeter --simulate FILE `, `gpumeter available --`, and for a
# global option's value.
# Usage: completion_test.sh GPUMETER COMPLETION_FILE
set -eu
gpumeter=$1
# shellcheck source=/dev/null
source "$2"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Completes the words given, the last being the one under the cursor.
complete_words() {
  COMP_WORDS=("$gpumeter" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _gpumeter
  printf '%s\n' "${COMPREPLY[@]}"
}

commands=$(complete_words "")
for command in list available info daemon tasks run report record master; do
  grep -qx "$command" <<<"$commands" || fail "\"$command\" is not offered as a command: $commands"
done
[ "$(complete_words "av")" = available ] || fail "av does not complete to available"
# A global option's value is not the command: after it, commands again.
[ "$(complete_words --simulate scenario.json "lis")" = list ] ||
  fail "the command after --simulate FILE is not completed"
options=$(complete_words available "--")
for option in --limit --max-memory --order --no-reserve --reserve --uuid --wait; do
  grep -qx -- "$option" <<<"$options" || fail "available's $option is not offered: $options"
done
grep -qx -- --json <<<"$(complete_words list "--j")" || fail "list --json is not offered"
[ "$(complete_words --source "j")" = jetson ] || fail "--source's values are not offered"
echo "bash completion: commands, each command's options and global option values offered"
