/**
 * One look over every connection, once a second from one timer (rather than a timer per
 * connection): hellos overdue are closed, agents silent past `deadAfterMs` are dropped, and each
 * other agent is pinged when its own interval falls due, so ten thousand pings do not leave in
 * one burst.
 *
 * An agent that pinged the gateway within the last interval and a half (agents ping every 15 s,
 * as the gateway does) has had its pong: that exchange already shows each end the other is
 * there, and a ping of the gateway's would be a second one, a frame each way per agent, ten
 * thousand agents every 15 s. Its ping is then skipped, except every ROUND_TRIP_EVERY intervals
 * for the round trip the clock offset is corrected by (agent-status.ts). An agent whose pings
 * stop is pinged again at its next interval, and dropped as before once silent past
 * `deadAfterMs`.
 */
import { CLOSE } from '../../protocol/messages.js';
import type { ConnectedAgent, Greeting } from './connected-agent.js';

const ROUND_TRIP_EVERY = 4;

export function sweepConnections(
  greetings: Iterable<Greeting>,
  agents: Iterable<ConnectedAgent>,
  timing: { pingIntervalMs: number; deadAfterMs: number },
  now = Date.now(),
): void {
  for (const greeting of greetings) if (now >= greeting.helloDeadline) greeting.ws.close(CLOSE.badHello, 'no hello');
  for (const agent of agents) {
    if (now - agent.lastSeen > timing.deadAfterMs) {
      agent.ws.terminate();
    } else if (now >= agent.nextPingAt) {
      agent.nextPingAt = now + timing.pingIntervalMs;
      const pingedUs = now - agent.peerPingAt < timing.pingIntervalMs * 1.5;
      if (pingedUs && now - agent.pingSentAt < timing.pingIntervalMs * ROUND_TRIP_EVERY) continue;
      agent.pingSentAt = now;
      agent.ws.ping();
    }
  }
}
