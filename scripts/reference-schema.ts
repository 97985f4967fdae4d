/**
 * The reference Soft Restaurant schema, rendered from the column lists in sql/reference/
 * (softrestaurant11-*.tsv: the real SR 11 tables; settings-columns.tsv: the settings columns
 * the agent reads). One source gives the SQL Server DDL, the PostgreSQL DDL and the Kysely types.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ReferenceColumn {
  table: string;
  column: string;
  /** SQL Server type as written in the TSV, e.g. `numeric(8,4)`, `varchar(max)`. */
  type: string;
  nullable: boolean;
}

const referenceDir = fileURLToPath(new URL('../sql/reference/', import.meta.url));

/** Surrogate keys that Soft Restaurant declares IDENTITY(1,1). */
const IDENTITY = new Set([
  'tempcheques.folio',
  'cheques.folio',
  'turnos.idturnointerno',
  'bitacorasistema.bitacorasistemaid',
  'cancela.cancelaid',
  'tempcancela.cancelaid',
  'meseros.idmeserointerno',
  'mesas.idmesasistema',
  'mesasasignadas.idmesaasignada',
  'nsplatformcontrol.Id',
  'areasrestaurant.idAreaSR',
  'bitacoraEnvioVentas.idbitacora',
  'tempbitacoraeasygoband.idbitacora',
  'bitacoraeasygoband.idbitacora',
  'registro_dispositivos.folio',
  'insumoselaboracion.movimiento',
  'notificaciones.id_notificacion',
  'tempnotificaciones.id_notificacion',
]);

/**
 * Lookup indexes a real installation has on the tables the agent scans by account or shift.
 * The column lists do not carry them; without them the reference schema would be slower than
 * a branch, not faster.
 */
const INDEXES: Array<[table: string, columns: string[]]> = [
  ['tempcheqdet', ['foliodet', 'movimiento']],
  ['cheqdet', ['foliodet', 'movimiento']],
  ['tempchequespagos', ['folio']],
  ['chequespagos', ['folio']],
  ['tempcancela', ['foliocheque']],
  ['cancela', ['foliocheque']],
  ['tempcheques', ['idturno']],
  ['cheques', ['idturno']],
  ['cheques', ['foliotempcheques']],
  ['productosdetalle', ['idproducto', 'idempresa']],
  ['productosenproduccion', ['folio', 'movimiento']],
  ['tempfoliosfacturados', ['folio']],
  ['foliosfacturados', ['folio']],
  ['registroasistencias', ['entrada']],
  ['productosmonitores', ['idproducto']],
  ['costos', ['idproducto']],
  ['recetasalmacenes', ['idproducto']],
];

function readTsv(file: string): string[][] {
  return readFileSync(referenceDir + file, 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t'));
}

export function readReferenceColumns(): ReferenceColumn[] {
  return [...readTsv('softrestaurant11-columns.tsv'), ...readTsv('settings-columns.tsv')].map(([table, column, type, nullable]) => ({
    table: table!,
    column: column!,
    type: type!,
    nullable: nullable === 'YES',
  }));
}

export function readPrimaryKeys(): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const [table, column] of readTsv('softrestaurant11-primary-keys.tsv')) {
    keys.set(table!, [...(keys.get(table!) ?? []), column!]);
  }
  return keys;
}

export function groupByTable(columns: ReferenceColumn[]): Map<string, ReferenceColumn[]> {
  const tables = new Map<string, ReferenceColumn[]>();
  for (const c of columns) tables.set(c.table, [...(tables.get(c.table) ?? []), c]);
  return tables;
}

/** The PostgreSQL type that holds exactly what the SQL Server type holds. */
export function postgresType(mssqlType: string): string {
  const m = /^(\w+)(?:\((\w+)(?:,(\d+))?\))?$/.exec(mssqlType);
  if (!m) throw new Error(`unparsable type ${mssqlType}`);
  const [, base, size, scale] = m;
  switch (base) {
    case 'bigint':
    case 'smallint':
      return base;
    case 'int':
      return 'integer';
    case 'tinyint':
      return 'smallint';
    case 'bit':
      return 'boolean';
    case 'money':
      return 'numeric(19,4)';
    case 'numeric':
    case 'decimal':
      return `numeric(${size},${scale ?? 0})`;
    case 'varchar':
    case 'nvarchar':
      return size === 'max' ? 'text' : `varchar(${size})`;
    case 'char':
      return `char(${size})`;
    case 'text':
      return 'text';
    case 'image':
    case 'varbinary':
      return 'bytea';
    case 'datetime':
      return 'timestamp(3)';
    case 'datetime2':
      return 'timestamp(6)';
    case 'smalldatetime':
      return 'timestamp(0)';
    case 'uniqueidentifier':
      return 'uuid';
    default:
      throw new Error(`no PostgreSQL mapping for ${mssqlType}`);
  }
}

function tsType(mssqlType: string): string {
  const base = mssqlType.replace(/\(.*$/, '');
  if (['bigint', 'int', 'smallint', 'tinyint', 'money', 'numeric', 'decimal'].includes(base)) return 'Num';
  if (base === 'bit') return 'boolean';
  if (['datetime', 'datetime2', 'smalldatetime'].includes(base)) return 'Date';
  if (['image', 'varbinary'].includes(base)) return 'Buffer';
  return 'string';
}

/**
 * SQL Server numbers an IDENTITY(1,1) from 1 but takes any value a reseed gives it, 0 included
 * (`DBCC CHECKIDENT (…, RESEED, 0)` on a table that never had a row makes the next value 0,
 * shift-close row 137); PostgreSQL's identities stop at MINVALUE, 1 unless told otherwise.
 */
const POSTGRES_IDENTITY_RANGE = '(START WITH 1 MINVALUE 0)';

const HEADER = '-- Generated by scripts/generate-reference-schema.ts from sql/reference/*.tsv. Do not edit.\n';

export function renderPostgres(columns: ReferenceColumn[], primaryKeys = readPrimaryKeys()): string {
  const out = [HEADER];
  for (const [table, cols] of groupByTable(columns)) {
    const lines = cols.map((c) => {
      const identity = IDENTITY.has(`${table}.${c.column}`) ? ` GENERATED ALWAYS AS IDENTITY ${POSTGRES_IDENTITY_RANGE}` : '';
      return `  "${c.column}" ${postgresType(c.type)}${identity}${c.nullable ? '' : ' NOT NULL'}`;
    });
    const pk = primaryKeys.get(table);
    if (pk) lines.push(`  PRIMARY KEY (${pk.map((k) => `"${k}"`).join(', ')})`);
    out.push(`CREATE TABLE "${table}" (\n${lines.join(',\n')}\n);\n`);
  }
  for (const [table, cols] of INDEXES) {
    out.push(`CREATE INDEX "ix_${table}_${cols.join('_')}" ON "${table}" (${cols.map((c) => `"${c}"`).join(', ')});\n`);
  }
  return out.join('\n');
}

export function renderMssql(columns: ReferenceColumn[], primaryKeys = readPrimaryKeys()): string {
  const out = [HEADER];
  for (const [table, cols] of groupByTable(columns)) {
    const lines = cols.map((c) => {
      const identity = IDENTITY.has(`${table}.${c.column}`) ? ' IDENTITY(1,1)' : '';
      return `  [${c.column}] ${c.type}${identity}${c.nullable ? ' NULL' : ' NOT NULL'}`;
    });
    const pk = primaryKeys.get(table);
    if (pk) lines.push(`  CONSTRAINT [PK_${table}] PRIMARY KEY (${pk.map((k) => `[${k}]`).join(', ')})`);
    out.push(`CREATE TABLE [dbo].[${table}] (\n${lines.join(',\n')}\n);\nGO\n`);
  }
  for (const [table, cols] of INDEXES) {
    out.push(`CREATE INDEX [ix_${table}_${cols.join('_')}] ON [dbo].[${table}] (${cols.map((c) => `[${c}]`).join(', ')});\nGO\n`);
  }
  return out.join('\n');
}

export function renderKyselyTypes(columns: ReferenceColumn[]): string {
  const out = [
    '// Generated by scripts/generate-reference-schema.ts from sql/reference/*.tsv. Do not edit.',
    '// Soft Restaurant tables with their real names. Numbers come back as string (pg numeric)',
    '// or number (tedious), so every numeric column is `Num` and is read through decimal.js.',
    "import type { ColumnType, GeneratedAlways } from 'kysely';",
    '',
    'export type Num = ColumnType<string | number, string | number, string | number>;',
    '',
  ];
  const tableNames: string[] = [];
  for (const [table, cols] of groupByTable(columns)) {
    const name = table.replace(/(^|_)(\w)/g, (_, __, ch: string) => ch.toUpperCase());
    tableNames.push(`  ${table}: ${name};`);
    out.push(`export interface ${name} {`);
    for (const c of cols) {
      let type = tsType(c.type);
      if (c.nullable) type += ' | null';
      if (IDENTITY.has(`${table}.${c.column}`)) type = `GeneratedAlways<${type === 'Num' ? 'string | number' : type}>`;
      const key = /^[A-Za-z_][A-Za-z0-9_]*$/.test(c.column) ? c.column : `'${c.column}'`;
      out.push(`  ${key}: ${type};`);
    }
    out.push('}', '');
  }
  out.push('export interface SoftRestaurantTables {', ...tableNames, '}', '');
  return out.join('\n');
}

/**
 * Soft Restaurant 10 as the agent meets it at older branches (POS-SCHEMA.md, Versions differ):
 * no WorkspaceId anywhere, line discounts as numeric(6,2), and no maximum columns on discount
 * types. Used to prove the agent adapts to what is installed.
 */
export function softRestaurant10(columns: ReferenceColumn[]): ReferenceColumn[] {
  return columns
    .filter((c) => c.column !== 'WorkspaceId')
    .filter((c) => !(c.table === 'tipodescuento' && ['imp_maximo_descuento', 'activar_maximo_descuento'].includes(c.column)))
    .map((c) => (['tempcheqdet', 'cheqdet'].includes(c.table) && c.column === 'descuento' ? { ...c, type: 'numeric(6,2)' } : c));
}

export function renderReferenceSchema(): Record<string, string> {
  const columns = readReferenceColumns();
  const sr10 = softRestaurant10(columns);
  return {
    'sql/postgres/pos/softrestaurant11.sql': renderPostgres(columns),
    'sql/mssql/pos/softrestaurant11.sql': renderMssql(columns),
    'sql/postgres/pos/softrestaurant10.sql': renderPostgres(sr10),
    'sql/mssql/pos/softrestaurant10.sql': renderMssql(sr10),
    'src/pos/schema-softrestaurant.ts': renderKyselyTypes(columns),
  };
}
