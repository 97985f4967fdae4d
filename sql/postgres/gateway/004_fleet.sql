-- What an API key may do. Keys made before scopes existed keep what they could always do.
ALTER TABLE gw_api_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{read,write}'
  CHECK (scopes <@ '{read,write,fleet}'::text[]);

-- The last known state of each branch's agent: what it said in its hello and heartbeats, and
-- what the gateway saw of its connection. One row per branch, kept when the agent goes away.
CREATE TABLE gw_agent_status (
  license_key varchar(16) PRIMARY KEY REFERENCES gw_branches (license_key) ON DELETE CASCADE,
  online boolean NOT NULL,
  worker_id text NOT NULL,
  agent_version text NOT NULL,
  node_version text,
  os text,
  pos_version text,
  pos_state varchar(12),
  agent_started_at timestamptz,
  connected_since timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  jobs_running integer NOT NULL DEFAULT 0,
  clock_offset_ms integer,
  last_error text,
  last_error_at timestamptz
);

-- Each connection of an agent, for the disconnections of the last 24 hours.
CREATE TABLE gw_agent_connections (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  license_key varchar(16) NOT NULL REFERENCES gw_branches (license_key) ON DELETE CASCADE,
  worker_id text NOT NULL,
  connected_at timestamptz NOT NULL,
  disconnected_at timestamptz
);
CREATE INDEX ix_gw_agent_connections_branch ON gw_agent_connections (license_key, connected_at);

-- Job statistics of one branch read the log by branch and time.
CREATE INDEX ix_gw_job_log_branch_started ON gw_job_log (license_key, started_at);

-- Agent releases as published with `branch-agent releases add`: the signed manifest, and the
-- tarball in 1 MiB chunks so a download streams it without holding it whole in memory.
CREATE TABLE gw_releases (
  version varchar(50) NOT NULL,
  platform varchar(10) NOT NULL CHECK (platform IN ('linux', 'win32')),
  sha256 char(64) NOT NULL,
  signature text NOT NULL,
  size_bytes bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (version, platform)
);

CREATE TABLE gw_release_chunks (
  version varchar(50) NOT NULL,
  platform varchar(10) NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (version, platform, seq),
  FOREIGN KEY (version, platform) REFERENCES gw_releases (version, platform) ON DELETE CASCADE
);

-- A rollout and each of its branches' progress.
CREATE TABLE gw_rollouts (
  id uuid PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES gw_users (id),
  version varchar(50) NOT NULL,
  state varchar(10) NOT NULL CHECK (state IN ('running', 'paused', 'done')),
  window_from char(5),
  window_to char(5),
  max_failure_pct integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE gw_rollout_targets (
  rollout_id uuid NOT NULL REFERENCES gw_rollouts (id) ON DELETE CASCADE,
  license_key varchar(16) NOT NULL REFERENCES gw_branches (license_key) ON DELETE CASCADE,
  state varchar(12) NOT NULL CHECK (state IN ('pending', 'downloading', 'installing', 'done', 'rolled_back', 'failed')),
  reason text,
  from_version text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (rollout_id, license_key)
);
-- A branch is in at most one unfinished rollout: two would race to install different versions.
CREATE UNIQUE INDEX ux_gw_rollout_targets_active ON gw_rollout_targets (license_key)
  WHERE state IN ('pending', 'downloading', 'installing');
