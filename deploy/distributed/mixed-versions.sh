#!/usr/bin/env bash
# make test-mixed-versions: build the programs at the commit the published
# contracts were accepted at (contracts/ACCEPTED, or MIXED_OLD_COMMIT), at the
# current tree, and at the current tree with -tags nextversion, then run
# TestMixedVersions (mixed_test.go) on them: the distributed mode with one
# service at one version and the others at the other, both ways round.
#
# Settings (environment):
#   MIXED_OLD_COMMIT  the older version instead of contracts/ACCEPTED's commit
#                     (any revision git knows, or a full commit to fetch)
#   MIXED_RUN         a -run pattern below TestMixedVersions, e.g.
#                     'accepted-current/customers' or 'current-next'
#   MIXED_CACHE       where builds are kept (default bin/mixed): the older
#                     version's under its commit, built once; the current
#                     ones rebuilt every run (go's cache makes that quick)
#
# `mixed-versions.sh resolve` only prints the older version's commit (fetching
# it if this clone lacks it).
set -euo pipefail
case "${1:-}" in
"" | resolve) ;;
*) echo "usage: $0 [resolve]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
root=$PWD
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
cache=${MIXED_CACHE:-$root/bin/mixed}
say() { echo "mixed versions: $*" >&2; }
die() { say "$*"; exit 1; }

# The older version's commit.
if [ -n "${MIXED_OLD_COMMIT:-}" ]; then
	rev=$MIXED_OLD_COMMIT from="MIXED_OLD_COMMIT"
else
	[ -f contracts/ACCEPTED ] || die "no contracts/ACCEPTED: accept the contracts first (make contracts-accept) or set MIXED_OLD_COMMIT"
	rev=$(awk '$1 == "commit" { print $2; exit }' contracts/ACCEPTED)
	from="contracts/ACCEPTED"
	[ -n "$rev" ] || die "contracts/ACCEPTED has no 'commit <sha>' line: accept the contracts again (make contracts-accept) or set MIXED_OLD_COMMIT"
fi
if ! old=$(git rev-parse --verify --quiet "$rev^{commit}"); then
	depth=()
	if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		say "commit $rev ($from) is not in this clone, which is shallow: fetching that commit from origin"
		depth=(--depth=1)
	else
		say "commit $rev ($from) is not in this clone: fetching it from origin"
	fi
	git fetch --quiet --no-tags "${depth[@]}" origin "$rev" ||
		die "could not fetch $rev from origin; fetch the history (git fetch --unshallow origin) or set MIXED_OLD_COMMIT to a commit this clone has"
	old=$(git rev-parse --verify --quiet "$rev^{commit}" || git rev-parse --verify --quiet "FETCH_HEAD^{commit}") ||
		die "origin sent no commit $rev"
fi
if [ "${1:-}" = resolve ]; then
	echo "$old"
	exit 0
fi
short=$(git rev-parse --short "$old")

# The programs of the distributed mode, as make run-distributed builds them
# (without symbol tables: linking is most of a build's time). The older
# version's marketplace binary is not needed: the broker and the processor
# simulator are always the current one's (mixed_test.go says why).
build() { # dir tree [go build flags...]
	local out=$1 tree=$2
	shift 2
	(cd "$tree" && env -u GOWORK "$GO" build -buildvcs=auto "$@" -o "$out/" \
		./deploy/cmd/marketplace ./deploy/cmd/gateway $(printf './%s ' services/*/cmd/*))
}

accepted=$cache/accepted-$old
if [ -f "$accepted/.complete" ]; then
	say "$short ($from): built before, in $accepted"
else
	wt=$(mktemp -d "${TMPDIR:-/tmp}/marketplace-mixed-$short-XXXXXX")
	cleanup() {
		git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || true
		rm -rf "$wt" "$accepted.tmp"
		git -C "$root" worktree prune
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	git worktree add --quiet --detach "$wt" "$old"
	say "building $short ($from) in a worktree, $wt, with its own go.work"
	began=$SECONDS
	rm -rf "$accepted.tmp"
	# The worktree has no .git directory for go to stamp from: the commit is
	# given at link time (libs/version.stampedCommit, where the version has it).
	build "$accepted.tmp" "$wt" -ldflags="-s -w -X marketplace/libs/version.stampedCommit=$old"
	rm -f "$accepted.tmp/marketplace"
	touch "$accepted.tmp/.complete"
	rm -rf "$accepted" && mv "$accepted.tmp" "$accepted"
	say "built $short in $((SECONDS - began)) s"
	cleanup
	trap - EXIT
fi

head=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	head="$head+changes"
fi
began=$SECONDS
build "$cache/current" "$root" -ldflags="-s -w"
say "built current ($head) in $((SECONDS - began)) s"
began=$SECONDS
build "$cache/next" "$root" -tags nextversion -ldflags="-s -w"
say "built next (current -tags nextversion) in $((SECONDS - began)) s"

# The next version's own tests (files tagged nextversion: what the tag adds to
# answers, arguments and payloads, and how its Client meets a current callee)
# compile only with the tag, so make test never runs them.
began=$SECONDS
"$GO" test -count=1 -tags nextversion -run 'NextVersion|BuiltContracts' ./libs/ops ./libs/events ./libs/version
say "next version's tests (-tags nextversion) passed in $((SECONDS - began)) s"

MIXED_ACCEPTED_BIN=$accepted MIXED_ACCEPTED_LABEL="$short ($from)" \
	MIXED_CURRENT_BIN=$cache/current MIXED_CURRENT_LABEL=$head MIXED_NEXT_BIN=$cache/next \
	"$GO" test -count=1 -v -timeout 30m -run "^TestMixedVersions\$${MIXED_RUN:+/$MIXED_RUN}" ./deploy/distributed
