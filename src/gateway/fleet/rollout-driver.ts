/**
 * Sends each branch's agent the upgrade its rollout holds for it: when the rollout starts, and
 * whenever the agent says hello (it was offline, or it came back after an upgrade that failed
 * to report). The agent decides when, idle and inside the window; it reports back through the
 * hub. Only the gateway an agent is connected to sends it anything, so several gateways on one
 * store do not send twice.
 */
import type { Logger } from 'pino';
import { TurnsByKey } from '../../turns-by-key.js';
import { platformOf } from '../../protocol/releases.js';
import type { UpgradeProgressMessage } from '../../protocol/messages.js';
import type { AgentHub, UpgradeListener } from '../hub.js';
import type { GatewayStore } from '../store.js';

export const releaseDownloadPath = (version: string, platform: string) => `/agent/releases/${encodeURIComponent(version)}/${platform}`;

export class RolloutDriver implements UpgradeListener {
  readonly #turns = new TurnsByKey();

  constructor(
    private readonly store: GatewayStore,
    private readonly hub: AgentHub,
    private readonly log: Logger,
  ) {
    hub.listenForUpgrades(this);
  }

  connected(licenseKey: string, platform: string | null): void {
    void this.#inTurn(licenseKey, () => this.#offer(licenseKey, platform));
  }

  progress(licenseKey: string, report: UpgradeProgressMessage): void {
    this.log.info({ licenseKey, rolloutId: report.rolloutId, state: report.state, reason: report.reason }, 'upgrade progress');
    void this.#inTurn(licenseKey, () => this.store.rollouts.progress(report.rolloutId, licenseKey, report.state, report.reason));
  }

  /** A new rollout: offered at once to the branches whose agent is connected here. */
  async started(licenseKeys: string[]): Promise<void> {
    for (const licenseKey of licenseKeys) {
      const agent = this.hub.agentFor(licenseKey);
      if (agent) await this.#inTurn(licenseKey, () => this.#offer(licenseKey, agent.platform));
    }
  }

  async #offer(licenseKey: string, platform: string | null): Promise<void> {
    const target = await this.store.rollouts.activeFor(licenseKey);
    if (!target) return;
    const releasePlatform = platformOf(platform ?? '');
    const release = releasePlatform && (await this.store.releases.get(target.version, releasePlatform));
    if (!release) {
      const reason = `release ${target.version} is not published for ${platform ?? 'an agent that does not name its platform'}`;
      await this.store.rollouts.progress(target.rolloutId, licenseKey, 'failed', reason);
      return;
    }
    const { version, sha256, signature } = release;
    this.hub.sendUpgrade(licenseKey, {
      type: 'upgrade',
      rolloutId: target.rolloutId,
      release: { version, platform: release.platform, sha256, signature },
      downloadPath: releaseDownloadPath(version, release.platform),
      window: target.window,
    });
  }

  /**
   * A branch's offers and steps are recorded in the order they came: each in a transaction of its
   * own, two started at once (`downloading` then, a moment later, `installing`) could commit the
   * other way round and leave the branch shown downloading while it installs. The store being
   * down delays a rollout; it never breaks the connection that carried it, nor the request that
   * started it (the agent's next hello offers it again).
   */
  #inTurn(licenseKey: string, work: () => Promise<void>): Promise<void> {
    return this.#turns.run(licenseKey, () => work().catch((error: unknown) => this.log.warn({ err: error, licenseKey }, 'rollout step not recorded')));
  }
}
