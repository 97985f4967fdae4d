import { describe, expect, it } from 'vitest';
import { decodeCp858, encodeCp858, toPrintable } from '../../../src/printing/cp858.js';
import { formatTicketDate } from '../../../src/printing/ticket-date.js';
import { wrapText, wrapWithPrefix } from '../../../src/printing/wrap.js';

describe('CP858 text', () => {
  it('round-trips the Spanish repertoire', () => {
    const spanish = 'áéíóúüñ ÁÉÍÓÚÜÑ ¿? ¡! € ºª';
    const bytes = encodeCp858(spanish);
    expect(bytes).toHaveLength(spanish.length);
    expect(decodeCp858(bytes)).toBe(spanish);
  });

  it('composes decomposed accents before encoding', () => {
    expect([...encodeCp858('Pin\u0303a')]).toEqual([0x50, 0x69, 0xa4, 0x61]);
  });

  it('replaces what CP858 lacks, one column per character', () => {
    expect(toPrintable('“Hola” – ‘adiós’…')).toBe('"Hola" - \'adiós\'...');
    expect(toPrintable('Łódź ă')).toBe('?ódz a');
    expect(toPrintable('taco 🌮 👨‍🍳!')).toBe('taco ? ?!');
  });

  it('drops control characters and turns line breaks and tabs into spaces', () => {
    expect(toPrintable('a\x1b@b\x00c\td\ne\r\nf')).toBe('a@bc d e f');
  });
});

describe('wrapText', () => {
  it('wraps on spaces and splits words longer than a line', () => {
    expect(wrapText('uno dos tres cuatro', 8)).toEqual(['uno dos', 'tres', 'cuatro']);
    expect(wrapText('abcdefghij xy', 4)).toEqual(['abcd', 'efgh', 'ij', 'xy']);
    expect(wrapText('', 10)).toEqual(['']);
  });

  it('indents continuation lines under the text after the prefix', () => {
    expect(wrapWithPrefix('12 ', 'Jalapeño relleno de queso', 16)).toEqual(['12 Jalapeño', '   relleno de', '   queso']);
  });
});

describe('formatTicketDate', () => {
  it('prints dd/mm/yyyy HH:MM in the given zone', () => {
    const date = new Date('2025-01-09T05:03:00Z');
    expect(formatTicketDate(date, 'UTC')).toBe('09/01/2025 05:03');
    expect(formatTicketDate(date, 'America/Mexico_City')).toBe('08/01/2025 23:03');
  });
});
