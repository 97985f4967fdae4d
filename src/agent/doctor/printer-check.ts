/** The doctor's printer check: a TCP connect to each printer named on the command line, nothing sent. */
import { createConnection } from 'node:net';
import type { DoctorItem, PrinterTarget } from './report.js';

/** `host`, `host:port` or `[v6]:port`; the port defaults to 9100 (raw printing). */
export function parsePrinterOption(value: string): PrinterTarget {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(value.trim());
  const port = Number(m?.[3] ?? 9100);
  if (!m || port < 1 || port > 65535) throw new Error(`not a printer address: "${value}" (expected host or host:port)`);
  return { host: (m[1] ?? m[2])!, port };
}

export async function checkPrinter(target: PrinterTarget, timeoutMs: number): Promise<DoctorItem> {
  const label = `${target.name ? `${target.name} ` : ''}${target.host}:${target.port}`;
  const base = { id: `printer:${target.host}:${target.port}`, title: `Printer ${label}`, essential: false } as const;
  return new Promise<DoctorItem>((resolve) => {
    const started = Date.now();
    const socket = createConnection({ host: target.host, port: target.port });
    socket.setTimeout(timeoutMs);
    const done = (item: DoctorItem) => {
      socket.destroy();
      resolve(item);
    };
    socket.once('connect', () => done({ ...base, status: 'pass', message: `accepts connections (${Date.now() - started} ms)` }));
    socket.once('timeout', () =>
      done({
        ...base,
        status: 'fail',
        cause: 'timeout',
        message: `no answer within ${timeoutMs / 1000} s`,
        advice: 'Check that the printer is on and cabled, and its IP address (print its self-test page).',
      }),
    );
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done({
        ...base,
        status: 'fail',
        cause: error.code === 'ECONNREFUSED' ? 'refused' : 'unreachable',
        message: `${error.code ?? error.message}`,
        advice:
          error.code === 'ECONNREFUSED'
            ? `The address answers but nothing listens on port ${target.port}: check the port (9100 for raw printing) or whether another device has this IP.`
            : "Check the printer's IP address and that this machine is on the same network.",
      }),
    );
  });
}
