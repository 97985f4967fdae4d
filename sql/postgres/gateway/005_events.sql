-- Events (issue 17): what the agents detected, kept for the feed and delivered to webhooks.
-- (004 is the fleet's.)

-- Every event a branch reported, in the order the gateway stored them: `seq` is the feed's
-- cursor. An event id is stored once, however often an agent sends it. Test deliveries are
-- events of no branch (license_key null): never in a feed.
CREATE TABLE gw_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id varchar(64) NOT NULL UNIQUE,
  license_key varchar(16),
  type varchar(40) NOT NULL,
  -- The event as delivered (JSON text): the exact bytes every attempt signs.
  payload text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ix_gw_events_branch ON gw_events (license_key, seq);
CREATE INDEX ix_gw_events_created_at ON gw_events (created_at);

-- A user's webhook. The signing secret must be read back to sign, so it cannot be hashed: it
-- is kept encrypted (AES-256-GCM) under the gateway's webhook key, which is not in the store.
CREATE TABLE gw_webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id bigint NOT NULL REFERENCES gw_users (id),
  url text NOT NULL,
  event_types text[] NOT NULL,
  -- null: every branch of the user, present and future.
  license_keys varchar(16)[],
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ix_gw_webhooks_user ON gw_webhooks (user_id);

-- One event to one webhook. Sent in `seq` order per webhook and branch: only the oldest pending
-- delivery of each pair is due. An instance takes a due delivery by leasing it (lease_until);
-- a lease that expires (its instance died) makes the delivery due again.
CREATE TABLE gw_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES gw_webhooks (id) ON DELETE CASCADE,
  event_seq bigint NOT NULL REFERENCES gw_events (seq) ON DELETE CASCADE,
  -- The event's branch ('' for a test delivery): the unit of ordering.
  license_key varchar(16) NOT NULL,
  state varchar(10) NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, event_seq)
);
CREATE INDEX ix_gw_deliveries_pending ON gw_deliveries (webhook_id, license_key, event_seq) WHERE state = 'pending';
CREATE INDEX ix_gw_deliveries_webhook ON gw_deliveries (webhook_id, id);

CREATE TABLE gw_delivery_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES gw_deliveries (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  status integer,
  error text,
  duration_ms integer NOT NULL
);
CREATE INDEX ix_gw_delivery_attempts_delivery ON gw_delivery_attempts (delivery_id, id);
