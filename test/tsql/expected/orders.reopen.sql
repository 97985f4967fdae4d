-- scenario 1: {"usuario":"CAJERO"}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
update "tempcheques" set "impreso" = @1, "reabiertas" = @2 where "folio" = @3;
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
