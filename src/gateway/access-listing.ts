/** `branch-agent keys list`: the store's API keys and branches as two plain-text tables. */
import type { Scope } from './scopes.js';

export interface ApiKeyListing {
  id: number;
  user: string;
  label: string;
  scopes: readonly Scope[];
  createdAt: Date;
  revokedAt: Date | null;
}

export interface BranchListing {
  licenseKey: string;
  user: string;
  name: string;
  createdAt: Date;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

export function formatAccessListing(keys: ApiKeyListing[], branches: BranchListing[]): string {
  const keyRows = keys.map((k) => [
    String(k.id),
    k.user,
    k.label,
    k.scopes.join(','),
    day(k.createdAt),
    k.revokedAt ? `revoked ${day(k.revokedAt)}` : 'active',
  ]);
  const branchRows = branches.map((b) => [b.licenseKey, b.user, b.name, day(b.createdAt)]);
  return [
    `API keys (${keys.length}; times in UTC)`,
    table(['id', 'user', 'label', 'scopes', 'created', 'state'], keyRows),
    '',
    `Branches (${branches.length})`,
    table(['licenseKey', 'user', 'name', 'registered'], branchRows),
  ].join('\n');
}
