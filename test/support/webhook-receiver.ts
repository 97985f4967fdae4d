/**
 * A real HTTP server receiving webhooks on loopback: it keeps every request (headers and raw
 * body) and answers each with the next status of a script (200 once the script is used up),
 * after the next delay of another (at once once that is used up).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  json: any;
  at: number;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Statuses to answer with, one per request, before 200s. */
  script: number[] = [];
  /** How long to wait before answering, one per request, before answering at once. */
  delaysMs: number[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        receiver.received.push({ headers: req.headers, body, json: JSON.parse(body), at: Date.now() });
        res.statusCode = receiver.script.shift() ?? 200;
        setTimeout(() => res.end(), receiver.delaysMs.shift() ?? 0);
      });
    });
    return receiver;
  }

  /** The events received of a type, first delivery of each id only. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  events(type?: string): any[] {
    const seen = new Set<string>();
    return this.received
      .map((r) => r.json)
      .filter((e: { id: string; type: string }) => (type === undefined || e.type === type) && !seen.has(e.id) && seen.add(e.id));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
