-- scenario 1: {"estacion":"CAJA2","idEmpresa":"0000000001","cajero":"CAJERO","fondo":500,"idMesero":"02"}
select "idempresa" from "empresas" where "idempresa" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
select "idestacion", "cajacomandero", "usarturnoestacion", "seriefolio", "idarearestaurant", "idarearestaurantdomicilio", "idarearestaurantrapido" from "estaciones" where "idestacion" = @1;
select "idmesero" from "meseros" where "idmesero" = @1;
select "ultimoturno" from "parametros" with (tablockx);
update "parametros" set "ultimoturno" = @1;
select "idturno" from "turnos" where "idestacion" = @1 and "idempresa" = @2 and "idmesero" = @3 and "cierre" is null and "apertura" is not null order by "idturno" desc;
select "fondofijocaja" from "configuracion";
select max("apertura") as "apertura" from "turnos";
select max("cierre") as "cierre" from "turnos" where "idestacion" = @1 and "idempresa" = @2;
select "idturno" from "turnos" where "apertura" = @1 and "idempresa" = @2;
insert into "turnos" ("idturno", "fondo", "apertura", "cierre", "idestacion", "cajero", "efectivo", "tarjeta", "vales", "credito", "idempresa", "idmesero", "fondodolares", "offline", "enviadoacentral", "WorkspaceId", "enviadoaf", "corte_enviado", "eliminartemporalesencierre", "procesado") values (@1, @2, @3, @4, @5, @6, @7, @8, @9, @10, @11, @12, @13, @14, @15, @16, @17, @18, @19, @20);
select "Id" from "nsplatformcontrol" where "WorkspaceId" = @1 and "EntityType" = @2;
insert into "nsplatformcontrol" ("WorkspaceId", "EntityType", "OperationType", "IsSync", "Attempts", "CreateDate") values (@1, @2, @3, @4, @5, @6);
insert into "bitacoraEnvioVentas" ("fechaapertura") values (@1);
insert into ba_event_origins (kind, entity, job_id, created_at) values (@1, @2, @3, @4); insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @5, @6, @7, @8, @9, @10, @11 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @12 and idem_key = @13); select @@rowcount as inserted;
