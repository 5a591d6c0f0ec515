#!/bin/sh
# Rebuild plotly-basic.min.js from the npm package pinned in package-lock.json (a maintainer's step;
# serving the pages needs neither node nor npm: the built file is committed beside this script).
#   frontend/vendor/plotly/update.sh              reinstall the locked version, copy it here
#   frontend/vendor/plotly/update.sh 3.2.0        move the pin to another version first
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work/"
cd "$work"
if [ $# -gt 0 ]; then
  npm install --save-exact --ignore-scripts "plotly.js-basic-dist-min@$1"
  cp package.json package-lock.json "$here/"
else
  npm ci --ignore-scripts
fi
pkg=node_modules/plotly.js-basic-dist-min
cp "$pkg/plotly-basic.min.js" "$pkg/LICENSE" "$here/"
version=$(node -p "require('./$pkg/package.json').version")
sha=$(sha256sum "$here/plotly-basic.min.js" | cut -d' ' -f1)
printf '%s  plotly-basic.min.js (plotly.js-basic-dist-min %s)\n' "$sha" "$version" > "$here/SHA256SUMS"
echo "plotly.js-basic-dist-min $version -> $here/plotly-basic.min.js ($sha)"
