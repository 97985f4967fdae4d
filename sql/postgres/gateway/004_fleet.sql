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
