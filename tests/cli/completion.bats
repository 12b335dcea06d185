#!/usr/bin/env bats
# The shell completions: the table they are built from (cmd/completion/options) against what
# sbxrun itself accepts, then the bash script driven the way bash-completion drives it, and the
# zsh script parsed and driven by zsh's own completion system.
#
# SBX_BASH_COMPLETION and SBX_ZSH_COMPLETION name the scripts under test (the build's, or the
# installed ones when the package test runs this file).

load helpers

TABLE="$BATS_TEST_DIRNAME/../../cmd/completion/options"

setup() {
	: "${SBX_BASH_COMPLETION:?set SBX_BASH_COMPLETION to the bash completion script}"
	: "${SBX_ZSH_COMPLETION:?set SBX_ZSH_COMPLETION to the zsh completion script}"
	setup_ws
	cd "$WS"
}

# table_rows KIND: the rows of that kind, tab-separated, without the kind.
table_rows() { awk -F '\t' -v k="$1" '$1 == k { sub(/^[^\t]*\t/, ""); print }' "$TABLE"; }

# complete LINE...: the bash candidates for each line, as complete.bash prints them.
complete() {
	bash --norc --noprofile "$BATS_TEST_DIRNAME/complete.bash" "$SBX_BASH_COMPLETION" "$@"
}

# expect_completion LINE CANDIDATE...: exactly these candidates, in sorted order.
expect_completion() {
	local line=$1 got want
	shift
	got=$(complete "$line" | sed '$d')
	want=$(if [ $# -gt 0 ]; then printf '%s\n' "$@" | LC_ALL=C sort; fi)
	if [ "$got" != "$want" ]; then
		printf 'completing "%s":\n  got:  %s\n  want: %s\n' "$line" "$(echo $got)" "$*" >&2
		return 1
	fi
}

@test "the table names every subcommand and option sbxrun --help shows, and no other" {
	# The proxy is a program of its own: its options are listed by its own --help.
	run sh -c '"$1" --help && "$1" proxy --help' sh "$SBXRUN"
	[ "$status" -eq 0 ]
	help_subs=$(sed -n 's/^ *\(usage:\)\{0,1\} *sbxrun \([a-z][a-z]*\) .*/\2/p' <<<"$output" |
		sort -u)
	table_subs=$(table_rows sub | cut -f1 | sort)
	[ "$help_subs" = "$table_subs" ] || {
		printf 'sbxrun --help: %s\ntable: %s\n' "$(echo $help_subs)" "$(echo $table_subs)" >&2
		return 1
	}
	# "  -p, --profile FILE" and "      --json": the long name and its one-letter form; and
	# the options only the usage lines name ("sbxrun convert --to profile|legacy").
	help_opts=$( (grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' <<<"$output" |
		sed -E 's/^ +//; s/^-([A-Za-z]), --(.*)/\2 \1/; s/^--(.*)/\1 -/'
		grep -E '^ *(usage:)? *sbxrun ' <<<"$output" | grep -oE ' --[a-z][a-z-]*' |
			sed 's/^ --//; s/$/ -/') | sort -k1,1 -u)
	table_opts=$(table_rows opt | cut -f1,2 | tr '\t' ' ' | sort)
	[ "$help_opts" = "$table_opts" ] || {
		diff <(echo "$help_opts") <(echo "$table_opts") >&2
		return 1
	}
}

@test "each option is in the table for exactly the subcommands that accept it" {
	local long short arg count where desc sub value wrong=0
	local subs="sbxrun $(table_rows sub | cut -f1 | tr '\n' ' ')"

	while IFS=$'\t' read -r long short arg count where desc; do
		case $arg in
		-) value=() ;;
		profile) value=(:read-only) ;;
		dir) value=(/) ;;
		file) value=(/dev/null) ;;
		word) value=(x) ;;
		words:*) value=("$(cut -d, -f1 <<<"${arg#words:}")") ;;
		esac
		for sub in $subs; do
			local args=()
			[ "$sub" = sbxrun ] || args=("$sub")
			err=$("$SBXRUN" "${args[@]}" "--$long" "${value[@]}" </dev/null 2>&1 >/dev/null) ||
				true
			if [[ $err == *"does not apply here"* || $err == *"unknown option"* ]]; then
				accepted=no
			else
				accepted=yes
			fi
			if [[ ",$where," == *",$sub,"* ]]; then listed=yes; else listed=no; fi
			if [ "$accepted" != "$listed" ]; then
				echo "--$long: sbxrun ${args[*]} accepts it: $accepted; the table lists it: $listed ($err)" >&2
				wrong=1
			fi
		done
	done < <(table_rows opt)
	[ "$wrong" -eq 0 ]
}

@test "the value lists in the table are the values sbxrun accepts" {
	local long short arg count where desc sub expected
	local n=0

	while IFS=$'\t' read -r long short arg count where desc; do
		[[ $arg == words:* ]] || continue
		sub=${where%%,*}
		local args=()
		[ "$sub" = sbxrun ] || args=("$sub")
		run "$SBXRUN" "${args[@]}" "--$long" no-such-value
		[ "$status" -eq 125 ]
		# "... (expected auto, require or forbid)"
		expected=$(sed -n 's/.*(expected \(.*\))$/\1/p' <<<"${lines[0]}" |
			sed 's/, / /g; s/ or / /g' | tr ' ' '\n' | sort | tr '\n' ' ')
		table=$(tr ',' '\n' <<<"${arg#words:}" | sort | tr '\n' ' ')
		[ "$expected" = "$table" ] || {
			echo "--$long: sbxrun expects '$expected', the table has '$table'" >&2
			return 1
		}
		n=$((n + 1))
	done < <(table_rows opt)
	[ "$n" -ge 4 ]
}

@test "bash: subcommands, options and their values" {
	expect_completion "sbxrun ex" explain
	expect_completion "sbxrun co" context convert
	expect_completion "sbxrun --pro" --profile
	expect_completion "sbxrun --w" --windows-sandbox --workspace-root --write
	expect_completion "sbxrun --sandbox " auto forbid require
	expect_completion "sbxrun --sandbox=r" require
	expect_completion "sbxrun --windows-sandbox " disabled elevated restricted-token
	expect_completion "sbxrun explain --platform " linux macos windows
	expect_completion "sbxrun explain --platform=m" macos
	expect_completion "sbxrun convert --to " legacy profile
}

@test "bash: options only where they apply" {
	expect_completion "sbxrun run --js"
	expect_completion "sbxrun --pla"
	expect_completion "sbxrun explain --js" --json
	expect_completion "sbxrun explain --pla" --platform
	expect_completion "sbxrun probe -" --help --json -h
	expect_completion "sbxrun merge --" -- --help
	expect_completion "sbxrun convert --" -- --cwd --help --to
	expect_completion "sbxrun --vers" --version
	expect_completion "sbxrun run --vers"
}

@test "bash: built-in profile names, standard input and files for --profile" {
	mkdir -p "$WS/prof"
	touch "$WS/prof/ci.json" "$WS/prof/dev.json"
	# The colon is a word break for readline: the candidates come back without it.
	expect_completion "sbxrun --profile :w" workspace workspace-git
	expect_completion "sbxrun -p :" danger-full-access read-only workspace workspace-git
	expect_completion "sbxrun explain --profile=:r" read-only
	expect_completion "sbxrun --profile prof/" prof/ci.json prof/dev.json
	expect_completion "sbxrun --profile prof/c" prof/ci.json
	run complete "sbxrun --profile "
	grep -qx :workspace <<<"$output"
	grep -qx -- - <<<"$output"
	grep -qx prof <<<"$output"
}

@test "bash: files for --add-permissions, directories for --cwd and --workspace-root" {
	mkdir -p "$WS/d/inner"
	touch "$WS/d/extra.json"
	expect_completion "sbxrun --add-permissions d/" d/extra.json d/inner
	expect_completion "sbxrun -a d/e" d/extra.json
	expect_completion "sbxrun --cwd d/" d/inner
	expect_completion "sbxrun -w d/" d/inner
	expect_completion "sbxrun explain --workspace-root=d/" d/inner
	expect_completion "sbxrun access -C d/" d/inner
}

@test "bash: operands: paths, profile files, none" {
	mkdir -p "$WS/d"
	touch "$WS/d/a.json" "$WS/d/b.json"
	expect_completion "sbxrun access d/" d/a.json d/b.json
	expect_completion "sbxrun access d/a.json d/" d/a.json d/b.json
	expect_completion "sbxrun merge d/" d/a.json d/b.json
	expect_completion "sbxrun intersect d/a.json d/b" d/b.json
	expect_completion "sbxrun merge d/a.json d/b.json d/"
	expect_completion "sbxrun convert --to profile d/a.json d/"
	expect_completion "sbxrun probe "
	expect_completion "sbxrun context "
}

@test "bash: the command after -- or after the options, then its own completion" {
	run complete "sbxrun -- bas" "sbxrun --profile :workspace -w $WS bas" "sbxrun explain -- bas"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^bash$' <<<"$output")" -ge 3 ]
	# Once the command is there, its arguments are its own: sbxrun's options are not offered.
	expect_completion "sbxrun -- fakecmd --a" --alpha
	expect_completion "sbxrun -p :read-only fakecmd --" --alpha --beta
	expect_completion "sbxrun run fakecmd --b" --beta
	expect_completion "sbxrun explain -- fakecmd -" --alpha --beta
	expect_completion "sbxrun fakecmd --pro"
	# A first word that is not a subcommand is the command plain sbxrun runs.
	run complete "sbxrun bas"
	grep -qx bash <<<"$output"
}

@test "zsh: the script parses" {
	command -v zsh
	zsh -n "$SBX_ZSH_COMPLETION"
	grep -qx '#compdef sbxrun' "$SBX_ZSH_COMPLETION"
}

@test "zsh: completion of subcommands, options, values and profiles" {
	command -v zsh
	mkdir -p "$WS/zfpath" "$WS/d/inner"
	cp "$SBX_ZSH_COMPLETION" "$WS/zfpath/_sbxrun"
	touch "$WS/d/p.json"
	run zsh -f "$BATS_TEST_DIRNAME/complete.zsh" "$WS/zfpath" \
		"sbxrun expl" "sbxrun --sandbox " "sbxrun explain --pla" "sbxrun run --js" \
		"sbxrun --profile :w" "sbxrun --cwd d/" "sbxrun explain --platform " \
		"sbxrun merge d/" "sbxrun probe --"
	[ "$status" -eq 0 ]
	want=$(printf '%s\n' explain -- auto forbid require -- --platform -- -- :workspace :workspace-git -- \
		inner -- linux macos windows -- inner p.json -- --help --json --)
	[ "$output" = "$want" ] || {
		printf 'got:\n%s\nwant:\n%s\n' "$output" "$want" >&2
		return 1
	}
}
