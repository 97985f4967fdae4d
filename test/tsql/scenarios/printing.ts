/**
 * Print jobs run no POS SQL of their own, only the runner's idempotency record; these scenarios
 * keep that under the T-SQL check too. Each prints for real: its setup starts a virtual printer
 * on loopback (closed again once the job arrived) and hands its target in, as the gateway does.
 */
import { LABEL_DEFAULTS, type PrinterTargetParams } from '../../../src/protocol/printers.js';
import { startVirtualPrinter } from '../../../src/printing/virtual-printer.js';
import type { Scenario } from './index.js';

export const PRINTER_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

/** A virtual printer for one job; the target goes into the job's params (not into the saved header). */
export async function printerFor(kind: 'thermal' | 'label'): Promise<{ printers: Record<string, PrinterTargetParams> }> {
  const printer = await startVirtualPrinter({ host: '127.0.0.1' });
  void printer
    .waitForJob(30_000)
    .catch(() => undefined)
    .finally(() => printer.close());
  const target: PrinterTargetParams = {
    printerIp: printer.host,
    printerPort: printer.port,
    displayName: 'Cocina',
    kind,
    widthMm: kind === 'thermal' ? 80 : null,
    ...LABEL_DEFAULTS,
  };
  return { printers: { [PRINTER_ID]: target } };
}

export const printingScenarios: Scenario[] = [
  {
    op: 'print.order',
    input: {
      orderFolio: 'A-1',
      businessName: 'Sucursal Centro',
      grupos: [{ printerId: PRINTER_ID, titulo: 'COCINA', productos: [{ cantidad: 2, descripcion: 'Café con leche', modificadores: ['Deslactosada'] }] }],
    },
    setup: () => printerFor('thermal'),
  },
  {
    op: 'print.test',
    input: { printerId: PRINTER_ID },
    setup: () => printerFor('label'),
  },
];
