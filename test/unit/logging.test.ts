import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.js';

describe('logs', () => {
  it('never carry tokens, passwords, API keys or database URLs', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ level: 'info' }, sink);
    log.info(
      { token: 'agt_secret1', config: { token: 'agt_secret2', database: { url: 'postgres://u:pw3@h/db', authentication: { password: 'pw4' } } } },
      'start',
    );
    log.info({ req: { headers: { 'x-api-key': 'key_secret5', authorization: 'Bearer agt_secret6' } } }, 'request');
    const text = lines.join('');
    expect(lines).toHaveLength(2);
    for (const secret of ['agt_secret1', 'agt_secret2', 'pw3', 'pw4', 'key_secret5', 'agt_secret6']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});
