-- scenario 1: {"idProducto":"9002","idEmpresa":"0000000001","descripcionProducto":"Extra queso gratinado","idGrupo":"MOD","nombreCorto":"Extra queso","visibleMenu":true,"precio":18.5,"impuesto1":16,"impuesto2":0,"impuesto3":0,"bloqueado":false,"permitirprodcompenmodif":true,"usuario":"ADMIN"}
select "idproducto", "WorkspaceId" from "productos" with (updlock, rowlock) where "idproducto" = @1;
select "idempresa" from "empresas" where "idempresa" = @1;
select "precio" from "productosdetalle" with (updlock, rowlock) where "idproducto" = @1 and "idempresa" = @2;
select "idgrupo", "clasificacion" from "grupos" where "idgrupo" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
update "productos" set "descripcion" = @1, "idgrupo" = @2, "nombrecorto" = @3, "visible_menu" = @4 where "idproducto" = @5;
update "productosdetalle" set "precio" = @1, "preciosinimpuestos" = @2, "impuesto1" = @3, "impuesto2" = @4, "impuesto3" = @5, "bloqueado" = @6, "permitirprodcompenmodif" = @7 where "idproducto" = @8 and "idempresa" = @9;
update "modificadores" set "precio" = @1 where "idproducto" = @2 and "idmodificador" = @3 and ("idempresa" = @4 or "idempresa" is null);
insert into "logcambioprecios" ("idproducto", "precioanterior", "precionuevo", "fecha", "usuario", "idempresa") values (@1, @2, @3, @4, @5, @6);
insert into "bitacorasistema" ("fecha", "tipoalerta", "enviado", "usuariosolicita", "usuario", "evento", "valores", "idempresa") values (@1, @2, @3, @4, @5, @6, @7, @8);
update "productos" set "WorkspaceId" = @1 where "idproducto" = @2;
select "Id" from "nsplatformcontrol" where "WorkspaceId" = @1 and "EntityType" = @2;
insert into "nsplatformcontrol" ("WorkspaceId", "EntityType", "OperationType", "IsSync", "Attempts", "CreateDate") values (@1, @2, @3, @4, @5, @6);
insert into ba_event_origins (kind, entity, job_id, created_at) values (@1, @2, @3, @4); insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @5, @6, @7, @8, @9, @10, @11 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @12 and idem_key = @13); select @@rowcount as inserted;

-- scenario 2: {"idProducto":"1001","idEmpresa":"0000000001","descripcionProducto":"Café americano","idGrupo":"BEB","nombreCorto":"Americano","visibleMenu":true,"precio":35,"impuesto1":16,"impuesto2":0,"impuesto3":0,"bloqueado":false,"permitirprodcompenmodif":false}
select "idproducto", "WorkspaceId" from "productos" with (updlock, rowlock) where "idproducto" = @1;
select "idempresa" from "empresas" where "idempresa" = @1;
select "precio" from "productosdetalle" with (updlock, rowlock) where "idproducto" = @1 and "idempresa" = @2;
select "idgrupo", "clasificacion" from "grupos" where "idgrupo" = @1;
update "productos" set "descripcion" = @1, "idgrupo" = @2, "nombrecorto" = @3, "visible_menu" = @4 where "idproducto" = @5;
update "productosdetalle" set "precio" = @1, "preciosinimpuestos" = @2, "impuesto1" = @3, "impuesto2" = @4, "impuesto3" = @5, "bloqueado" = @6, "permitirprodcompenmodif" = @7 where "idproducto" = @8 and "idempresa" = @9;
update "modificadores" set "precio" = @1 where "idproducto" = @2 and "idmodificador" = @3 and ("idempresa" = @4 or "idempresa" is null);
insert into "bitacorasistema" ("fecha", "tipoalerta", "enviado", "usuariosolicita", "usuario", "evento", "valores", "idempresa") values (@1, @2, @3, @4, @5, @6, @7, @8);
update "productos" set "WorkspaceId" = @1 where "idproducto" = @2;
select "Id" from "nsplatformcontrol" where "WorkspaceId" = @1 and "EntityType" = @2;
insert into "nsplatformcontrol" ("WorkspaceId", "EntityType", "OperationType", "IsSync", "Attempts", "CreateDate") values (@1, @2, @3, @4, @5, @6);
insert into ba_event_origins (kind, entity, job_id, created_at) values (@1, @2, @3, @4); insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @5, @6, @7, @8, @9, @10, @11 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @12 and idem_key = @13); select @@rowcount as inserted;
