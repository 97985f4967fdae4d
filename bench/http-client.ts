/** A minimal keep-alive HTTP client, so the benchmark measures the server rather than fetch(). */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  agent?: http.Agent;
}

export function request(url: string, opts: RequestOptions = {}): Promise<{ status: number; body: string }> {
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

/** The answer's body, when its status is the one expected: a benchmark timing failures would time nothing useful. */
export async function requestOk(url: string, opts: RequestOptions = {}, expected = 200): Promise<string> {
  const res = await request(url, opts);
  if (res.status !== expected) throw new Error(`${opts.method ?? 'GET'} ${url} answered ${res.status}: ${res.body}`);
  return res.body;
}
