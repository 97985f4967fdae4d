#!/usr/bin/env bash
# Installs, or upgrades to, the unpacked release this script belongs to: `branch-agent service
# install` run by the release's own Node.js (runtime/node), or by the one given with --node PATH.
# Every option is passed on; `install.sh --help` lists them and the exit codes. Only shell
# built-ins here: the machine needs nothing installed, not even node on the PATH.
set -euo pipefail

here=${BASH_SOURCE[0]%/*}
[[ $here == "${BASH_SOURCE[0]}" ]] && here=.
release=$(cd "$here/.." && pwd)

node=$release/runtime/node
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --node) node=${args[i + 1]:-} ;;
    --node=*) node=${args[i]#*=} ;;
  esac
done
[[ -x $node ]] || {
  echo "No Node.js at '$node': use a release made by scripts/make-release.sh (it carries runtime/node), or pass --node PATH." >&2
  exit 1
}
exec "$node" "$release/bin/branch-agent.js" service install "$@"
