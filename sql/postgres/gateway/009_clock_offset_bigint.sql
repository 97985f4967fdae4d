-- A branch server's clock may be years off (one whose battery died boots in 2000): its offset
-- in milliseconds does not fit an integer past 24.8 days, and every hello and heartbeat of that
-- branch failed to be written, leaving it shown offline while its agent served jobs.
ALTER TABLE gw_agent_status ALTER COLUMN clock_offset_ms TYPE bigint;
