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
import type { StoredRelease } from './release-store.js';

export const releaseDownloadPath = (version: string, platform: string) => `/agent/releases/${encodeURIComponent(version)}/${platform}`;

/** A branch's turns (upgrade reports, offers) waiting to be run: an upgrade reports four or five steps. */
const MAX_WAITING_REPORTS = 16;

export class RolloutDriver implements UpgradeListener {
  readonly #turns = new TurnsByKey();
  /** Branches whose reports are being dropped: logged once a run. */
  readonly #dropping = new Set<string>();

  constructor(
    private readonly store: GatewayStore,
    private readonly hub: AgentHub,
    private readonly log: Logger,
  ) {
    hub.listenForUpgrades(this);
  }

  connected(licenseKey: string, platform: string | null): void {
    void this.#inTurn(licenseKey, () => this.#offer(new Map([[licenseKey, platform]])));
  }

  /**
   * An agent reports a few steps an upgrade. A compromised branch server could send them by the
   * thousand a second, each a transaction in the branch's turn: the turns waiting grew without
   * bound (and the log with them), so past MAX_WAITING_REPORTS a branch's reports are dropped.
   */
  progress(licenseKey: string, report: UpgradeProgressMessage): void {
    if (this.#turns.waiting(licenseKey) >= MAX_WAITING_REPORTS) {
      if (!this.#dropping.has(licenseKey)) this.log.warn({ licenseKey }, 'agent reports upgrade progress faster than it is recorded; dropping reports');
      this.#dropping.add(licenseKey);
      return;
    }
    this.#dropping.delete(licenseKey);
    this.log.info({ licenseKey, rolloutId: report.rolloutId, state: report.state, reason: report.reason }, 'upgrade progress');
    void this.#inTurn(licenseKey, () => this.store.rollouts.progress(report.rolloutId, [licenseKey], report.state, report.reason));
  }

  /**
   * A new rollout: offered at once to the branches whose agent is connected here, all in one read
   * and one record (one at a time, ten thousand branches took seconds). Outside their turns: the
   * steps a branch has in line are its old rollout's, and an offer only sends a message.
   */
  async started(licenseKeys: string[]): Promise<void> {
    const connected = new Map(
      licenseKeys.flatMap((licenseKey) => {
        const agent = this.hub.agentFor(licenseKey);
        return agent ? [[licenseKey, agent.platform] as const] : [];
      }),
    );
    await this.#offer(connected).catch((error: unknown) =>
      this.log.warn({ err: error, branches: connected.size }, 'rollout not offered; each agent is offered it at its next hello'),
    );
  }

  /**
   * Sends each agent (license key → its platform) the upgrade its running rollout holds for it. A
   * branch whose platform the release is not published for fails at once, with the reason.
   */
  async #offer(agents: ReadonlyMap<string, string | null>): Promise<void> {
    const targets = await this.store.rollouts.activeFor([...agents.keys()]);
    const releases = new Map<string, Promise<StoredRelease | undefined>>();
    const unreachable = new Map<string, { rolloutId: string; reason: string; licenseKeys: string[] }>();
    for (const [licenseKey, target] of targets) {
      const platform = agents.get(licenseKey) ?? null;
      const releasePlatform = platformOf(platform ?? '');
      const found = `${target.version} ${releasePlatform}`;
      if (releasePlatform && !releases.has(found)) releases.set(found, this.store.releases.get(target.version, releasePlatform));
      const release = releasePlatform && (await releases.get(found));
      if (!release) {
        const reason = `release ${target.version} is not published for ${platform ?? 'an agent that does not name its platform'}`;
        const failure = `${target.rolloutId} ${reason}`;
        if (!unreachable.has(failure)) unreachable.set(failure, { rolloutId: target.rolloutId, reason, licenseKeys: [] });
        unreachable.get(failure)!.licenseKeys.push(licenseKey);
        continue;
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
    for (const { rolloutId, reason, licenseKeys } of unreachable.values()) await this.store.rollouts.progress(rolloutId, licenseKeys, 'failed', reason);
  }

  /**
   * A branch's steps, and its offer at a hello, are recorded in the order they came: each in a
   * transaction of its own, two started at once (`downloading` then, a moment later,
   * `installing`) could commit the other way round and leave the branch shown downloading while
   * it installs. The store being down delays a rollout; it never breaks the connection that
   * carried it.
   */
  #inTurn(licenseKey: string, work: () => Promise<void>): Promise<void> {
    return this.#turns.run(licenseKey, () => work().catch((error: unknown) => this.log.warn({ err: error, licenseKey }, 'rollout step not recorded')));
  }
}
