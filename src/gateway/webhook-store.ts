/**
 * Webhooks in the gateway's store (gw_webhooks). They belong to the API key's user; another
 * user's webhook is treated as absent. The signing secret is stored sealed (webhook-secrets.ts).
 */
import type { Kysely } from 'kysely';
import type { EventType } from '../protocol/events.js';
import type { GatewayDatabase } from './store-schema.js';

export interface StoredWebhook {
  id: string;
  url: string;
  eventos: EventType[];
  licenseKeys: string[] | null;
  createdAt: Date;
}

type Row = Pick<GatewayDatabase['gw_webhooks'], 'url' | 'event_types' | 'license_keys'> & { id: string; created_at: Date };

const toWebhook = (r: Row): StoredWebhook => ({
  id: r.id,
  url: r.url,
  eventos: r.event_types as EventType[],
  licenseKeys: r.license_keys,
  createdAt: r.created_at,
});

const COLUMNS = ['id', 'url', 'event_types', 'license_keys', 'created_at'] as const;

export class WebhookStore {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  async create(userId: number, hook: { url: string; eventos: EventType[]; licenseKeys: string[] | null; secretSealed: string }): Promise<StoredWebhook> {
    const row = await this.db
      .insertInto('gw_webhooks')
      .values({ user_id: userId, url: hook.url, event_types: hook.eventos, license_keys: hook.licenseKeys, secret_sealed: hook.secretSealed })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return toWebhook(row);
  }

  async list(userId: number): Promise<StoredWebhook[]> {
    const rows = await this.db.selectFrom('gw_webhooks').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toWebhook);
  }

  /** The webhook with its sealed secret, if it is this user's. */
  async get(userId: number, id: string): Promise<(StoredWebhook & { secretSealed: string }) | undefined> {
    const row = await this.db
      .selectFrom('gw_webhooks')
      .select([...COLUMNS, 'secret_sealed'])
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && { ...toWebhook(row), secretSealed: row.secret_sealed };
  }

  /** Deletes a webhook and its deliveries; false when the user has no such webhook. */
  async delete(userId: number, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('gw_webhooks').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
