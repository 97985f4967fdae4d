/** The dialect translations of src/pos/db.ts, compiled without a server. */
import { Kysely, DummyDriver, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compileTsql, escapeLike, likeContains } from '../../src/pos/sql-dialect.js';
import type { PosDatabase } from '../../src/pos/schema.js';

// A query builder that never connects: we only look at the SQL it compiles.
const db = new Kysely<PosDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('T-SQL compilation of dialect-neutral queries', () => {
  it('turns FOR UPDATE on an account into an update row lock hint', () => {
    const q = db.selectFrom('tempcheques').select(['folio', 'pagado']).where('folio', '=', 7).forUpdate();
    expect(q.compile().sql).toBe('select "folio", "pagado" from "tempcheques" where "folio" = $1 for update');
    expect(compileTsql(q.toOperationNode()).sql).toBe('select "folio", "pagado" from "tempcheques" with (updlock, rowlock) where "folio" = @1');
  });

  it('locks the counter tables whole, as Soft Restaurant does', () => {
    const q = db.selectFrom('folios').select('ultimaorden').where('serie', '=', 'A').forUpdate();
    expect(compileTsql(q.toOperationNode()).sql).toBe('select "ultimaorden" from "folios" with (tablockx) where "serie" = @1');
  });

  it('keeps unlocked selects and aliases untouched', () => {
    const q = db.selectFrom('tempcheqdet as d').select('d.movimiento').where('d.foliodet', '=', 1).forUpdate();
    expect(compileTsql(q.toOperationNode()).sql).toBe('select "d"."movimiento" from "tempcheqdet" as "d" with (updlock, rowlock) where "d"."foliodet" = @1');
    const plain = db.selectFrom('grupos').select('idgrupo');
    expect(compileTsql(plain.toOperationNode()).sql).toBe('select "idgrupo" from "grupos"');
  });

  it('reads an inserted identity back with SCOPE_IDENTITY, which works on tables with triggers', () => {
    const q = db
      .insertInto('turnos')
      .values({ idturno: 5, enviadoaf: false, corte_enviado: false, eliminartemporalesencierre: false, procesado: false })
      .returning('idturnointerno');
    expect(compileTsql(q.toOperationNode()).sql).toBe(
      'insert into "turnos" ("idturno", "enviadoaf", "corte_enviado", "eliminartemporalesencierre", "procesado") values (@1, @2, @3, @4, @5); select cast(scope_identity() as bigint) as "idturnointerno"',
    );
  });

  it('refuses a RETURNING it cannot translate', () => {
    const q = db.insertInto('grupos').values({ idgrupo: 'X', id_etiqueta: '', alcohol: false }).returning(['idgrupo', 'descripcion']);
    expect(() => compileTsql(q.toOperationNode())).toThrow(/identity column/);
  });

  it('pages with OFFSET/FETCH in both dialects', () => {
    const q = db.selectFrom('grupos').select('idgrupo').orderBy('idgrupo').offset(10).fetch(5);
    expect(q.compile().sql).toBe('select "idgrupo" from "grupos" order by "idgrupo" offset $1 fetch next $2 rows only');
    expect(compileTsql(q.toOperationNode()).sql).toBe('select "idgrupo" from "grupos" order by "idgrupo" offset @1 rows fetch next @2 rows only');
  });

  it('escapes LIKE so %, _ and [ match themselves', () => {
    expect(escapeLike('100%_[a]\\')).toBe('100\\%\\_\\[a]\\\\');
    const q = db
      .selectFrom('productos')
      .select('idproducto')
      .where((eb) => likeContains(eb.ref('descripcion'), 'Piña_[2]'));
    const compiled = compileTsql(q.toOperationNode());
    expect(compiled.sql).toBe(`select "idproducto" from "productos" where lower("descripcion") like @1 escape '\\'`);
    expect(compiled.parameters).toEqual(['%piña\\_\\[2]%']);
  });
});
