/** Whether an API key's user may use a branch: the one check every route that names a branch makes. */
import { ApiError } from './problems.js';
import type { GatewayStore } from './store.js';

/** 403 branch_forbidden unless the branch is the user's (a branch nobody registered is refused alike). */
export async function authorizeBranch(store: Pick<GatewayStore, 'branchOwner'>, userId: number, licenseKey: string): Promise<void> {
  if ((await store.branchOwner(licenseKey)) !== userId) {
    throw new ApiError('branch_forbidden', `This API key may not use branch ${licenseKey}.`);
  }
}
