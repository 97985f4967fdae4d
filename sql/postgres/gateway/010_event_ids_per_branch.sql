-- An event id is unique within its branch, not across the store. Agents derive it from their
-- license key and the change, so any agent can compute another branch's future ids: stored
-- first under its own branch, they made the other branch's real events look already stored,
-- and those were dropped from its feed and its owner's webhooks.
ALTER TABLE gw_events DROP CONSTRAINT gw_events_event_id_key;
ALTER TABLE gw_events ADD CONSTRAINT gw_events_branch_event_id_key UNIQUE (license_key, event_id);
