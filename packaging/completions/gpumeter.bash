# SPDX-License-Identifier: MIT
# bash completion for gpumeter: its commands, then each command's options, read from
# `gpumeter --help` and `gpumeter COMMAND --help` at completion time, so that they never fall
# behind the program. Installed in <prefix>/share/bash-completion/completions/gpumeter.

# The words of a help text's option column: --long and -s forms.
_gpumeter_options() {
  "$1" "${@:2}" --help 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' |
    sed -E 's/^[ ,]//' | sort -u
}

_gpumeter() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} program=${COMP_WORDS[0]}
  local command="" i word
  # The command is the first word that is neither an option nor a global option's value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
      --simulate | --simulate-jetson | --source | --jetson-root) ((i++)) ;;
      -*) ;;
      *) command=$word; break ;;
    esac
  done
  case $prev in
    --simulate | --simulate-jetson | --config | --database | --state-dir | --token-file | \
      --socket | --csv-dir | --tls-cert | --tls-key | --quota | --plot | --prometheus-token-file)
      COMPREPLY=($(compgen -f -- "$cur"))
      return
      ;;
    --jetson-root)
      COMPREPLY=($(compgen -d -- "$cur"))
      return
      ;;
    --source)
      COMPREPLY=($(compgen -W "nvml jetson" -- "$cur"))
      return
      ;;
  esac
  if [[ -z $command ]]; then
    local commands
    commands=$("$program" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | tail -n +2 |
      awk '{print $1}')
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$(_gpumeter_options "$program")" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_gpumeter_options "$program" "$command")" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}

complete -F _gpumeter gpumeter
