import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { renderKitchenTicket, renderTestTicket } from '../../../src/printing/escpos.js';
import { renderPreviewPng } from '../../../src/printing/preview.js';
import { toReceivedJob } from '../../../src/printing/received-job.js';
import { renderLabels } from '../../../src/printing/tspl.js';
import { TIME_ZONE, kitchenTicket, labelTicket, testTicket } from './fixtures.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function countPixels(png: PNG, match: (r: number, g: number, b: number) => boolean): number {
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (match(png.data[i] ?? 0, png.data[i + 1] ?? 0, png.data[i + 2] ?? 0)) count++;
  }
  return count;
}

const isInk = (r: number, g: number, b: number): boolean => r < 60 && g < 60 && b < 60;
const isCutMark = (r: number, g: number, b: number): boolean => r > 150 && g < 80 && b < 80;

describe('PNG preview', () => {
  it('draws a 58 mm ticket as a receipt-shaped PNG with text and a cut line', async () => {
    const png = renderPreviewPng(renderKitchenTicket(kitchenTicket, { widthMm: 58, timeZone: TIME_ZONE }));
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const image = PNG.sync.read(png);
    // 32 columns of 12 px, plus margins.
    expect(image.width).toBeGreaterThanOrEqual(32 * 12);
    expect(image.width).toBeLessThan(48 * 12);
    expect(image.height).toBeGreaterThan(image.width * 1.5);
    expect(image.height).toBeLessThan(4000);
    expect(countPixels(image, isInk)).toBeGreaterThan(5000);
    expect(countPixels(image, isCutMark)).toBeGreaterThan(100);
  });

  it('is wider for 80 mm paper and shows one cut per ticket', async () => {
    const bytes = Buffer.concat([renderKitchenTicket(kitchenTicket, { widthMm: 80 }), renderTestTicket(testTicket, { widthMm: 80 })]);
    const image = PNG.sync.read(renderPreviewPng(toReceivedJob(bytes, new Date())));
    expect(image.width).toBeGreaterThanOrEqual(48 * 12);
    const cutRows: number[] = [];
    for (let y = 0; y < image.height; y++) {
      const row = image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4);
      let marks = 0;
      for (let i = 0; i < row.length; i += 4) if (isCutMark(row[i] ?? 0, row[i + 1] ?? 0, row[i + 2] ?? 0)) marks++;
      if (marks > image.width / 3) cutRows.push(y);
    }
    const cutLines = cutRows.filter((y, i) => cutRows[i - 1] !== y - 1);
    expect(cutLines).toHaveLength(2);
  });

  it('draws one label per printed TSPL label', () => {
    const image = PNG.sync.read(renderPreviewPng(renderLabels(labelTicket)));
    // 50×25 mm at 8 dots/mm, four labels stacked.
    expect(image.width).toBeGreaterThanOrEqual(400);
    expect(image.height).toBeGreaterThanOrEqual(4 * 200);
    expect(image.height).toBeLessThan(5 * 200 + 100);
    expect(countPixels(image, isInk)).toBeGreaterThan(2000);
  });
});
