#!/usr/bin/env bash
# Builds the production copy of the service in OUT (default ./release): the compiled
# JavaScript, the migrations, the pages' assets (public/), the client package and production
# dependencies only. The Dockerfile runs exactly this; so does CI, which then starts the
# result and fetches the pages' assets from it.
#
#   scripts/release.sh [OUT]
#   OUT/bin/dealroom migrate && OUT/bin/dealroom serve
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/release}" && cd "${1:-$root/release}" && pwd)"
[ "$out" != "$root" ] || { echo "release.sh: OUT must not be the checkout itself" >&2; exit 2; }

cd "$root"
echo "== build (with the development dependencies)"
# CI has just installed them from the same lockfile: RELEASE_INSTALLED=1 skips a second install.
[ "${RELEASE_INSTALLED:-}" = 1 ] || npm ci --no-audit --no-fund
npm run build

echo "== assemble $out"
find "$out" -mindepth 1 -delete
cp -R bin dist migrations public package.json package-lock.json "$out/"
mkdir -p "$out/packages" && cp -R packages/client "$out/packages/client"
rm -rf "$out/packages/client/node_modules" "$out/packages/client/"*.test.ts

echo "== production dependencies only"
cd "$out"
npm ci --omit=dev --no-audit --no-fund
echo "release ready in $out ($(node bin/dealroom.mjs --version))"
