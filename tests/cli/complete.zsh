# complete.zsh FPATH LINE... - what zsh completes for each LINE (the cursor at its end), with the
# completion functions in FPATH loaded by compinit. Prints, for each line, the words offered
# (without the prefix already typed, sorted, one per line) and then a line "--".
#
# Completion runs only inside the line editor, so an interactive zsh is started on a
# pseudo-terminal, and each line is typed there followed by a Tab. compadd, the builtin every
# completion function ends in, is wrapped to print the words it adds between markers.
zmodload zsh/zpty || exit 1
setopt extendedglob
fp=$1
shift

# The set-up is sourced, not typed: a Tab typed into the line editor would complete.
setup=$(mktemp) || exit 1
trap 'rm -f $setup' EXIT
cat >$setup <<'SETUP'
PS1="" PS2="" RPS1="" LISTMAX=100000
unsetopt beep
autoload -Uz compinit && compinit -u -D
# The calls made only to match (-O, -A, -D store words instead of adding them) pass through.
compadd() {
	local -i end=${@[(i)--]}
	if (( ${${@[1,end-1]}[(I)-[OAD]*]} )); then
		builtin compadd "$@"
		return
	fi
	local -a sbx_words
	builtin compadd -O sbx_words "$@"
	print -rn -- ${sbx_words/#/$'\n'<<W>>}
	builtin compadd "$@"
}
# Tab completes, then marks the end of what the completion printed.
sbx_complete() {
	zle complete-word
	print -r -- $'\n'"<<E>>"
}
zle -N sbx_complete
bindkey "^I" sbx_complete
SETUP

zpty sbxz zsh -f -i || exit 1
zpty -w sbxz "fpath=(${(q)fp} \$fpath); source ${(q)setup}; print '<<''R>>'"

# Reads the pseudo-terminal up to a line holding the marker $1; prints the words seen.
read_until() {
	local line
	while zpty -r sbxz line; do
		line=${line//$'\r'/}
		[[ $line == *"<<W>>"* ]] && print -r -- "${${line##*<<W>>}%%[[:space:]]##}"
		[[ $line == *"$1"* ]] && return 0
	done
	return 1
}

read_until '<<R>>' >/dev/null || exit 1
for l in "$@"; do
	zpty -w -n sbxz "$l"$'\t'
	read_until '<<E>>' | LC_ALL=C sort -u
	print -- --
	# Clear the line for the next one.
	zpty -w -n sbxz $'\C-e\C-u'
done
zpty -d sbxz
