CREATE TABLE gw_users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Keys and tokens are stored as SHA-256 hex of the secret; the secret itself is never kept.
CREATE TABLE gw_api_keys (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES gw_users (id),
  key_hash char(64) NOT NULL UNIQUE,
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE gw_branches (
  license_key varchar(16) PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES gw_users (id),
  name text NOT NULL DEFAULT '',
  agent_token_hash char(64) NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE gw_idempotency (
  user_id bigint NOT NULL REFERENCES gw_users (id),
  idem_key varchar(255) NOT NULL,
  fingerprint char(64) NOT NULL,
  state varchar(12) NOT NULL CHECK (state IN ('running', 'done')),
  status_code integer,
  body jsonb,
  job_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, idem_key)
);
CREATE INDEX ix_gw_idempotency_expires_at ON gw_idempotency (expires_at);

CREATE TABLE gw_job_log (
  job_id text PRIMARY KEY,
  license_key varchar(16) NOT NULL,
  op text NOT NULL,
  worker_id text,
  outcome text NOT NULL,
  error_code text,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL
);
CREATE INDEX ix_gw_job_log_started_at ON gw_job_log (started_at);
