# complete.bash SCRIPT LINE... - what bash completes for each LINE (the cursor at its end) with
# the completion SCRIPT loaded the way bash-completion loads it. Prints, for each line, the
# candidates sorted one per line and then a line "--". Run with `bash --norc`.
#
# The words are split as bash splits them: at blanks, and around runs of "=" and ":" (both in
# its default COMP_WORDBREAKS; a run of them is one word), which is what makes --opt=value and
# :name completions need the care the script takes.
# shellcheck disable=SC1090
. /usr/share/bash-completion/bash_completion || exit 1
script=$1
shift
. "$script" || exit 1
# compopt works only while readline is completing; here it would only print an error.
compopt() { :; }
# A command with a completion of its own, for what sbxrun hands on to it.
_fakecmd() { COMPREPLY=($(compgen -W '--alpha --beta' -- "$2")); }
complete -F _fakecmd fakecmd

for line in "$@"; do
	COMP_WORDS=()
	word=""
	for ((k = 0; k < ${#line}; k++)); do
		c=${line:k:1}
		case $c in
		" ")
			[ -n "$word" ] && COMP_WORDS+=("$word")
			word=""
			;;
		"=" | ":")
			if [[ $word != *[^=:]* ]]; then
				word+=$c
			else
				COMP_WORDS+=("$word")
				word=$c
			fi
			;;
		*)
			if [[ -n $word && $word != *[^=:]* ]]; then
				COMP_WORDS+=("$word")
				word=""
			fi
			word+=$c
			;;
		esac
	done
	# The word under the cursor: what is being typed, or an empty word after a blank.
	if [ -n "$word" ] || [ "${line: -1}" = " " ]; then
		COMP_WORDS+=("$word")
	fi
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_sbxrun sbxrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
	echo --
done
