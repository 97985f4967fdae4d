/** What other parts of the gateway plug into the hub, to hear of its agents and reach them. */
import type { UpgradeProgressMessage } from '../../protocol/messages.js';
import type { DispatchOutcome, JobRequest } from './jobs.js';

export interface UpgradeListener {
  connected(licenseKey: string, platform: string | null): void;
  progress(licenseKey: string, report: UpgradeProgressMessage): void;
}

/**
 * What a cluster (../cluster/) adds to a hub: it hears which agents connect here and leave, and
 * carries jobs for branches whose agent is connected to another instance.
 */
export interface HubCluster {
  /** `helloSentAt`: on the agent's clock (ConnectedAgent). */
  agentConnected(licenseKey: string, helloSentAt: Date): void;
  /** Also when a newer connection elsewhere replaced the agent's here, before its socket closed. */
  agentLeft(licenseKey: string): void;
  /** Rejects with AgentOfflineError when no instance holds the branch, AgentTimeoutError past `timeoutMs`. */
  dispatchElsewhere(job: JobRequest): Promise<DispatchOutcome>;
}
