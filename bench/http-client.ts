/** A minimal keep-alive HTTP client, so the benchmark measures the server rather than fetch(). */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; agent?: http.Agent } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent: opts.agent ?? agent,
        headers: { ...opts.headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
