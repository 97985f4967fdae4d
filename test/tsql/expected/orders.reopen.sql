-- scenario 1: {"usuario":"CAJERO"}
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
update "tempcheques" set "impreso" = @1, "reabiertas" = @2 where "folio" = @3;
insert into ba_event_origins (kind, entity, job_id, created_at) values (@1, @2, @3, @4); insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @5, @6, @7, @8, @9, @10, @11 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @12 and idem_key = @13); select @@rowcount as inserted;
