#!/usr/bin/env bash
# Installs, or upgrades, the branch agent from the unpacked release this script belongs to.
# `install.sh --help` explains every step and option.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RELEASE_DIR=$(cd "$SCRIPT_DIR/.." && pwd)

PREFIX=/opt/branch-agent
CONFIG=/etc/branch-agent/config.json
USE_SYSTEMD=1
HEALTH_TIMEOUT=60
SETTLE=5
KEEP=3
SERVICE=branch-agent
SERVICE_USER=branch-agent
STOP_TIMEOUT=30
NODE=${NODE:-}

usage() {
  cat <<EOF
Usage: service-install/install.sh [options]

Installs the branch agent from this unpacked release, or upgrades an installed one to it.
Run it from inside the release (branch-agent-<version>/); nothing is downloaded.

  1. Checks Node.js (20.12 or later) and that this release is complete.
  2. Configuration: an existing file is never overwritten. When none exists, writes a template
     there (the "agent" section of config.example.json), says what to fill in and exits with 2:
     edit it and run install.sh again.
  3. Copies the release to <prefix>/releases/<version>, next to the previous ones.
  4. Applies the agent's own database migrations (\`branch-agent migrate -c <config>\`) while
     the running version keeps serving; if they fail, nothing is switched.
  5. Installs or updates the service (systemd unit "$SERVICE", or a background process with
     --no-systemd).
  6. Points <prefix>/current at the new release (atomic symlink switch) and restarts.
  7. Waits until http://127.0.0.1:<agent.health.port>/healthz (default 8081) answers with the
     new version and keeps answering for a few seconds. If it does not within the timeout,
     rolls back: current -> the previous release, restart, and exits non-zero.
  8. Keeps the last $KEEP releases (plus current and previous) and deletes older ones.

Running it again with the same release repairs: same steps, files of the running release kept.

Options:
  --prefix DIR            install root (default $PREFIX): releases/, current, logs/, run/
  --config FILE           configuration file (default $CONFIG). Secrets may live in
                          branch-agent.env beside it (KEY=value lines: AGENT_TOKEN,
                          POS_DB_PASSWORD), read by the service and by the migrations.
  --no-systemd            no systemd (containers, tests): the agent runs as a background
                          process, pid in <prefix>/run/branch-agent.pid, output appended to
                          <prefix>/logs/branch-agent.log. Not restarted after a crash or reboot.
  --health-timeout SECS   how long to wait for the agent to become healthy (default $HEALTH_TIMEOUT)
  --settle SECS           how long it must stay healthy before the upgrade counts (default $SETTLE)
  --keep N                releases to keep (default $KEEP)
  --user NAME             service account created when run as root with systemd (default $SERVICE_USER)
  --node PATH             Node.js executable (default: node on PATH, or \$NODE)
  -h, --help              this text

As root with systemd: a system unit /etc/systemd/system/$SERVICE.service running as the
dedicated user "$SERVICE_USER" (created, no login shell); releases are owned by root.
As a normal user: pass --prefix (and --config) under your home; with systemd a user unit
(~/.config/systemd/user/$SERVICE.service, \`loginctl enable-linger \$USER\` to start at boot),
or --no-systemd.

Exit codes: 0 installed and healthy; 1 stopped before switching (the running version is
untouched); 2 configuration template written, edit it and run again; 3 the new release did not
become healthy and the previous one was restored; 4 not healthy and nothing to roll back to
(or the rollback failed too).
EOF
}

log() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
  local code=1
  if [[ $1 =~ ^[0-9]+$ ]]; then code=$1; shift; fi
  printf '\nERROR: %s\n' "$*" >&2
  exit "$code"
}

need_value() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value (see --help)"; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --prefix) need_value "$@"; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#*=}; shift ;;
    --config) need_value "$@"; CONFIG=$2; shift 2 ;;
    --config=*) CONFIG=${1#*=}; shift ;;
    --no-systemd) USE_SYSTEMD=0; shift ;;
    --health-timeout) need_value "$@"; HEALTH_TIMEOUT=$2; shift 2 ;;
    --health-timeout=*) HEALTH_TIMEOUT=${1#*=}; shift ;;
    --settle) need_value "$@"; SETTLE=$2; shift 2 ;;
    --settle=*) SETTLE=${1#*=}; shift ;;
    --keep) need_value "$@"; KEEP=$2; shift 2 ;;
    --keep=*) KEEP=${1#*=}; shift ;;
    --user) need_value "$@"; SERVICE_USER=$2; shift 2 ;;
    --user=*) SERVICE_USER=${1#*=}; shift ;;
    --node) need_value "$@"; NODE=$2; shift 2 ;;
    --node=*) NODE=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done

[[ $HEALTH_TIMEOUT =~ ^[0-9]+$ && $HEALTH_TIMEOUT -gt 0 ]] || die "--health-timeout needs a number of seconds"
[[ $SETTLE =~ ^[0-9]+$ ]] || die "--settle needs a number of seconds"
[[ $KEEP =~ ^[0-9]+$ && $KEEP -ge 1 ]] || die "--keep needs a number, at least 1"

absolute() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
PREFIX=$(absolute "${PREFIX%/}")
CONFIG=$(absolute "$CONFIG")
CONFIG_DIR=$(dirname "$CONFIG")
ENV_FILE=$CONFIG_DIR/branch-agent.env
IS_ROOT=0
[[ $EUID -eq 0 ]] && IS_ROOT=1

# --- 1. Node.js and the release ---------------------------------------------------------------

if [[ -z $NODE ]]; then NODE=$(command -v node || true); fi
[[ -n $NODE && -x $NODE ]] || die "Node.js not found: install Node.js 20 LTS or later (https://nodejs.org), or pass --node PATH."
NODE=$(absolute "$NODE")
"$NODE" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 12) ? 0 : 1)' ||
  die "$NODE is Node.js $("$NODE" --version); the agent needs 20.12 or later."

for f in package.json dist/cli.js bin/branch-agent.js sql node_modules; do
  [[ -e $RELEASE_DIR/$f ]] || die "$RELEASE_DIR is not a complete release ($f missing). Make one with scripts/make-release.sh and run the install.sh inside it."
done
VERSION=$("$NODE" -p 'require(process.argv[1]).version' "$RELEASE_DIR/package.json")
[[ $VERSION =~ ^[0-9A-Za-z][0-9A-Za-z.+_-]*$ ]] || die "unusable version \"$VERSION\" in $RELEASE_DIR/package.json"

if [[ $USE_SYSTEMD -eq 1 ]]; then
  command -v systemctl >/dev/null || die "systemctl not found. Without systemd, use --no-systemd."
  if [[ $IS_ROOT -eq 1 ]]; then
    [[ -d /run/systemd/system ]] || die "systemd is not running on this machine (container?). Use --no-systemd."
    SYSTEMCTL=(systemctl)
    UNIT_DIR=/etc/systemd/system
    RUN_USER=$SERVICE_USER
  else
    systemctl --user show-environment >/dev/null 2>&1 ||
      die "no systemd user session for $(id -un): run as root (sudo) for a system service, or use --no-systemd."
    SYSTEMCTL=(systemctl --user)
    UNIT_DIR=${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user
    RUN_USER=$(id -un)
  fi
else
  RUN_USER=$(id -un)
fi

log "Installing branch-agent $VERSION from $RELEASE_DIR"
note "prefix $PREFIX, config $CONFIG, $([[ $USE_SYSTEMD -eq 1 ]] && echo "systemd service $SERVICE" || echo "background process (no systemd)"), runs as $RUN_USER"

mkdir -p "$PREFIX" || die "cannot create $PREFIX (as a normal user, pass --prefix under your home directory)."
# One installer at a time.
if command -v flock >/dev/null; then
  exec 9>"$PREFIX/.install.lock"
  flock -n 9 || die "another install.sh is running on $PREFIX."
fi

# --- service account --------------------------------------------------------------------------

if [[ $USE_SYSTEMD -eq 1 && $IS_ROOT -eq 1 ]] && ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
  log "Creating the system user $SERVICE_USER"
  nologin=$(command -v nologin || echo /usr/sbin/nologin)
  if command -v useradd >/dev/null; then
    useradd --system --user-group --home-dir "$PREFIX" --no-create-home --shell "$nologin" --comment "Soft Restaurant branch agent" "$SERVICE_USER"
  elif command -v adduser >/dev/null; then
    adduser -S -D -H -h "$PREFIX" -s "$nologin" "$SERVICE_USER" && { getent group "$SERVICE_USER" >/dev/null || addgroup -S "$SERVICE_USER"; } && addgroup "$SERVICE_USER" "$SERVICE_USER"
  else
    die "neither useradd nor adduser exists: create the user $SERVICE_USER yourself, or pass --user NAME."
  fi
fi
SERVICE_GROUP=$(id -gn "$RUN_USER")

# As root: whatever needs a group for the service gets $SERVICE_GROUP.
own() { if [[ $IS_ROOT -eq 1 ]]; then chown "$@"; fi; }
as_service_user() {
  if [[ $IS_ROOT -eq 1 && $RUN_USER != root ]]; then runuser -u "$RUN_USER" -- "$@"; else "$@"; fi
}

# --- 2. configuration -------------------------------------------------------------------------

if [[ ! -e $CONFIG ]]; then
  created_dir=0
  if [[ ! -d $CONFIG_DIR ]]; then
    mkdir -p "$CONFIG_DIR" || die "cannot create $CONFIG_DIR (as a normal user, pass --config FILE under your home directory)."
    created_dir=1
  fi
  if [[ $created_dir -eq 1 || $CONFIG_DIR == /etc/branch-agent ]]; then
    # The agent keeps its lock file (branch-agent.lock) beside the config: the service may
    # create files here, but the sticky bit keeps it from replacing the config itself.
    own "root:$SERVICE_GROUP" "$CONFIG_DIR"
    chmod 1770 "$CONFIG_DIR"
  fi
  tmp=$(mktemp "$CONFIG_DIR/.config.XXXXXX")
  "$NODE" -e '
    const fs = require("node:fs");
    const example = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    fs.writeFileSync(process.argv[2], JSON.stringify({ agent: example.agent }, null, 2) + "\n");
  ' "$RELEASE_DIR/config.example.json" "$tmp"
  chmod 0640 "$tmp"
  own "root:$SERVICE_GROUP" "$tmp"
  mv "$tmp" "$CONFIG"
  log "No configuration yet: wrote a template to $CONFIG"
  note "Fill in agent.licenseKey, agent.gatewayUrl, agent.token (from \`branch-agent keys add-branch\`)"
  note "and agent.database (SQL Server of the POS). Secrets may go to $ENV_FILE instead"
  note "(AGENT_TOKEN=..., POS_DB_PASSWORD=..., mode 0640). Check it with:"
  note "  $NODE $RELEASE_DIR/bin/branch-agent.js doctor -c $CONFIG"
  note "then run this install.sh again."
  exit 2
fi
[[ -r $CONFIG ]] || die "cannot read $CONFIG."
log "Configuration $CONFIG kept as it is"

if [[ $IS_ROOT -eq 1 && $RUN_USER != root ]]; then
  if ! as_service_user test -r "$CONFIG"; then
    note "giving the group $SERVICE_GROUP read access to $CONFIG (its content is not touched)"
    chgrp "$SERVICE_GROUP" "$CONFIG" && chmod g+r "$CONFIG"
  fi
  if ! as_service_user test -w "$CONFIG_DIR"; then
    if [[ $CONFIG_DIR == /etc/branch-agent ]]; then
      own "root:$SERVICE_GROUP" "$CONFIG_DIR"
      chmod 1770 "$CONFIG_DIR"
    else
      warn "$RUN_USER cannot create files in $CONFIG_DIR, where the agent keeps its lock file by default: set agent.lockFile to a writable path (e.g. $PREFIX/run/branch-agent.lock) or allow it (chgrp $SERVICE_GROUP $CONFIG_DIR; chmod 1770 $CONFIG_DIR)."
    fi
  fi
fi

# The loopback address and port of the agent's health endpoints, from the config.
# shellcheck disable=SC2016 # JavaScript, not shell
read -r HEALTH_HOST HEALTH_PORT < <("$NODE" -e '
  let health = {};
  try { health = (JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).agent || {}).health || {}; } catch {}
  let host = health.host || "127.0.0.1";
  if (host === "0.0.0.0") host = "127.0.0.1";
  if (host === "::") host = "::1";
  console.log(host.includes(":") ? `[${host}]` : host, health.port ?? 8081);
' "$CONFIG")
[[ $HEALTH_PORT != 0 ]] || die "agent.health.port is 0 (a random port) in $CONFIG: the installer cannot check the agent's health. Set a fixed port (default 8081)."
HEALTH_URL=http://$HEALTH_HOST:$HEALTH_PORT/healthz

# --- 3. the release, side by side -------------------------------------------------------------

RELEASES=$PREFIX/releases
TARGET=$RELEASES/$VERSION
current_release() {
  local link
  link=$(readlink "$PREFIX/current" 2>/dev/null || true)
  [[ -n $link ]] && basename "$link"
  return 0
}
PREVIOUS=$(current_release)

mkdir -p "$RELEASES"
if [[ $IS_ROOT -eq 1 ]]; then
  chown root:root "$PREFIX" "$RELEASES"
  chmod 0755 "$PREFIX" "$RELEASES"
fi
install -d -m 0750 "$PREFIX/logs" "$PREFIX/run"
own -R "$RUN_USER:$SERVICE_GROUP" "$PREFIX/logs" "$PREFIX/run"

if [[ $(cd "$RELEASE_DIR" && pwd -P) == "$(cd "$TARGET" 2>/dev/null && pwd -P)" ]]; then
  log "Running from the installed release $TARGET: files kept"
elif [[ $PREVIOUS == "$VERSION" && -d $TARGET ]]; then
  log "Version $VERSION is the current one: its files are kept (the running agent uses them)"
else
  log "Copying the release to $TARGET"
  staging=$RELEASES/.staging-$VERSION-$$
  rm -rf "$staging"
  trap 'rm -rf "$staging"' EXIT
  cp -a "$RELEASE_DIR/." "$staging/"
  if [[ $IS_ROOT -eq 1 ]]; then
    # Code the service runs belongs to root: the service account cannot change it.
    chown -R root:root "$staging"
    chmod -R go-w "$staging"
  fi
  rm -rf "$TARGET"
  mv "$staging" "$TARGET"
  trap - EXIT
fi

# --- 4. migrations ----------------------------------------------------------------------------

# The variables of branch-agent.env (when present), exported into the current (sub)shell.
load_env() {
  if [[ -r $ENV_FILE ]]; then
    set -a
    # shellcheck source=/dev/null
    . "$ENV_FILE"
    set +a
  fi
}

log "Applying the agent's database migrations"
migrate=("$NODE" "$TARGET/bin/branch-agent.js" migrate -c "$CONFIG")
if command -v timeout >/dev/null; then migrate=(timeout 300 "${migrate[@]}"); fi
if ! (load_env && "${migrate[@]}"); then
  die 1 "the migrations of $VERSION failed (see above): nothing was switched$([[ -n $PREVIOUS ]] && echo "; $PREVIOUS keeps running"). Fix the cause (\`$NODE $TARGET/bin/branch-agent.js doctor -c $CONFIG\` checks everything) and run install.sh again."
fi

# --- 5. the service ---------------------------------------------------------------------------

PID_FILE=$PREFIX/run/branch-agent.pid
OUT_LOG=$PREFIX/logs/branch-agent.log

sed_escape() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }

install_unit() {
  local unit=$UNIT_DIR/$SERVICE.service tmp
  mkdir -p "$UNIT_DIR"
  tmp=$(mktemp)
  sed -e "s|@NODE@|$(sed_escape "$NODE")|g" \
    -e "s|@PREFIX@|$(sed_escape "$PREFIX")|g" \
    -e "s|@CONFIG@|$(sed_escape "$CONFIG")|g" \
    -e "s|@CONFIG_DIR@|$(sed_escape "$CONFIG_DIR")|g" \
    -e "s|@ENV_FILE@|$(sed_escape "$ENV_FILE")|g" \
    -e "s|@USER@|$(sed_escape "$RUN_USER")|g" \
    -e "s|@GROUP@|$(sed_escape "$SERVICE_GROUP")|g" \
    "$SCRIPT_DIR/branch-agent.service" >"$tmp"
  if [[ $IS_ROOT -eq 0 ]]; then
    # A user unit runs as its user, and sandboxing needs privileges it does not have.
    sed -i -e '/^User=/d' -e '/^Group=/d' -e '/^ProtectSystem=/d' -e '/^ReadWritePaths=/d' \
      -e 's/^WantedBy=multi-user.target/WantedBy=default.target/' "$tmp"
  fi
  if ! cmp -s "$tmp" "$unit"; then
    log "Installing the systemd unit $unit"
    install -m 0644 "$tmp" "$unit"
    "${SYSTEMCTL[@]}" daemon-reload
  fi
  rm -f "$tmp"
  "${SYSTEMCTL[@]}" enable "$SERVICE.service" >/dev/null 2>&1 || "${SYSTEMCTL[@]}" enable "$SERVICE.service"
}

agent_pid() {
  local pid
  [[ -f $PID_FILE ]] || return 1
  pid=$(<"$PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  # A pid reused by an unrelated process after a reboot is not ours.
  if [[ -r /proc/$pid/cmdline ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF 'branch-agent.js'; then return 1; fi
  printf '%s' "$pid"
}

stop_background() {
  local pid waited=0
  pid=$(agent_pid) || { rm -f "$PID_FILE"; return 0; }
  note "stopping the agent (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if [[ $waited -ge $((STOP_TIMEOUT * 10)) ]]; then
      warn "the agent did not stop within $STOP_TIMEOUT s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$PID_FILE"
}

start_background() {
  local pid tries=0
  note "starting the agent in the background (output: $OUT_LOG)"
  # The agent outlives this script: its own session, no terminal, output to the log. The
  # subshell execs into setsid, which execs into node: $! is the agent's pid.
  (
    exec 9>&- # the installer's lock stays with the installer
    cd "$PREFIX"
    load_env
    trap '' HUP
    if command -v setsid >/dev/null; then
      exec setsid "$NODE" "$PREFIX/current/bin/branch-agent.js" run -c "$CONFIG"
    fi
    exec "$NODE" "$PREFIX/current/bin/branch-agent.js" run -c "$CONFIG"
  ) </dev/null >>"$OUT_LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PID_FILE"
  # Until the exec chain has reached node, /proc shows this shell: wait for it.
  while [[ -r /proc/$pid/cmdline && $tries -lt 50 ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF 'branch-agent.js'; do
    sleep 0.1
    tries=$((tries + 1))
  done
}

restart_agent() {
  if [[ $USE_SYSTEMD -eq 1 ]]; then
    log "Restarting the $SERVICE service"
    "${SYSTEMCTL[@]}" restart "$SERVICE.service"
  else
    log "Restarting the agent"
    stop_background
    start_background
  fi
}

switch_current() {
  # A new symlink renamed over the old one: `current` is never missing, not even for an instant.
  ln -sfn "releases/$1" "$PREFIX/.current.new"
  mv -Tf "$PREFIX/.current.new" "$PREFIX/current"
  log "current -> releases/$1"
}

# Answers "<version> <uptime seconds>" when /healthz answers 200 (curl when there is one; node
# otherwise, slower to start).
probe_health() {
  local body
  if command -v curl >/dev/null; then
    body=$(curl -fsS --max-time 2 "$HEALTH_URL" 2>/dev/null) || return 1
  else
    # shellcheck disable=SC2016 # JavaScript, not shell
    body=$("$NODE" -e '
      fetch(process.argv[1], { signal: AbortSignal.timeout(2000) })
        .then(async (res) => (res.ok ? console.log(await res.text()) : process.exit(1)))
        .catch(() => process.exit(1));
    ' "$HEALTH_URL" 2>/dev/null) || return 1
  fi
  [[ $body =~ \"version\":\"([^\"]+)\" ]] || return 1
  local version=${BASH_REMATCH[1]} uptime=0
  if [[ $body =~ \"uptimeSec\":([0-9]+) ]]; then uptime=${BASH_REMATCH[1]}; fi
  printf '%s %s\n' "$version" "$uptime"
}

# Healthy: /healthz answers with `version` and keeps answering, from the same process (its
# uptime does not start again), for SETTLE seconds. A release that crashes after opening its
# health port is caught here, not reported healthy.
UNHEALTHY=''
wait_healthy() {
  local version=$1 deadline=$((SECONDS + HEALTH_TIMEOUT)) since='' first_uptime=0 answer got uptime
  note "waiting for $HEALTH_URL to answer with version $version (up to $HEALTH_TIMEOUT s)"
  while [[ $SECONDS -lt $deadline ]]; do
    if [[ $USE_SYSTEMD -eq 0 ]] && ! agent_pid >/dev/null; then
      UNHEALTHY='the agent process exited'
      note "$UNHEALTHY"
      return 1
    fi
    if answer=$(probe_health) && read -r got uptime <<<"$answer" && [[ $got == "$version" ]]; then
      if [[ -z $since ]]; then
        since=$SECONDS
        first_uptime=$uptime
      elif [[ $uptime -lt $first_uptime ]]; then
        since=$SECONDS # restarted meanwhile: start counting again
        first_uptime=$uptime
      fi
      if [[ $((SECONDS - since)) -ge $SETTLE ]]; then
        note "healthy: version $got, up ${uptime}s"
        return 0
      fi
    else
      since=''
    fi
    sleep 0.5
  done
  UNHEALTHY="no lasting healthy answer within $HEALTH_TIMEOUT s"
  note "$UNHEALTHY"
  return 1
}

LOG_MARK=0
SINCE=$(date '+%Y-%m-%d %H:%M:%S')
show_recent_logs() {
  printf '\n--- the agent output since the restart (last 30 lines) ---\n' >&2
  if [[ $USE_SYSTEMD -eq 1 ]]; then
    journalctl "$([[ $IS_ROOT -eq 1 ]] && echo --unit || echo --user-unit)" "$SERVICE.service" --since "$SINCE" -n 30 --no-pager >&2 2>/dev/null || true
  else
    tail -c +$((LOG_MARK + 1)) "$OUT_LOG" 2>/dev/null | tail -n 30 >&2 || true
  fi
  printf -- '--------------------------------------\n' >&2
}

if [[ $USE_SYSTEMD -eq 1 ]]; then install_unit; fi

# --- 6. switch and restart --------------------------------------------------------------------

LOG_MARK=$(stat -c %s "$OUT_LOG" 2>/dev/null || echo 0)
SINCE=$(date '+%Y-%m-%d %H:%M:%S')
switch_current "$VERSION"
restart_agent

# --- 7. health, or rollback -------------------------------------------------------------------

logs_hint=$([[ $USE_SYSTEMD -eq 1 ]] && echo "journalctl $([[ $IS_ROOT -eq 1 ]] && echo -u || echo --user -u) $SERVICE" || echo "$OUT_LOG")
if ! wait_healthy "$VERSION"; then
  show_recent_logs
  failure=$UNHEALTHY
  if [[ -n $PREVIOUS && $PREVIOUS != "$VERSION" && -d $RELEASES/$PREVIOUS ]]; then
    log "Rolling back to $PREVIOUS"
    switch_current "$PREVIOUS"
    restart_agent
    if wait_healthy "$PREVIOUS"; then
      die 3 "branch-agent $VERSION did not become healthy ($failure). Rolled back: $PREVIOUS is running and healthy again. The failed release stays in $TARGET for inspection; its output is in $logs_hint."
    fi
    die 4 "branch-agent $VERSION did not become healthy ($failure), and neither did $PREVIOUS after the rollback ($UNHEALTHY). Check the agent output ($logs_hint) and run: $NODE $PREFIX/current/bin/branch-agent.js doctor -c $CONFIG"
  fi
  die 4 "branch-agent $VERSION did not become healthy ($failure) and there is no other release to roll back to$([[ $USE_SYSTEMD -eq 1 ]] && echo " (the service keeps retrying)"). Check the agent output ($logs_hint) and run: $NODE $PREFIX/current/bin/branch-agent.js doctor -c $CONFIG"
fi

# --- 8. old releases --------------------------------------------------------------------------

mapfile -t installed < <(find "$RELEASES" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort -V)
remove=$((${#installed[@]} - KEEP))
for old in "${installed[@]}"; do
  [[ $remove -gt 0 ]] || break
  [[ $old == "$VERSION" || $old == "$PREVIOUS" ]] && continue
  note "removing the old release $old"
  rm -rf "${RELEASES:?}/$old"
  remove=$((remove - 1))
done
find "$RELEASES" -mindepth 1 -maxdepth 1 -name '.staging-*' -exec rm -rf {} + 2>/dev/null || true

log "branch-agent $VERSION is installed and healthy$([[ -n $PREVIOUS && $PREVIOUS != "$VERSION" ]] && echo " (previous: $PREVIOUS, kept for rollback)")."
note "status: $([[ $USE_SYSTEMD -eq 1 ]] && echo "systemctl $([[ $IS_ROOT -eq 0 ]] && echo '--user ')status $SERVICE" || echo "pid $(cat "$PID_FILE")"), logs: $logs_hint"
note "check everything: $NODE $PREFIX/current/bin/branch-agent.js doctor -c $CONFIG"
