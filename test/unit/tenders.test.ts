/** How tenders settle an account: change off cash only, dollars at 4 decimals, to the cent. */
import { describe, expect, it } from 'vitest';
import { settleTenders, type PaymentMethod } from '../../src/pos/tenders.js';
import { Dec } from '../../src/pos/totals.js';

const method = (idformadepago: string, tipo: number, rate = '1'): [string, PaymentMethod] => [
  idformadepago,
  { idformadepago, tipo, tipodecambio: new Dec(rate) },
];
const methods = new Map([method('EFE', 1), method('USD', 1, '17.25'), method('TAR', 2), method('VAL', 3), method('CRE', 4)]);
const pay = (idFormaDePago: string, importe: number, propina = 0) => ({ idFormaDePago, importe, propina, referencia: '' });
const srSum = (s: ReturnType<typeof settleTenders>) =>
  s.tenders
    .reduce((sum, t) => sum.plus(t.importe.plus(t.propina).times(t.method.tipodecambio)), new Dec(0))
    .toDecimalPlaces(2)
    .toFixed(2);

describe('settleTenders', () => {
  it('takes the change off pesos before dollars', () => {
    const s = settleTenders(new Dec('178.00'), [pay('USD', 5), pay('EFE', 100)], methods);
    expect(s.cambio.toFixed(2)).toBe('8.25');
    expect(s.tenders.map((t) => [t.method.idformadepago, t.importe.toFixed(4)])).toEqual([
      ['USD', '5.0000'],
      ['EFE', '91.7500'],
    ]);
    expect(s.buckets.efectivo.toFixed(2)).toBe('178.00');
  });

  it('takes the change off dollars at 4 decimals, still summing to the total within the cent', () => {
    for (const total of ['178.00', '0.01', '99.99', '344.99']) {
      const s = settleTenders(new Dec(total), [pay('USD', 20)], methods);
      expect(srSum(s), total).toBe(total);
    }
  });

  it('drops a cash tender the change takes whole, and keeps tips out of what is owed', () => {
    const s = settleTenders(new Dec('100.00'), [pay('TAR', 100, 10), pay('EFE', 50)], methods);
    expect(s.cambio.toFixed(2)).toBe('50.00');
    expect(s.tenders.map((t) => t.method.idformadepago)).toEqual(['TAR']);
    expect([s.buckets.tarjeta, s.propina, s.propinaTarjeta].map((d) => d.toFixed(2))).toEqual(['110.00', '10.00', '10.00']);
    expect(srSum(s)).toBe('110.00');
  });

  it('refuses short, over-by-card and unknown tenders', () => {
    expect(() => settleTenders(new Dec('100.00'), [pay('EFE', 99.99)], methods)).toThrow(expect.objectContaining({ code: 'payment_insufficient' }));
    expect(() => settleTenders(new Dec('100.00'), [pay('VAL', 60), pay('CRE', 40.01)], methods)).toThrow(expect.objectContaining({ code: 'overpayment' }));
    expect(() => settleTenders(new Dec('100.00'), [pay('BTC', 100)], methods)).toThrow(expect.objectContaining({ code: 'payment_method_not_found' }));
  });

  it('matches a method however the request spells its padding and case', () => {
    expect(settleTenders(new Dec('10.00'), [pay('efe  ', 10)], methods).tenders[0]!.method.idformadepago).toBe('EFE');
  });
});
