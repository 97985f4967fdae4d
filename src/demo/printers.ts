/**
 * The demo's printers: one virtual network printer per branch on loopback, registered in the
 * gateway store for the branch's owner (so POST /print/{licenseKey}/prueba works at once), and
 * what each one received served on the gateway's own port, demo only:
 *
 *   GET /demo/printers                 JSON: every demo printer with its URLs and job count
 *   GET /demo/printers/{id}/last.txt   the last job's decoded text (accents as printed)
 *   GET /demo/printers/{id}/last.png   the last job as a picture of the paper (or labels)
 *
 * No API key is needed for these (a browser can open them); they show demo data only. The stack's
 * gateway is already listening when the demo printers start, and Fastify takes no routes after
 * that, so these paths are answered in front of it on its HTTP server, and everything else goes
 * on to Fastify untouched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderPreviewPng } from '../printing/preview.js';
import { startVirtualPrinter, type VirtualPrinter } from '../printing/virtual-printer.js';
import { DEFAULT_PRINTER_PORTS, type PrinterRule } from '../protocol/printer-rule.js';
import { printerCreate } from '../protocol/printers.js';
import type { Stack } from './stack.js';

export interface DemoPrinter {
  licenseKey: string;
  /** The printer's id in the registry (what POST /print/{licenseKey}/prueba takes). */
  id: string;
  displayName: string;
  widthMm: number;
  printer: VirtualPrinter;
  textUrl: string;
  pngUrl: string;
}

export interface DemoPrinters {
  printers: DemoPrinter[];
  /** Lines for the demo's banner: each branch's printer and where to see what it printed. */
  describe(): string[];
  /** Stops serving the preview paths and closes the virtual printers. */
  stop(): Promise<void>;
}

export const DEMO_PRINTERS_PATH = '/demo/printers';

/**
 * Where the demo's gateway and agents let printers be: its virtual printers listen on loopback,
 * on whatever unprivileged port is free, besides the usual ports (DEFAULT_PRINTER_RULE).
 */
export const DEMO_PRINTER_RULE: PrinterRule = { ports: [...DEFAULT_PRINTER_PORTS, [1024, 65535]], allowLoopback: true };

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers the demo paths; false for any other request. */
function demoHandler(printers: DemoPrinter[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://demo').pathname.replace(/\/$/, '');
    if (path !== DEMO_PRINTERS_PATH && !path.startsWith(`${DEMO_PRINTERS_PATH}/`)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'GET only\n');
      return true;
    }
    if (path === DEMO_PRINTERS_PATH) {
      const list = printers.map(({ licenseKey, id, displayName, widthMm, printer, textUrl, pngUrl }) => ({
        licenseKey,
        id,
        displayName,
        widthMm,
        address: `${printer.host}:${printer.port}`,
        jobsReceived: printer.jobs.length,
        textUrl,
        pngUrl,
      }));
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ data: list }, null, 2));
      return true;
    }
    const match = /^\/demo\/printers\/([^/]+)\/last\.(txt|png)$/.exec(path);
    const demo = match && printers.find((p) => p.id === match[1]);
    if (!match || !demo) {
      send(res, 404, 'text/plain; charset=utf-8', 'No such demo printer. GET /demo/printers lists them.\n');
      return true;
    }
    const job = demo.printer.jobs.at(-1);
    if (!job) {
      send(res, 404, 'text/plain; charset=utf-8', `${demo.displayName} has received nothing yet.\n`);
      return true;
    }
    if (match[2] === 'png') send(res, 200, 'image/png', renderPreviewPng(job));
    else send(res, 200, 'text/plain; charset=utf-8', `${job.text}\n`);
    return true;
  };
}

/** Puts `handle` in front of the server's request listeners (Fastify's), until the returned undo. */
function serveInFront(stack: Stack, handle: (req: IncomingMessage, res: ServerResponse) => boolean): () => void {
  const server = stack.gateway.app.server;
  const behind = server.listeners('request') as RequestListener[];
  const front: RequestListener = (req, res) => {
    if (handle(req, res)) return;
    for (const listener of behind) listener.call(server, req, res);
  };
  server.removeAllListeners('request');
  server.on('request', front);
  return () => {
    if (!server.listeners('request').includes(front)) return;
    server.removeListener('request', front);
    for (const listener of behind) server.on('request', listener);
  };
}

/**
 * Starts a virtual printer per branch of the stack (those whose agents it runs, unless told
 * which), registers it for the branch's owner and serves its previews on the gateway.
 */
export async function startDemoPrinters(stack: Stack, licenseKeys: readonly string[] = [...stack.agents.keys()]): Promise<DemoPrinters> {
  const printers: DemoPrinter[] = [];
  const started: VirtualPrinter[] = [];
  try {
    for (const [i, licenseKey] of licenseKeys.entries()) {
      const owner = await stack.store.branchOwner(licenseKey);
      if (owner === null) throw new Error(`demo printers: branch ${licenseKey} is not registered`);
      const printer = await startVirtualPrinter({ host: '127.0.0.1' });
      started.push(printer);
      const widthMm = i % 2 === 0 ? 80 : 58;
      const displayName = 'Cocina virtual';
      const fields = {
        licenseKey,
        printerIp: printer.host,
        printerPort: printer.port,
        displayName,
        kind: 'thermal',
        widthMm,
        source: 'demo',
        sourceId: `virtual-${licenseKey}`,
      };
      // A demo on a kept data directory finds its printer from last time: it gets the new port.
      const previous = (await stack.store.printers.list(owner, licenseKey)).find((p) => p.source === 'demo' && p.sourceId === fields.sourceId);
      const { id } = previous
        ? (await stack.store.printers.update(owner, previous.id, () => ({ printerIp: printer.host, printerPort: printer.port, widthMm })))!
        : await stack.store.printers.create(owner, printerCreate.parse(fields));
      const base = `${stack.url}${DEMO_PRINTERS_PATH}/${id}`;
      printers.push({ licenseKey, id, displayName, widthMm, printer, textUrl: `${base}/last.txt`, pngUrl: `${base}/last.png` });
    }
  } catch (error) {
    await Promise.all(started.map((p) => p.close()));
    throw error;
  }
  const undo = serveInFront(stack, demoHandler(printers));

  return {
    printers,
    describe: () => [
      `Printers:  ${stack.url}${DEMO_PRINTERS_PATH}`,
      ...printers.flatMap((p) => [
        `  ${p.licenseKey}  printerId ${p.id}  (${p.displayName}, ${p.widthMm} mm, at ${p.printer.host}:${p.printer.port})`,
        `    last ticket: ${p.textUrl}`,
        `                 ${p.pngUrl}`,
      ]),
    ],
    async stop() {
      undo();
      await Promise.all(printers.map((p) => p.printer.close()));
    },
  };
}
