/**
 * `npm start`: everything on loopback in one process. An embedded PostgreSQL holds the gateway
 * store and three branch POS databases with demo data; the gateway listens on HOST:PORT
 * (default 127.0.0.1:8080) and one agent per branch connects to it. Behind a proxy, TRUST_PROXY
 * names it (addresses or CIDRs, comma-separated), as for a gateway. Ctrl-C stops it all.
 */
import pino, { type Logger } from 'pino';
import { startEmbeddedPostgres, type EmbeddedCluster } from '../embedded-postgres/cluster.js';
import { leaveStopSignalsToCaller } from '../embedded-postgres/exit-hooks.js';
import { createPosDatabase } from './pos-database.js';
import { DEMO_PRINTER_RULE, startDemoPrinters, type DemoPrinters } from './printers.js';
import { startStack, waitForAgents, type Stack } from './stack.js';
import { parseConfig } from '../config/load.js';
import { posDatabase } from '../config/schema.js';

export const DEMO_BRANCHES = [
  { licenseKey: 'DEMO000000000001', name: 'Sucursal Centro', owner: 'demo', forceCancelReason: false, forceDiscountType: false },
  { licenseKey: 'DEMO000000000002', name: 'Sucursal Norte', owner: 'demo', forceCancelReason: true, forceDiscountType: true },
  { licenseKey: 'DEMO000000000003', name: 'Sucursal Playa', owner: 'demo2', forceCancelReason: false, forceDiscountType: false },
];

export const DEMO_KEYS = [
  { key: 'demo-key', owner: 'demo', scopes: ['read', 'write', 'fleet'] as const },
  { key: 'demo-key-2', owner: 'demo2', scopes: ['read', 'write', 'fleet'] as const },
];

export interface Demo {
  stack: Stack;
  printers: DemoPrinters;
  cluster: EmbeddedCluster;
  stop(): Promise<void>;
}

export async function startDemo(opts: { host: string; port: number; log: Logger; trustProxy?: readonly string[] }): Promise<Demo> {
  const cluster = await startEmbeddedPostgres({ ownProcessGroup: true });
  try {
    await cluster.admin('CREATE DATABASE gateway');
    const branches = await Promise.all(
      DEMO_BRANCHES.map(async (b) => ({
        ...b,
        database: posDatabase({
          dialect: 'postgres',
          url: await createPosDatabase(cluster, `pos_${b.licenseKey.toLowerCase()}`, {
            name: b.name,
            forceCancelReason: b.forceCancelReason,
            forceDiscountType: b.forceDiscountType,
          }),
        }),
      })),
    );
    const stack = await startStack({
      gatewayStoreUrl: cluster.url('gateway'),
      branches,
      apiKeys: DEMO_KEYS,
      host: opts.host,
      port: opts.port,
      log: opts.log,
      // Webhook receivers of a demo run on the same machine, over plain http.
      gateway: { webhooks: { allowHttp: true, allowLoopback: true }, trustProxy: opts.trustProxy, printers: DEMO_PRINTER_RULE },
      agent: { printers: DEMO_PRINTER_RULE },
    });
    await waitForAgents(
      stack,
      DEMO_BRANCHES.map((b) => b.licenseKey),
    );
    const printers = await startDemoPrinters(stack);
    return {
      stack,
      printers,
      cluster,
      async stop() {
        await printers.stop();
        await stack.stop();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

export async function runDemo(): Promise<void> {
  // The gateway's options as `branch-agent gateway` reads them (HOST, PORT, LOG_LEVEL, TRUST_PROXY), quieter by default.
  const { host, port, trustProxy, log: logging } = parseConfig({ gateway: { log: { level: 'warn' } } }).gateway!;
  const log = pino({ level: logging.level });
  console.log('Starting the demo: embedded PostgreSQL, gateway and three branch agents…');
  const demo = await startDemo({ host, port, log, trustProxy });
  const base = demo.stack.url;
  console.log(`
Gateway:   ${base}
API docs:  ${base}/docs   (OpenAPI: ${base}/openapi.json)
Console:   ${base}/consola   (sign in with demo-key)
API keys:  demo-key   → branches DEMO000000000001, DEMO000000000002
           demo-key-2 → branch   DEMO000000000003

Try:
  curl -s -H 'X-Api-Key: demo-key' '${base}/productos/DEMO000000000001?pageSize=5'
  curl -s -H 'X-Api-Key: demo-key' '${base}/sucursales'     (the key's branches and their agents)

Watch the events of a branch (waits up to 30 s for the next; pass the answer's nextCursor as after=):
  curl -s -H 'X-Api-Key: demo-key' '${base}/eventos/DEMO000000000001?wait=30'
then change something through the API, or at the POS itself, as a terminal would:
  psql '${demo.cluster.url('pos_demo000000000001')}' -c "update productosdetalle set precio = precio + 1 where idproducto = '3001'"
Webhooks: POST ${base}/webhooks {"url": "http://127.0.0.1:9999/hook", "eventos": ["orden.abierta", "producto.actualizado"]}

Virtual printers (what they receive, as text and PNG):
${demo.printers.describe().join('\n')}

Press Ctrl-C to stop.`);

  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    demo.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  leaveStopSignalsToCaller();
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
