/** The gateway store's tables (sql/postgres/gateway/*.sql) as Kysely reads and writes them. */
import type { TargetState } from '../protocol/rollouts.js';
import type { ColumnType, Generated } from 'kysely';
import type { Scope } from './scopes.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface GatewayDatabase {
  /** Cluster mode's shared rate-limit counters (migration 006); `window_start` in ms since the epoch. */
  gw_rate_limit_windows: { key_hash: string; window_start: ColumnType<string, number, number>; hits: number };
  gw_users: { id: Generated<number>; name: string; created_at: Timestamp };
  gw_api_keys: {
    id: Generated<number>;
    user_id: number;
    key_hash: string;
    label: string;
    scopes: ColumnType<Scope[], Scope[] | undefined, Scope[]>;
    created_at: Timestamp;
    revoked_at: Date | null;
  };
  gw_branches: { license_key: string; user_id: number; name: string; agent_token_hash: string; created_at: Timestamp };
  gw_idempotency: {
    user_id: number;
    idem_key: string;
    fingerprint: string;
    state: 'running' | 'done';
    status_code: number | null;
    /** The JSON text of the answer (text, not jsonb: any JSON the client got can be kept). */
    body: string | null;
    job_id: string | null;
    created_at: Timestamp;
    expires_at: Timestamp;
  };
  gw_job_log: {
    job_id: string;
    license_key: string;
    op: string;
    worker_id: string | null;
    outcome: string;
    error_code: string | null;
    started_at: Date;
    duration_ms: number;
  };
  gw_printers: PrinterTable;
  gw_events: {
    seq: Generated<string>;
    event_id: string;
    license_key: string | null;
    type: string;
    payload: string;
    created_at: Timestamp;
  };
  gw_webhooks: {
    id: Generated<string>;
    user_id: number;
    url: string;
    event_types: string[];
    license_keys: string[] | null;
    secret_sealed: string;
    created_at: Timestamp;
  };
  gw_deliveries: {
    id: Generated<string>;
    webhook_id: string;
    event_seq: string;
    license_key: string;
    state: 'pending' | 'delivered' | 'failed';
    attempt_count: ColumnType<number, number | undefined, number>;
    next_attempt_at: Timestamp;
    lease_until: Date | null;
    delivered_at: Date | null;
    created_at: Timestamp;
  };
  gw_delivery_attempts: {
    id: Generated<string>;
    delivery_id: string;
    at: Date;
    status: number | null;
    error: string | null;
    duration_ms: number;
  };
  gw_agent_status: {
    license_key: string;
    online: boolean;
    worker_id: string;
    agent_version: string;
    node_version: string | null;
    os: string | null;
    pos_version: string | null;
    pos_state: string | null;
    agent_started_at: Date | null;
    connected_since: Date;
    /** Null for a row an instance older than connection ids wrote. */
    connection_id: string | null;
    last_seen: Date;
    jobs_running: number;
    /** bigint (migration 009): read as a string. */
    clock_offset_ms: ColumnType<string | null, number | null, number | null>;
    last_error: ColumnType<string | null, string | null | undefined, string | null>;
    last_error_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  };
  gw_agent_connections: {
    id: Generated<number>;
    license_key: string;
    worker_id: string;
    connected_at: Date;
    connection_id: string | null;
    disconnected_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  };
  gw_releases: {
    version: string;
    platform: string;
    sha256: string;
    signature: string;
    size_bytes: ColumnType<string, number, number>;
    created_at: Generated<Date>;
  };
  gw_release_chunks: { version: string; platform: string; seq: number; data: Buffer };
  gw_rollouts: {
    id: string;
    user_id: number;
    version: string;
    state: 'running' | 'paused' | 'done';
    window_from: string | null;
    window_to: string | null;
    max_failure_pct: number;
    created_at: Generated<Date>;
  };
  gw_rollout_targets: {
    rollout_id: string;
    license_key: string;
    state: TargetState;
    reason: string | null;
    from_version: string | null;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
}

/** gw_printers (sql/postgres/gateway/002_printers.sql) as Kysely reads and writes it. */
export interface PrinterTable {
  id: Generated<string>;
  user_id: number;
  license_key: string;
  printer_ip: string;
  printer_port: ColumnType<number, number | undefined, number>;
  display_name: string;
  kind: 'thermal' | 'label';
  width_mm: ColumnType<number | null, number | null | undefined, number | null>;
  source: ColumnType<string | null, string | null | undefined, string | null>;
  source_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** numeric(6,2): pg reads it as text. */
  label_width_mm: ColumnType<string, number | undefined, number>;
  label_height_mm: ColumnType<string, number | undefined, number>;
  label_gap_mm: ColumnType<string, number | undefined, number>;
  label_dpi: ColumnType<number, number | undefined, number>;
  label_density: ColumnType<number, number | undefined, number>;
  label_speed: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}
