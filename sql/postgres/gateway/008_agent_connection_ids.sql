-- Each connection of an agent has an id of its own, written with its hello and named again when
-- it ends: one agent's connections share its worker id, and the end of an older one (a link that
-- died half-open, written after the agent said hello elsewhere) must not end the newer one.
ALTER TABLE gw_agent_status ADD COLUMN connection_id uuid;
ALTER TABLE gw_agent_connections ADD COLUMN connection_id uuid;
