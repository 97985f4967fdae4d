/**
 * One look over every connection, once a second from one timer (rather than a timer per
 * connection): hellos overdue are closed, agents silent past `deadAfterMs` are dropped, and each
 * other agent is pinged when its own interval falls due, so ten thousand pings do not leave in
 * one burst.
 */
import { CLOSE } from '../../protocol/messages.js';
import type { ConnectedAgent, Greeting } from './connected-agent.js';

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
      agent.pingSentAt = now;
      agent.ws.ping();
    }
  }
}
