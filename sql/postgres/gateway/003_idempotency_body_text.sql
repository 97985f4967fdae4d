-- An idempotency outcome is kept as the JSON text the client was answered with. jsonb refused
-- some of those answers (a \u0000 escape has no jsonb form), and a write that had run then
-- failed to record; text keeps any JSON, and only the gateway reads it back.
ALTER TABLE gw_idempotency ALTER COLUMN body TYPE text USING body::text;
