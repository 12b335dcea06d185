#!/usr/bin/env bats

@test "--version prints the version" {
	run "$SBXRUN" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "sbxrun 0.1.0" ]]
}
