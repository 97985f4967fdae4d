#!/usr/bin/env bash
# Makes a self-contained release of the branch agent: release/branch-agent-<version>/ and its
# .tar.gz, holding dist/, sql/, bin/, service-install/, config.example.json, README.md,
# package.json, package-lock.json and the production node_modules. A branch installs it with
# service-install/install.sh (Linux) or install.ps1 (Windows) and downloads nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/release
BUILD=1
TYPECHECK=1
TARBALL=1
LINK_NODE_MODULES=0
PLATFORM=

usage() {
  cat <<EOF
Usage: scripts/make-release.sh [options]

  1. npm run build (tsc -p tsconfig.build.json: src/ -> dist/, type-checked), from a clean dist/
  2. npm pack: exactly the files package.json's "files" lists, plus package.json
  3. package-lock.json, then \`npm ci --omit=dev\` inside the release: production dependencies
     only, as locked
  4. <out>/branch-agent-<version>.tar.gz (Windows 10+ unpacks it with the built-in tar.exe)

Options:
  --out DIR             where to create the release (default $OUT)
  --platform OS         install dependencies for another OS: win32 or linux (default: this one).
                        The dependencies are pure JavaScript except optional platform packages,
                        which npm picks by --os/--cpu (x64).
  --skip-build          use the existing dist/
  --no-typecheck        build without type checking (tsc --noCheck: same output, much faster)
  --no-tarball          leave the directory only
  --link-node-modules   FOR TESTS ONLY: node_modules becomes a symlink to this checkout's
                        node_modules instead of a production install (no registry access)
  -h, --help            this text
EOF
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    --platform) PLATFORM=${2:?--platform needs win32 or linux}; shift 2 ;;
    --platform=*) PLATFORM=${1#*=}; shift ;;
    --skip-build) BUILD=0; shift ;;
    --no-typecheck) TYPECHECK=0; shift ;;
    --no-tarball) TARBALL=0; shift ;;
    --link-node-modules) LINK_NODE_MODULES=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 1 ;;
  esac
done
case $PLATFORM in '' | win32 | linux) ;; *) echo "--platform: win32 or linux" >&2; exit 1 ;; esac
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac

cd "$ROOT"
VERSION=$(node -p 'require("./package.json").version')
NAME=branch-agent-$VERSION
DEST=$OUT/$NAME

if [[ $BUILD -eq 1 ]]; then
  echo "==> Building $NAME"
  rm -rf dist
  if [[ $TYPECHECK -eq 1 ]]; then
    npm run --silent build
  else
    npx --no-install tsc -p tsconfig.build.json --noCheck
  fi
fi
[[ -f dist/cli.js ]] || { echo "dist/cli.js is missing: run without --skip-build" >&2; exit 1; }

echo "==> Assembling $DEST"
mkdir -p "$OUT"
staging=$(mktemp -d "$OUT/.staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
npm pack --silent --pack-destination "$staging" >/dev/null
tar -xzf "$staging"/branch-agent-*.tgz -C "$staging"
rm -f "$staging"/branch-agent-*.tgz
cp package-lock.json "$staging/package/"
chmod +x "$staging/package/bin/branch-agent.js" "$staging/package/service-install/install.sh"

if [[ $LINK_NODE_MODULES -eq 1 ]]; then
  ln -s "$ROOT/node_modules" "$staging/package/node_modules"
else
  echo "==> Installing production dependencies (npm ci --omit=dev${PLATFORM:+ --os=$PLATFORM --cpu=x64})"
  (cd "$staging/package" && npm ci --omit=dev --no-audit --no-fund ${PLATFORM:+--os=$PLATFORM --cpu=x64})
fi

rm -rf "$DEST"
mv "$staging/package" "$DEST"

if [[ $TARBALL -eq 1 ]]; then
  tar -czf "$OUT/$NAME.tar.gz" -C "$OUT" "$NAME"
  echo "==> $OUT/$NAME.tar.gz"
fi
echo "==> $DEST"
