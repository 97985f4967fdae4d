CREATE TABLE IF NOT EXISTS gw_schema_version (
  version integer PRIMARY KEY,
  name varchar(200) NOT NULL,
  applied_at timestamptz NOT NULL
);
