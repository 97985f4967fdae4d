/** gateway.trustProxy: the proxies whose X-Forwarded-For is believed, none unless listed. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';

const trustProxy = (gateway: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => parseConfig({ gateway }, env).gateway!.trustProxy;

describe('gateway.trustProxy', () => {
  it('trusts no proxy unless told, and takes addresses and CIDRs from the file or TRUST_PROXY', () => {
    expect(trustProxy({})).toEqual([]);
    expect(trustProxy({ trustProxy: ['10.0.0.5', 'fd00::/8'] })).toEqual(['10.0.0.5', 'fd00::/8']);
    expect(trustProxy({ trustProxy: ['10.0.0.5'] }, { TRUST_PROXY: '127.0.0.1, 10.1.0.0/16' })).toEqual(['127.0.0.1', '10.1.0.0/16']);
  });

  it('refuses true (any proxy) and entries that are not addresses, saying why', () => {
    expect(() => trustProxy({ trustProxy: true })).toThrow(/gateway\.trustProxy: must be a list of the proxies' addresses or CIDRs.*choose its address/);
    for (const bad of ['proxy.example.com', '10.0.0.0/33', '10.0.0.5/8/1', '']) {
      expect(() => trustProxy({ trustProxy: [bad] }), bad).toThrow(/gateway\.trustProxy\.0: must be an IP address or CIDR/);
    }
  });
});
