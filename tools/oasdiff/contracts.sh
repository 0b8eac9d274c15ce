#!/usr/bin/env bash
# The published contracts' check (make contracts-check, make contracts-accept).
#
#   contracts.sh check          regenerate into a temporary directory and fail
#                               on a breaking change against contracts/
#   contracts.sh accept         regenerate into contracts/, after checking that
#                               CHANGELOG.md has an entry for each changed
#                               contract's new version; write contracts/ACCEPTED
#   contracts.sh diff BASE NEW  judge the documents of directory NEW against
#                               those of BASE (exit 1 on a breaking change)
#
# The judge is oasdiff (tools/oasdiff/go.mod pins it; built into bin/oasdiff
# outside the workspace). Policy: docs/adr/0083-published-contracts.md.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GO=${GO:-go}
OASDIFF=${OASDIFF:-$root/bin/oasdiff}
# The enum meanings' judge (tools/oasdiff/enummeanings): what oasdiff cannot
# see, a value of an enum that changed its meaning (x-enum-meanings).
ENUMMEANINGS=${ENUMMEANINGS:-$(dirname "$OASDIFF")/enummeanings}
CONTRACTS=(public internal events)
# Where the snapshot and the changelog are (overridden by tests), and
# CONTRACTS_GENERATED: a directory of already generated documents to use
# instead of generating them (tests).
SNAPSHOT=${CONTRACTS_DIR:-$root/contracts}
CHANGELOG=${CHANGELOG:-$root/CHANGELOG.md}
# The accepted versions compiled into every program (libs/version, served in
# GET /ops): written beside ACCEPTED, but only for the repository's own
# snapshot unless VERSIONS_GO names another file (tests).
if [[ -z ${CONTRACTS_DIR:-} ]]; then
	VERSIONS_GO=${VERSIONS_GO:-$root/libs/version/contracts_gen.go}
fi
VERSIONS_GO=${VERSIONS_GO:-}

# oasdiff's options: errors fail; a removed (or renamed) request property is
# an error, not a warning; allOf is merged (the /api/run answers wrap values
# in allOf); /api/query and /api/mutation are left out (their anyOf lists
# shift when an operation is added; every operation is judged on its own
# /api/run path); no external $ref is fetched.
OPTS=(--fail-on ERR --severity-levels "$root/tools/oasdiff/severity-levels.txt" --flatten-allof
	--allow-external-refs=false -q '^/api/(query|mutation)$' --color never)

build_oasdiff() {
	if ! [[ -x $OASDIFF && $OASDIFF -nt $root/tools/oasdiff/go.sum && $OASDIFF -nt $root/tools/oasdiff/go.mod ]]; then
		(cd "$root/tools/oasdiff" && GOWORK=off "$GO" build -o "$OASDIFF" github.com/oasdiff/oasdiff)
	fi
	if ! [[ -x $ENUMMEANINGS && $ENUMMEANINGS -nt $root/tools/oasdiff/enummeanings/main.go ]]; then
		(cd "$root/tools/oasdiff" && GOWORK=off "$GO" build -o "$ENUMMEANINGS" ./enummeanings)
	fi
}

# generate DIR: the contracts as the declarations at the working tree give them.
generate() {
	local out=$1 log
	if [[ -n ${CONTRACTS_GENERATED:-} ]]; then
		cp "$CONTRACTS_GENERATED"/*.openapi.json "$out"/
		return
	fi
	log=$(mktemp)
	if ! (cd "$root" && CONTRACTS_OUT="$out" "$GO" test -count=1 -run '^TestContractsGenerate$' ./deploy/e2e >"$log" 2>&1); then
		cat "$log" >&2
		rm -f "$log"
		echo "contracts: generating the contracts failed" >&2
		return 1
	fi
	rm -f "$log"
}

# judge BASE NEW NAME: oasdiff breaking on one document, then the enum
# meanings' judge; prints their reports.
judge() {
	local failed=0
	"$OASDIFF" breaking "$1/$3.openapi.json" "$2/$3.openapi.json" "${OPTS[@]}" || failed=1
	"$ENUMMEANINGS" "$1/$3.openapi.json" "$2/$3.openapi.json" || failed=1
	return $failed
}

diff_dirs() {
	local base=$1 new=$2 failed=() c
	build_oasdiff
	for c in "${CONTRACTS[@]}"; do
		if [[ ! -f $base/$c.openapi.json ]]; then
			echo "contracts: $base/$c.openapi.json is missing (make contracts-accept writes the snapshot)" >&2
			failed+=("$c")
			continue
		fi
		if ! out=$(judge "$base" "$new" "$c" 2>&1); then
			echo "contracts: BREAKING change in the $c contract ($c.openapi.json):" >&2
			echo "$out" >&2
			failed+=("$c")
		elif ! cmp -s "$base/$c.openapi.json" "$new/$c.openapi.json"; then
			echo "contracts: $c: compatible changes (publish them with make contracts-accept and a CHANGELOG.md entry)"
		fi
	done
	if ((${#failed[@]})); then
		echo "contracts: breaking changes in: ${failed[*]}; a breaking change is a new version published beside the old one (docs/adr/0086-public-operation-deprecation.md)" >&2
		return 1
	fi
	echo "contracts: no breaking change (${CONTRACTS[*]})"
}

# accepted NAME: the version contracts/ACCEPTED records for a contract.
accepted() {
	awk -v c="$1" '$1 == c { print $2 }' "$SNAPSHOT/ACCEPTED" 2>/dev/null || true
}

# changelog NAME: the newest version CHANGELOG.md has an entry for
# (its first "## NAME VERSION" heading).
changelog() {
	awk -v c="$1" '$1 == "##" && $2 == c { print $3; exit }' "$CHANGELOG" 2>/dev/null || true
}

newer() { # newer A B: version A is greater than version B
	[[ $1 != "$2" && $(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n1) == "$1" ]]
}

# write_versions_go: the versions of contracts/ACCEPTED as Go (libs/version),
# so a program knows them without reading a file at run time.
write_versions_go() {
	local public internal events
	public=$(accepted public) internal=$(accepted internal) events=$(accepted events)
	cat >"$VERSIONS_GO" <<-EOF
		// Code generated by tools/oasdiff/contracts.sh (make contracts-accept) from contracts/ACCEPTED. DO NOT EDIT.

		package version

		// accepted are the published contracts' versions of this tree's snapshot.
		var accepted = Contracts{Public: "$public", Internal: "$internal", Events: "$events"}
	EOF
}

accept() {
	local tmp c old new versions=() bad=0
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	generate "$tmp"
	build_oasdiff
	for c in "${CONTRACTS[@]}"; do
		old=$(accepted "$c")
		new=$(changelog "$c")
		if [[ -f $SNAPSHOT/$c.openapi.json ]] && cmp -s "$SNAPSHOT/$c.openapi.json" "$tmp/$c.openapi.json" && [[ -n $old ]]; then
			versions+=("$c $old")
			continue
		fi
		if [[ -z $new ]] || { [[ -n $old ]] && ! newer "$new" "$old"; }; then
			echo "contracts: the $c contract changed: add a \"## $c <version>\" entry to CHANGELOG.md (above the others, version greater than ${old:-none}) saying what changed" >&2
			bad=1
			continue
		fi
		if [[ -n $old && -f $SNAPSHOT/$c.openapi.json ]] && ! judge "$SNAPSHOT" "$tmp" "$c" >/dev/null 2>&1; then
			if [[ ${new%%.*} == "${old%%.*}" ]]; then
				echo "contracts: the $c contract has a breaking change: its version must move to a new major (CHANGELOG.md has $new, accepted $old), published beside the old one for the deprecation window" >&2
				bad=1
				continue
			fi
		fi
		versions+=("$c $new")
	done
	((bad == 0)) || return 1
	mkdir -p "$SNAPSHOT"
	for c in "${CONTRACTS[@]}"; do
		cp "$tmp/$c.openapi.json" "$SNAPSHOT/$c.openapi.json"
	done
	{
		echo "# The published contracts, written by make contracts-accept: the commit"
		echo "# they were accepted at and each contract's version (CHANGELOG.md)."
		echo "commit $(git -C "$root" rev-parse HEAD)"
		printf '%s\n' "${versions[@]}"
	} >"$SNAPSHOT/ACCEPTED"
	if [[ -n $VERSIONS_GO ]]; then
		write_versions_go
	fi
	echo "contracts: accepted: ${versions[*]}"
}

case ${1:-} in
check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	generate "$tmp"
	diff_dirs "$SNAPSHOT" "$tmp"
	;;
accept) accept ;;
diff)
	[[ $# == 3 ]] || { echo "usage: $0 diff BASE NEW" >&2; exit 2; }
	diff_dirs "$2" "$3"
	;;
*)
	echo "usage: $0 check | accept | diff BASE NEW" >&2
	exit 2
	;;
esac
