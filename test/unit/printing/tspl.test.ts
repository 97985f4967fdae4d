import { describe, expect, it } from 'vitest';
import { decodeTspl, tsplText } from '../../../src/printing/tspl-decode.js';
import { FONT_CELL_203DPI, TsplBuilder, renderLabels, renderTestLabel, type TsplFont } from '../../../src/printing/tspl.js';
import { TIME_ZONE, labelTicket, testTicket } from './fixtures.js';
import { expectGolden } from './golden.js';

function commandLines(bytes: Buffer): string[] {
  return bytes.toString('latin1').split('\r\n').slice(0, -1);
}

describe('TSPL labels', () => {
  it('matches the golden label job', () => {
    expectGolden('labels-50x25mm', renderLabels(labelTicket, { timeZone: TIME_ZONE }));
  });

  it('matches the golden test label', () => {
    expectGolden('test-label-50x25mm', renderTestLabel(testTicket, { timeZone: TIME_ZONE }));
  });

  it('sets the label up from the defaults: 50×25 mm, gap 2, density 8, speed 4', () => {
    const lines = commandLines(renderLabels(labelTicket));
    expect(lines.slice(0, 6)).toEqual(['SIZE 50 mm,25 mm', 'GAP 2 mm,0 mm', 'DENSITY 8', 'SPEED 4', 'DIRECTION 1', 'CODEPAGE 850']);
  });

  it("uses the printer's label fields", () => {
    const bytes = renderLabels(labelTicket, {
      labelWidthMm: 60,
      labelHeightMm: 40,
      labelGapMm: 3,
      labelDpi: 300,
      labelDensity: 12,
      labelSpeed: 2,
    });
    expect(commandLines(bytes).slice(0, 4)).toEqual(['SIZE 60 mm,40 mm', 'GAP 3 mm,0 mm', 'DENSITY 12', 'SPEED 2']);
    // 2 mm margin at 300 dpi is 24 dots.
    expect(commandLines(bytes).find((l) => l.startsWith('TEXT'))).toMatch(/^TEXT 24,24,/);
  });

  it('terminates every command with CRLF', () => {
    const text = renderLabels(labelTicket).toString('latin1');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
  });

  it('prints one label per unit, numbered across the order', () => {
    const bytes = renderLabels(labelTicket, { timeZone: TIME_ZONE });
    const lines = commandLines(bytes);
    expect(lines.filter((l) => l === 'CLS')).toHaveLength(4);
    expect(lines.filter((l) => l === 'PRINT 1,1')).toHaveLength(4);
    const labels = decodeTspl(bytes).labels.map((label) => label.map((t) => t.text));
    expect(labels).toHaveLength(4);
    expect(labels[0]?.[0]).toMatch(/^#B-77 14:07 +1\/4$/);
    expect(labels[3]?.[0]).toMatch(/^#B-77 14:07 +4\/4$/);
    expect(labels.slice(0, 3).every((l) => l.includes('Café con leche'))).toBe(true);
    expect(labels[3]).toContain('Piña colada');
  });

  it('writes accented text as CP858 bytes', () => {
    const bytes = renderLabels(labelTicket);
    expect(bytes.includes(Buffer.from([0x50, 0x69, 0xa4, 0x61]))).toBe(true); // "Piña"
    expect(bytes.includes(Buffer.from([0xa8, 0x53, 0x69, 0x6e, 0x20, 0x61, 0x7a, 0xa3]))).toBe(true); // "¿Sin azú"
    const text = tsplText(decodeTspl(bytes));
    expect(text).toContain('* ¿Sin azúcar?');
  });

  it('escapes double quotes inside TEXT', () => {
    const bytes = renderLabels(labelTicket);
    expect(bytes.toString('latin1')).toContain('"+ Leche de \\["]almendra\\["]"');
    expect(tsplText(decodeTspl(bytes))).toContain('+ Leche de "almendra"');
  });

  it('keeps every TEXT inside the label and ends a full label with "..."', () => {
    const crowded = {
      ...labelTicket,
      lines: [
        {
          cantidad: 1,
          descripcion: 'Hamburguesa doble con queso y tocino extra grande',
          modificadores: ['Sin cebolla', 'Sin pepinillos', 'Pan integral', 'Papas a la francesa'],
          comentario: 'Término medio',
        },
      ],
    };
    const decoded = decodeTspl(renderLabels(crowded));
    const label = decoded.labels[0] ?? [];
    const widthDots = decoded.widthMm * 8;
    const heightDots = decoded.heightMm * 8;
    for (const text of label) {
      const cell = FONT_CELL_203DPI[text.font as TsplFont];
      expect(text.x + text.text.length * cell.width, text.text).toBeLessThanOrEqual(widthDots);
      expect(text.y + cell.height, text.text).toBeLessThanOrEqual(heightDots);
    }
    expect(label.at(-1)?.text.endsWith('...')).toBe(true);
    expect(label.map((t) => t.text)).not.toContain('* Término medio');
  });

  it('builds a test label with the title, message and printer name', () => {
    const text = tsplText(decodeTspl(renderTestLabel(testTicket, { timeZone: TIME_ZONE })));
    expect(text.split('\n')).toEqual(['PRUEBA', 'IMPRESORA OK - IGNORAR', 'Cocina caliente', '05/03/2025 14:07']);
  });

  it('builder emits TEXT exactly as TSPL expects', () => {
    const bytes = new TsplBuilder().cls().text(10, 20, '3', 90, 2, 1, 'Señal "A"').print(2, 1).toBuffer();
    expect(
      bytes.equals(
        Buffer.concat([
          Buffer.from('CLS\r\nTEXT 10,20,"3",90,2,1,"Se', 'latin1'),
          Buffer.from([0xa4]),
          Buffer.from('al \\["]A\\["]"\r\nPRINT 2,1\r\n', 'latin1'),
        ]),
      ),
    ).toBe(true);
  });
});
