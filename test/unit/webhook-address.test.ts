/** Where webhooks may point: the address classes, literal URLs and the lookup of each connection. */
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, classifyAddress, guardedLookup, refusal, urlRefusal, type AddressPolicy } from '../../src/gateway/webhook-address.js';

/** The policy the gateway keeps when the config relaxes nothing. */
const STRICT_ADDRESS_POLICY: AddressPolicy = { allowHttp: false, allowLoopback: false, allowPrivate: false };

const demo = { allowHttp: true, allowLoopback: true, allowPrivate: false };

describe('address classes', () => {
  it.each([
    ['8.8.8.8', undefined],
    ['2606:4700::1111', undefined],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'never'],
    ['fe80::1', 'never'],
    ['0.0.0.0', 'never'],
    ['::', 'never'],
    ['224.0.0.1', 'never'],
    ['255.255.255.255', 'never'],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ['::ffff:169.254.169.254', 'never'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    // Other prefixes that carry one, refused whole.
    ['::a9fe:a9fe', 'never'],
    ['::ffff:0:a9fe:a9fe', 'never'],
    ['2002:a9fe:a9fe::', 'never'],
    ['64:ff9b:1::a9fe:a9fe', 'never'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('the config may allow loopback and private networks, never link-local', () => {
    const lenient = { allowHttp: true, allowLoopback: true, allowPrivate: true };
    expect(refusal('127.0.0.1', lenient)).toBeUndefined();
    expect(refusal('10.0.0.1', lenient)).toBeUndefined();
    expect(refusal('169.254.169.254', lenient)).toMatch(/link-local/);
    expect(refusal('127.0.0.1', STRICT_ADDRESS_POLICY)).toMatch(/loopback/);
  });
});

describe('URLs', () => {
  it('https only unless http is allowed; no credentials; literal addresses checked', () => {
    expect(urlRefusal(new URL('http://example.com/'), STRICT_ADDRESS_POLICY)).toMatch(/https/);
    expect(urlRefusal(new URL('https://example.com/'), STRICT_ADDRESS_POLICY)).toBeUndefined();
    expect(urlRefusal(new URL('https://u:p@example.com/'), STRICT_ADDRESS_POLICY)).toMatch(/credentials/);
    expect(urlRefusal(new URL('https://[::1]/'), STRICT_ADDRESS_POLICY)).toMatch(/loopback/);
    expect(urlRefusal(new URL('http://127.0.0.1:9/'), demo)).toBeUndefined();
  });

  it('a name that resolves to a refused address is refused, at creation and in the connection lookup', async () => {
    expect(await checkWebhookUrl(new URL('https://localhost/hook'), STRICT_ADDRESS_POLICY)).toMatch(/loopback/);
    expect(await checkWebhookUrl(new URL('http://localhost/hook'), demo)).toBeUndefined();
    const outcome = await new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(STRICT_ADDRESS_POLICY)('localhost', { all: false }, (error, address) => resolve({ error, address })),
    );
    expect(outcome.error?.message).toMatch(/loopback/);
    expect(await checkWebhookUrl(new URL('https://no-such-host.invalid/'), STRICT_ADDRESS_POLICY)).toMatch(/does not resolve/);
  });
});
