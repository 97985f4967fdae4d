CREATE TABLE ba_idempotency (
  scope varchar(100) NOT NULL,
  idem_key varchar(255) NOT NULL,
  fingerprint varchar(64) NOT NULL,
  op varchar(60) NOT NULL,
  result text NOT NULL,
  created_at timestamp(3) NOT NULL,
  expires_at timestamp(3) NOT NULL,
  PRIMARY KEY (scope, idem_key)
);
CREATE INDEX ix_ba_idempotency_expires_at ON ba_idempotency (expires_at);
