-- Requests per API key (its hash) and fixed window, counted here only in cluster mode: every
-- instance adds to the same row, so a key's limit holds whichever instances it reaches. A
-- single gateway counts in memory and never touches this table.
CREATE UNLOGGED TABLE gw_rate_limit_windows (
  key_hash text NOT NULL,
  window_start bigint NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (key_hash, window_start)
);
