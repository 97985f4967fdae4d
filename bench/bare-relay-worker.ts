/**
 * The bare relay's other process (bench/bare-relay.ts): answers each frame with the product page
 * the roundtrip benchmark reads, run by the same operation function on the same database.
 */
import pino from 'pino';
import WebSocket from 'ws';
import { posDatabase } from '../src/config/schema.js';
import { listProducts } from '../src/pos/operations/catalogs.js';
import { openPos } from '../src/pos/runtime.js';

const [relayUrl, posUrl] = process.argv.slice(2) as [string, string];
const log = pino({ level: 'silent' });
const pos = await openPos(posDatabase({ dialect: 'postgres', url: posUrl }), log);
const input = listProducts.def.input.parse({ pageSize: 50 });
const ws = new WebSocket(relayUrl);
ws.on('message', (data) => {
  const { id } = JSON.parse((data as Buffer).toString()) as { id: number };
  listProducts.run({ db: pos.db, dialect: pos.dialect, schema: pos.schema, log, now: new Date() }, input).then(
    (result) => ws.send(JSON.stringify({ id, result })),
    // Whatever NODE_OPTIONS says of unhandled rejections: the relay fails the waiting requests when this exits.
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
process.once('SIGTERM', () => {
  ws.close();
  void pos.close().then(() => process.exit(0));
});
