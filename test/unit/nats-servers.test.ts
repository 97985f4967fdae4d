/** NATS_URL as the NATS tools take it, turned into nats.js options with the credentials lifted out. */
import { expect, it } from 'vitest';
import { natsConnectOptions } from '../../src/gateway/cluster/nats-servers.js';

it('lifts a token or a user and password out of the URLs', () => {
  expect(natsConnectOptions('nats://10.0.0.5:4222')).toEqual({ servers: ['nats://10.0.0.5:4222'] });
  expect(natsConnectOptions('nats://s3cr%2Ft@10.0.0.5:4222, nats://s3cr%2Ft@10.0.0.6:4222')).toEqual({
    servers: ['nats://10.0.0.5:4222', 'nats://10.0.0.6:4222'],
    token: 's3cr/t',
  });
  expect(natsConnectOptions('tls://gw:p%40ss@nats.internal:4222')).toEqual({ servers: ['tls://nats.internal:4222'], user: 'gw', pass: 'p@ss' });
  expect(natsConnectOptions('10.0.0.5:4222')).toEqual({ servers: ['nats://10.0.0.5:4222'] });
  expect(natsConnectOptions('nats://a%0Ab:c%0Ad@h1:4222')).toEqual({ servers: ['nats://h1:4222'], user: 'a\nb', pass: 'c\nd' });
});

it('refuses servers that name different credentials', () => {
  expect(() => natsConnectOptions('nats://a@h1:4222,nats://b@h2:4222')).toThrow(/different credentials/);
});
