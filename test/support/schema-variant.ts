import { inject } from 'vitest';

/**
 * True when this run's POS templates are Soft Restaurant 10 (no WorkspaceId, 2-decimal line
 * discounts, no discount maximums): the few expectations that depend on the installed version
 * read it from here.
 */
export const SR10 = inject('posSchema') === 'sr10';
