CREATE TABLE IF NOT EXISTS ba_schema_version (
  version integer PRIMARY KEY,
  name varchar(200) NOT NULL,
  applied_at timestamp(3) NOT NULL
);
