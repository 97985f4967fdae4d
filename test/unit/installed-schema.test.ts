import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { inCodePage1252, InstalledSchema, type ColumnInfo } from '../../src/pos/columns.js';

const col = (name: string, more: Partial<ColumnInfo> = {}): ColumnInfo => ({
  name,
  dataType: 'int',
  maxLength: null,
  numericScale: null,
  nullable: true,
  hasDefault: false,
  identity: false,
  ...more,
});

/** An installation that spells some names differently from the reference schema. */
const tables: Array<[string, ColumnInfo[]]> = [
  [
    'Tempcheques',
    [
      col('Folio', { identity: true }),
      col('IdTurno'),
      col('Observaciones', { dataType: 'varchar', maxLength: 5 }),
      col('WorkspaceID', { dataType: 'uniqueidentifier', nullable: false }),
    ],
  ],
  [
    'cheques',
    [col('folio'), col('idturno', { nullable: false }), col('observaciones', { dataType: 'varchar', maxLength: 50 }), col('numcheque', { identity: true })],
  ],
];

describe('the installed schema on SQL Server (case-insensitive names)', () => {
  const schema = new InstalledSchema(tables, { caseInsensitive: true });

  it('finds tables and columns whatever their letter case', () => {
    expect(schema.hasTable('tempcheques')).toBe(true);
    expect(schema.has('tempcheques', 'idturno')).toBe(true);
    expect(schema.has('tempcheques', 'WorkspaceId')).toBe(true);
    expect(schema.column('tempcheques', 'observaciones')?.maxLength).toBe(5);
    expect(schema.missingColumns('tempcheques', ['idturno', 'propina'])).toEqual(['propina']);
    expect(schema.columnNames('tempcheques')).toEqual(['Folio', 'IdTurno', 'Observaciones', 'WorkspaceID']);
  });

  it('shapes rows by the reference names and does not fill a column it was given under another spelling', () => {
    const row = schema.completeRow('tempcheques', {
      idturno: 7,
      observaciones: 'mesa junto a la ventana',
      WorkspaceId: 'a0000000-0000-0000-0000-000000000001',
    });
    expect(row).toEqual({ idturno: 7, observaciones: 'mesa ', WorkspaceId: 'a0000000-0000-0000-0000-000000000001' });
  });

  it('lists the columns two tables share, leaving out the excluded ones and the target identity', () => {
    expect(schema.sharedColumns('tempcheques', 'cheques', ['folio'])).toEqual(['IdTurno', 'Observaciones']);
    expect(schema.sharedColumns('cheques', 'tempcheques', ['IDTURNO'])).toEqual(['observaciones']);
  });
});

describe('the installed schema on PostgreSQL (exact names)', () => {
  const schema = new InstalledSchema(tables, { caseInsensitive: false });

  it('matches names only as spelled, as PostgreSQL does for quoted identifiers', () => {
    expect(schema.hasTable('tempcheques')).toBe(false);
    expect(schema.has('cheques', 'idturno')).toBe(true);
    expect(schema.has('cheques', 'IdTurno')).toBe(false);
    expect(() => schema.fitRow('tempcheques', {})).toThrow(/not installed/);
  });
});

describe('text as the column stores it', () => {
  const schema = new InstalledSchema(
    [
      [
        'tempcancela',
        [
          col('razon', { dataType: 'varchar', maxLength: 10 }),
          col('comanda', { dataType: 'character varying', maxLength: 4 }),
          col('clave', { dataType: 'nvarchar', maxLength: 3 }),
          col('idmotivocancela', { dataType: 'varchar', maxLength: -1 }),
        ],
      ],
    ],
    { caseInsensitive: true },
  );

  it("keeps code page 1252 text and writes '?' for what the code page lacks, as SQL Server stores it", () => {
    expect(schema.fitRow('tempcancela', { razon: 'Añejo €5', idmotivocancela: 'Café 😀 Ā' })).toEqual({ razon: 'Añejo €5', idmotivocancela: 'Café ?? ?' });
  });

  it('keeps exactly what iconv-lite round-trips through windows-1252, for every UTF-16 unit', () => {
    // Not U+FFFD: iconv-lite's table gives it an unassigned byte, which decodes back to U+FFFD.
    const units = Array.from({ length: 0xfffd }, (_, unit) => String.fromCharCode(unit)).join('') + '\ufffe\uffff';
    expect(inCodePage1252(units)).toBe(iconv.decode(iconv.encode(units, 'win1252'), 'win1252'));
    expect(inCodePage1252('x😀\ud800y\ufffd')).toBe('x???y?');
  });

  it('cuts to the width after the conversion, never inside a character', () => {
    expect(schema.fitRow('tempcancela', { comanda: '😀😀😀😀', clave: 'a😀😀' })).toEqual({ comanda: '????', clave: 'a😀' });
  });
});
