package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// completionCmd prints a completion script for bash or zsh. The commands and
// their flags are written into it; operation paths (call's first argument,
// ops' filter) come from the running system when completing:
// `marketplace ops --names`, which gives up after 2 seconds.
func completionCmd(c *cli, args []string) error {
	fs := newFlags("completion")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr(fs, "name the shell: bash or zsh")
	}
	switch fs.Arg(0) {
	case "bash":
		return writeBashCompletion(c.stdout)
	case "zsh":
		fmt.Fprint(c.stdout, "# zsh completion for marketplace: source <(marketplace completion zsh), after compinit.\n"+
			"# It runs the bash completion below through zsh's bash emulation.\n"+
			"autoload -U +X bashcompinit && bashcompinit\n")
		return writeBashCompletion(c.stdout)
	}
	return usageErr(fs, "unknown shell %q: bash or zsh", fs.Arg(0))
}

func writeBashCompletion(w io.Writer) error {
	var flagCases, valueCases strings.Builder
	for _, cmd := range commands {
		fs := commandFlags(cmd)
		var all, valued []string
		fs.VisitAll(func(f *flag.Flag) {
			all = append(all, "--"+f.Name)
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				valued = append(valued, "-"+f.Name, "--"+f.Name)
			}
		})
		all = append(all, "--help")
		fmt.Fprintf(&flagCases, "        %s) flags=%q ;;\n", cmd.name, strings.Join(all, " "))
		if len(valued) > 0 {
			fmt.Fprintf(&valueCases, "        %s) valued=%q ;;\n", cmd.name, " "+strings.Join(valued, " ")+" ")
		}
	}
	_, err := fmt.Fprintf(w, bashTemplate, strings.Join(commandNames(), " "), flagCases.String(), valueCases.String())
	return err
}

// bashTemplate: %[1]s the commands, %[2]s each command's flags, %[3]s each
// command's flags that take a value.
const bashTemplate = `# bash completion for marketplace: source <(marketplace completion bash)
_marketplace_completion() {
    local cur="${COMP_WORDS[COMP_CWORD]}" cmd="${COMP_WORDS[1]}" flags="" valued="" i w
    local -a pos=() urlflag=()
    COMPREPLY=()
    if [[ $COMP_CWORD -le 1 ]]; then
        COMPREPLY=($(compgen -W "%[1]s" -- "$cur"))
        return 0
    fi
    case "$cmd" in
%[2]s    esac
    case "$cmd" in
%[3]s    esac
    # The arguments before the word completed, without the flags and their values.
    for ((i = 2; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            --url=* | -url=*) urlflag=(--url "${w#*=}") ;;
            --url | -url) urlflag=(--url "${COMP_WORDS[i+1]}") ;;
        esac
        if [[ $w == -* && $w != - ]]; then
            [[ $w != *=* && $valued == *" $w "* ]] && ((i++))
            continue
        fi
        pos+=("$w")
    done
    local prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ $COMP_CWORD -gt 2 && $prev == -* && $prev != *=* && $valued == *" $prev "* ]]; then
        return 0 # a flag's value: files, by -o default
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return 0
    fi
    case "$cmd" in
        help) [[ ${#pos[@]} -eq 0 ]] && COMPREPLY=($(compgen -W "%[1]s" -- "$cur")) ;;
        completion) [[ ${#pos[@]} -eq 0 ]] && COMPREPLY=($(compgen -W "bash zsh" -- "$cur")) ;;
        call | ops)
            if [[ ${#pos[@]} -eq 0 ]]; then
                COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" ops --names "${urlflag[@]}" 2>/dev/null)" -- "$cur"))
            fi
            ;;
    esac
    return 0
}
complete -o default -F _marketplace_completion marketplace ./bin/marketplace bin/marketplace
`

// isOperationPath says whether p can be an operation's path: names of
// letters, digits and _ between dots (the gateway routes no other). `ops
// --names` prints only those: the completion hands its words to compgen
// -W, which expands them as the shell does, and they come from whatever
// answers at --url.
func isOperationPath(p string) bool {
	segs := strings.Split(p, ".")
	for _, s := range segs {
		if s == "" || strings.IndexFunc(s, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) >= 0 {
			return false
		}
	}
	return len(segs) >= 2
}
