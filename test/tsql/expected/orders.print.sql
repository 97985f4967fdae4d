-- scenario 1: {"usuario":"CAJERO"}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
select "d"."movimiento", "d"."idproducto", "d"."cantidad", "d"."precio", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "p"."descripcion", "g"."clasificacion" from "tempcheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 order by "d"."movimiento";
update "tempcheques" set "subtotal" = @1, "subtotalsinimpuestos" = @2, "total" = @3, "totalimpuesto1" = @4, "totalimpuestod1" = @5, "totalimpuestod2" = @6, "totalimpuestod3" = @7, "descuento" = @8, "descuentoimporte" = @9, "subtotalcondescuento" = @10, "totalsindescuento" = @11, "totalsindescuentoimp" = @12, "totaldescuentos" = @13, "totaldescuentoalimentos" = @14, "totaldescuentobebidas" = @15, "totaldescuentootros" = @16, "totalcortesias" = @17, "totalcortesiaalimentos" = @18, "totalcortesiabebidas" = @19, "totalcortesiaotros" = @20, "totaldescuentoycortesia" = @21, "totalalimentos" = @22, "totalbebidas" = @23, "totalotros" = @24, "totalalimentossindescuentos" = @25, "totalbebidassindescuentos" = @26, "totalotrossindescuentos" = @27, "totalarticulos" = @28, "totalconpropina" = @29, "totalconcargo" = @30, "totalconpropinacargo" = @31, "totalcondonativo" = @32, "totalconpropinacargodonativo" = @33 where "folio" = @34;
select count(*) as "n" from "registro_dispositivos";
select "ultimofolio" from "folios" with (tablockx) where "serie" = @1;
update "folios" set "ultimofolio" = @1 where "serie" = @2;
update "tempcheques" set "impreso" = @1, "numcheque" = @2, "cierre" = @3, "impresiones" = @4, "cambiorepartidor" = @5, "codigo_unico_af" = @6, "domicilioprogramado" = @7, "autorizacionfolio" = @8, "propinaincluida" = @9 where "folio" = @10;
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;

-- scenario 2: {}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "d"."movimiento", "d"."idproducto", "d"."cantidad", "d"."precio", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "p"."descripcion", "g"."clasificacion" from "tempcheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 order by "d"."movimiento";
update "tempcheques" set "subtotal" = @1, "subtotalsinimpuestos" = @2, "total" = @3, "totalimpuesto1" = @4, "totalimpuestod1" = @5, "totalimpuestod2" = @6, "totalimpuestod3" = @7, "descuento" = @8, "descuentoimporte" = @9, "subtotalcondescuento" = @10, "totalsindescuento" = @11, "totalsindescuentoimp" = @12, "totaldescuentos" = @13, "totaldescuentoalimentos" = @14, "totaldescuentobebidas" = @15, "totaldescuentootros" = @16, "totalcortesias" = @17, "totalcortesiaalimentos" = @18, "totalcortesiabebidas" = @19, "totalcortesiaotros" = @20, "totaldescuentoycortesia" = @21, "totalalimentos" = @22, "totalbebidas" = @23, "totalotros" = @24, "totalalimentossindescuentos" = @25, "totalbebidassindescuentos" = @26, "totalotrossindescuentos" = @27, "totalarticulos" = @28, "totalconpropina" = @29, "totalconcargo" = @30, "totalconpropinacargo" = @31, "totalcondonativo" = @32, "totalconpropinacargodonativo" = @33 where "folio" = @34;
select count(*) as "n" from "registro_dispositivos";
update "tempcheques" set "impresiones" = @1 where "folio" = @2;
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;

-- scenario 3: {"printerId":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "d"."movimiento", "d"."idproducto", "d"."cantidad", "d"."precio", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "p"."descripcion", "g"."clasificacion" from "tempcheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 order by "d"."movimiento";
update "tempcheques" set "subtotal" = @1, "subtotalsinimpuestos" = @2, "total" = @3, "totalimpuesto1" = @4, "totalimpuestod1" = @5, "totalimpuestod2" = @6, "totalimpuestod3" = @7, "descuento" = @8, "descuentoimporte" = @9, "subtotalcondescuento" = @10, "totalsindescuento" = @11, "totalsindescuentoimp" = @12, "totaldescuentos" = @13, "totaldescuentoalimentos" = @14, "totaldescuentobebidas" = @15, "totaldescuentootros" = @16, "totalcortesias" = @17, "totalcortesiaalimentos" = @18, "totalcortesiabebidas" = @19, "totalcortesiaotros" = @20, "totaldescuentoycortesia" = @21, "totalalimentos" = @22, "totalbebidas" = @23, "totalotros" = @24, "totalalimentossindescuentos" = @25, "totalbebidassindescuentos" = @26, "totalotrossindescuentos" = @27, "totalarticulos" = @28, "totalconpropina" = @29, "totalconcargo" = @30, "totalconpropinacargo" = @31, "totalcondonativo" = @32, "totalconpropinacargodonativo" = @33 where "folio" = @34;
select count(*) as "n" from "registro_dispositivos";
select "ultimofolio" from "folios" with (tablockx) where "serie" = @1;
update "folios" set "ultimofolio" = @1 where "serie" = @2;
update "tempcheques" set "impreso" = @1, "numcheque" = @2, "cierre" = @3, "impresiones" = @4, "cambiorepartidor" = @5, "codigo_unico_af" = @6, "domicilioprogramado" = @7, "autorizacionfolio" = @8, "propinaincluida" = @9 where "folio" = @10;
select "t"."nopersonas", "m"."nombre" as "mesero", "e"."nombre" as "empresa", "e"."sucursal" from "tempcheques" as "t" left join "meseros" as "m" on "m"."idmesero" = "t"."idmesero" left join "empresas" as "e" on "e"."idempresa" = "t"."idempresa" where "t"."folio" = @1;
select "p"."idformadepago", "f"."descripcion", "p"."importe", "p"."propina", "p"."tipodecambio" from "tempchequespagos" as "p" left join "formasdepago" as "f" on "f"."idformadepago" = "p"."idformadepago" where "p"."folio" = @1 order by "p"."idformadepago";
insert into "ba_print_jobs" ("kind", "order_folio", "is_reprint", "price", "payment_method", "printed_at", "results") values (@1, @2, @3, @4, @5, @6, @7); select cast(scope_identity() as bigint) as "id";
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
update "ba_print_jobs" set "results" = @1 where "id" = @2;
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
