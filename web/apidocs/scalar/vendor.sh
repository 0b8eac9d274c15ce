#!/usr/bin/env bash
# Fetches the API reference's renderer, Scalar's standalone browser bundle,
# into this folder: once, by hand, when moving to another version (edit
# VERSION below and README.md's table, then commit the result; the gateway
# embeds standalone.js, so nothing is loaded from elsewhere at run time).
#
#   web/apidocs/scalar/vendor.sh
#
# npm pack downloads the published package's tarball (its integrity checked
# by npm against the registry's); the bundle is dist/browser/standalone.js.
# The package ships no licence file: its package.json declares MIT, whose
# text is kept in LICENSE beside the bundle.
set -euo pipefail

VERSION=1.76.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@scalar/api-reference@$VERSION" >/dev/null && tar xzf "scalar-api-reference-$VERSION.tgz")
license=$(node -p "require('$tmp/package/package.json').license")
if [[ $license != MIT ]]; then
	echo "vendor.sh: @scalar/api-reference $VERSION declares the licence $license, not MIT: review LICENSE" >&2
	exit 1
fi
cp "$tmp/package/dist/browser/standalone.js" "$here/standalone.js"
echo "web/apidocs/scalar/standalone.js: @scalar/api-reference $VERSION, sha256 $(sha256sum "$here/standalone.js" | cut -d' ' -f1)"
