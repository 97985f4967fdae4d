/**
 * One connection per agent across the cluster: an instance that accepts an agent says so on the
 * branch's subject, and the instance that held it before closes its older connection.
 */
import type { NatsConnection, Subscription } from 'nats';
import type { AgentHub } from '../hub.js';

const ANNOUNCEMENTS = 'branch-agent.agents';

interface Announcement {
  instanceId: string;
  /** The agent's hello, on the agent's own clock: the gateways' clocks may disagree by minutes. */
  helloSentAt: string;
}

export class AgentTakeover {
  readonly #subscription: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly instanceId: string,
    hub: AgentHub,
    /** Any instance accepted the branch's agent, this one included. */
    onMoved: (licenseKey: string) => void,
  ) {
    this.#subscription = nc.subscribe(`${ANNOUNCEMENTS}.*`, {
      callback: (error, msg) => {
        if (error) return;
        const licenseKey = msg.subject.slice(ANNOUNCEMENTS.length + 1);
        const announcement = msg.json<Announcement>();
        onMoved(licenseKey);
        // Compared by the agent's clock, not by order of arrival: an announcement that arrives
        // late must not close a connection made after it.
        if (announcement.instanceId !== this.instanceId) hub.supersede(licenseKey, new Date(announcement.helloSentAt));
      },
    });
  }

  announce(licenseKey: string, helloSentAt: Date): void {
    this.nc.publish(
      `${ANNOUNCEMENTS}.${licenseKey}`,
      JSON.stringify({ instanceId: this.instanceId, helloSentAt: helloSentAt.toISOString() } satisfies Announcement),
    );
  }

  stop(): void {
    this.#subscription.unsubscribe();
  }
}
