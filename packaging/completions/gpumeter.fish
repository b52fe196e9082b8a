# SPDX-License-Identifier: MIT
# fish completion for gpumeter: its commands, then each command's options, read from the
# program's --help as it completes, as the bash completion does. Installed in
# <prefix>/share/fish/vendor_completions.d/gpumeter.fish.

# The gpumeter being completed (the first word of the command line).
function __gpumeter_program
    set -l words (commandline -opc)
    echo $words[1]
end

# The command already on the line: the first word that is neither an option nor the value of
# a global option that takes one; nothing when there is none yet.
function __gpumeter_command
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for word in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $word
            case --simulate --simulate-jetson --source --jetson-root
                set skip 1
            case '-*'
            case '*'
                echo $word
                return 0
        end
    end
    return 1
end

# The commands, each with its summary as the description.
function __gpumeter_commands
    set -l program (__gpumeter_program)
    $program --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | tail -n +2 |
        string replace -r '^\s*(\S+)\s+(.*)$' '$1\t$2'
end

# The long options of the command on the line (or the global ones).
function __gpumeter_options
    set -l program (__gpumeter_program)
    $program (__gpumeter_command) --help 2>/dev/null |
        string match -r -a -g '(?:^|[ ,])--([a-zA-Z][a-zA-Z0-9-]*)' | sort -u
end

complete -c gpumeter -f -n 'not __gpumeter_command' -a '(__gpumeter_commands)'
complete -c gpumeter -f -n 'string match -q -- "--*" (commandline -ct)' -a '--(__gpumeter_options)'
complete -c gpumeter -l source -x -a 'nvml jetson'
complete -c gpumeter -l simulate -r -F
complete -c gpumeter -l simulate-jetson -r -F
complete -c gpumeter -l jetson-root -x -a '(__fish_complete_directories)'
