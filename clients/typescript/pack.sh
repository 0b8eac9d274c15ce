#!/usr/bin/env bash
# make client: the installable package of the TypeScript client, as a tarball
# an app installs with npm (clients/typescript/README.md, "Install").
#
#   pack.sh [OUT]   writes OUT (default bin/marketplace-api.tgz at the
#                   repository's root) and prints its path and version
#
# The package's version is the public contract's version (contracts/ACCEPTED,
# written by make contracts-accept), never a number kept by hand: the
# checked-in package.json has none, and a staging copy gets it, so packing
# leaves the tree as it was. The staged package.json keeps what an app needs
# (name, exports, types, the peer dependency on convex) and drops the
# folder's own development dependencies and scripts.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src=$root/clients/typescript
out=${1:-$root/bin/marketplace-api.tgz}

version=$(awk '$1 == "public" { print $2 }' "$root/contracts/ACCEPTED")
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "make client: contracts/ACCEPTED names no public version (got \"$version\")" >&2
	exit 1
fi
if ! command -v npm >/dev/null; then
	echo "make client: npm is needed (Node.js 20 or later)" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$src/package.json" "$src/api.js" "$src/api.d.ts" "$src/README.md" "$stage/"
(
	cd "$stage"
	npm pkg set "version=$version"
	npm pkg delete devDependencies scripts
	npm pack --silent --pack-destination "$stage" >/dev/null
)
mkdir -p "$(dirname "$out")"
mv "$stage"/marketplace-api-"$version".tgz "$out"
echo "$out (@marketplace/api $version)"
