-- The printer registry: printers belong to a user (the API key's owner) and to one of the
-- user's branches. Label settings are kept for every printer and used only by label printers.
CREATE TABLE gw_printers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id bigint NOT NULL REFERENCES gw_users (id),
  license_key varchar(16) NOT NULL REFERENCES gw_branches (license_key),
  printer_ip varchar(255) NOT NULL,
  printer_port integer NOT NULL DEFAULT 9100,
  display_name text NOT NULL,
  kind varchar(10) NOT NULL CHECK (kind IN ('thermal', 'label')),
  width_mm smallint CHECK (width_mm IN (58, 80)),
  source text,
  source_id text,
  label_width_mm numeric(6,2) NOT NULL DEFAULT 50,
  label_height_mm numeric(6,2) NOT NULL DEFAULT 25,
  label_gap_mm numeric(6,2) NOT NULL DEFAULT 2,
  label_dpi integer NOT NULL DEFAULT 203,
  label_density smallint NOT NULL DEFAULT 8,
  label_speed smallint NOT NULL DEFAULT 4,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'thermal' OR width_mm IS NOT NULL)
);
CREATE INDEX ix_gw_printers_user_branch ON gw_printers (user_id, license_key);
CREATE INDEX ix_gw_printers_branch ON gw_printers (license_key);
