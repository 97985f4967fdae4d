import { describe, expect, it } from 'vitest';
import { cp858PageFor } from '../../../src/printing/code-pages.js';
import { encodeCp858 } from '../../../src/printing/cp858.js';
import { decodeEscpos, escposText, type PrintedLine } from '../../../src/printing/escpos-decode.js';
import { columnsFor, CUT_COMMAND, renderKitchenTicket, renderTestTicket } from '../../../src/printing/escpos.js';
import { TIME_ZONE, kitchenTicket, reprintTicket, testTicket } from './fixtures.js';
import { expectGolden } from './golden.js';

const ESC = 0x1b;

function printedLines(bytes: Buffer): PrintedLine[] {
  return decodeEscpos(bytes).filter((item): item is PrintedLine => item.kind === 'line');
}

describe('ESC/POS kitchen ticket', () => {
  it('matches the golden 58 mm ticket', async () => {
    expectGolden('kitchen-58mm', renderKitchenTicket(kitchenTicket, { widthMm: 58, timeZone: TIME_ZONE }));
  });

  it('matches the golden 80 mm ticket', async () => {
    expectGolden('kitchen-80mm', renderKitchenTicket(kitchenTicket, { widthMm: 80, timeZone: TIME_ZONE }));
  });

  it('matches the golden reprint', async () => {
    expectGolden('kitchen-reprint-58mm', renderKitchenTicket(reprintTicket, { widthMm: 58, timeZone: TIME_ZONE }));
  });

  it('matches the golden test ticket', async () => {
    expectGolden('test-ticket-80mm', renderTestTicket(testTicket, { widthMm: 80, timeZone: TIME_ZONE }));
  });

  it('encodes á, ñ and € as CP858 bytes A0, A4 and D5', async () => {
    expect([...encodeCp858('á')]).toEqual([0xa0]);
    expect([...encodeCp858('ñ')]).toEqual([0xa4]);
    expect([...encodeCp858('€')]).toEqual([0xd5]);
    const bytes = renderKitchenTicket(kitchenTicket, { widthMm: 80, timeZone: TIME_ZONE });
    expect(bytes.includes(Buffer.from([0x50, 0x69, 0xa4, 0x61]))).toBe(true); // "Piña"
    expect(bytes.includes(Buffer.from([0x43, 0x61, 0x66, 0x82]))).toBe(true); // "Café"
    expect(bytes.includes(Buffer.from([0xd5, 0x20, 0x31, 0x32]))).toBe(true); // "€ 12"
    expect(bytes.includes(Buffer.from([0xa8, 0x53, 0x69, 0x6e]))).toBe(true); // "¿Sin"
    expect(bytes.includes(Buffer.from([0xad, 0x55, 0x72, 0x67]))).toBe(true); // "¡Urg"
  });

  it('reads back with accents intact', async () => {
    const text = escposText(decodeEscpos(renderKitchenTicket(kitchenTicket, { widthMm: 80, timeZone: TIME_ZONE })));
    const expectations = ['Café con leche', '¿Sin azúcar?', 'Jalapeño relleno de queso', '¡Urgente!', '€ 12 extra', 'Cafetería La Piña'];
    for (const expected of expectations) {
      expect(text).toContain(expected);
    }
    expect(text).toContain('Fecha: 05/03/2025 14:07');
    expect(text).toContain('Folio: A-1024');
  });

  it('takes the characters per line from the printable dots: 58 mm 32, 76 mm 44, 80 mm 48, 112 mm 69', () => {
    expect([48, 58, 76, 80, 112].map(columnsFor)).toEqual([25, 32, 44, 48, 69]);
  });

  it.each([48, 58, 76, 80, 112])('never prints past the %i mm column count', async (widthMm) => {
    const longWord = 'Supercalifragilisticoespialidoso'.repeat(3);
    const ticket = {
      ...reprintTicket,
      businessName: `${longWord} Restaurante`,
      lines: [...kitchenTicket.lines, { cantidad: 1.5, descripcion: longWord, modificadores: [longWord], comentario: `muy ${longWord}` }],
      orderNote: `nota\n${longWord}`,
    };
    const columns = columnsFor(widthMm);
    const lines = printedLines(renderKitchenTicket(ticket, { widthMm, timeZone: TIME_ZONE }));
    expect(lines.some((line) => line.text.length === columns)).toBe(true);
    for (const line of lines) {
      expect(line.text.length * (line.doubleWidth ? 2 : 1), line.text).toBeLessThanOrEqual(columns);
    }
  });

  it('selects the CP858 code page right after initialising', async () => {
    const generic = renderKitchenTicket(kitchenTicket, { widthMm: 58 });
    expect([...generic.subarray(0, 5)]).toEqual([ESC, 0x40, ESC, 0x74, 19]);
    const bematech = renderKitchenTicket(kitchenTicket, { widthMm: 58, model: 'MP-4200 TH' });
    expect([...bematech.subarray(0, 5)]).toEqual([ESC, 0x40, ESC, 0x74, cp858PageFor('MP-4200 TH')]);
    expect(cp858PageFor('MP-4200 TH')).toBe(5);
    expect(cp858PageFor('TM-T20')).toBe(19);
  });

  it('ends with the cut command', async () => {
    for (const bytes of [renderKitchenTicket(kitchenTicket, { widthMm: 58 }), renderTestTicket(testTicket, { widthMm: 80 })]) {
      expect(bytes.subarray(-CUT_COMMAND.length).equals(CUT_COMMAND)).toBe(true);
      expect(decodeEscpos(bytes).at(-1)).toEqual({ kind: 'cut' });
    }
  });

  it('prints REIMPRESION in double width only on reprints', async () => {
    const reprint = printedLines(renderKitchenTicket(reprintTicket, { widthMm: 58 }));
    const banner = reprint.find((line) => line.text === 'REIMPRESION');
    expect(banner).toMatchObject({ bold: true, doubleWidth: true, doubleHeight: true, align: 'center' });
    const original = printedLines(renderKitchenTicket(kitchenTicket, { widthMm: 58 }));
    expect(original.some((line) => line.text.includes('REIMPRESION'))).toBe(false);
  });

  it('prints the header bold and double height, modifiers and comments indented under their line', async () => {
    const lines = printedLines(renderKitchenTicket(kitchenTicket, { widthMm: 80, timeZone: TIME_ZONE }));
    expect(lines[0]).toMatchObject({ text: 'Cafetería La Piña', bold: true, doubleHeight: true, align: 'center' });
    const texts = lines.map((line) => line.text);
    const item = texts.indexOf(' 2 Café con leche');
    expect(item).toBeGreaterThan(0);
    expect(texts.slice(item + 1, item + 4)).toEqual(['   + Leche deslactosada', '   + Extra canela', '   * ¿Sin azúcar?']);
  });

  it('keeps control characters in user text from reaching the printer as commands', async () => {
    const ticket = { ...kitchenTicket, lines: [{ cantidad: 1, descripcion: 'Taco\x1b@\x1dV\x00al pastor' }] };
    const bytes = renderKitchenTicket(ticket, { widthMm: 58 });
    const start = bytes.indexOf('Taco');
    const end = bytes.indexOf('pastor', start);
    expect(start).toBeGreaterThan(0);
    expect([...bytes.subarray(start, end)].every((b) => b >= 0x20)).toBe(true);
    expect(escposText(decodeEscpos(bytes))).toContain('Taco@Val pastor');
  });

  it('replaces characters CP858 lacks instead of printing garbage', async () => {
    const ticket = { ...kitchenTicket, lines: [{ cantidad: 1, descripcion: '“Crème brûlée” — Ł 🌮' }] };
    const text = escposText(decodeEscpos(renderKitchenTicket(ticket, { widthMm: 80 })));
    expect(text).toContain('"Crème brûlée" - ? ?');
  });

  it('is deterministic', async () => {
    const a = renderKitchenTicket(kitchenTicket, { widthMm: 58, timeZone: TIME_ZONE });
    const b = renderKitchenTicket(kitchenTicket, { widthMm: 58, timeZone: TIME_ZONE });
    expect(a.equals(b)).toBe(true);
  });
});
