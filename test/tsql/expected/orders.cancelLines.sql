-- scenario 1: {"productos":[{"movimiento":1,"idProducto":"3001"}],"razon":"Error de captura","usuario":"CAJERO"}
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "forzarmotivocancela", "nopermitircerrarturnocuentasabiertas", "nodescargarinventario" from "configuracion";
select "forzartipodescuento" from "parametros";
select "forzardescuento" from "parametros3";
select "usuario" from "usuarios" where "usuario" = @1;
select "d"."movimiento", "d"."idproducto", "d"."cantidad", "d"."precio", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "p"."descripcion", "g"."clasificacion" from "tempcheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 order by "d"."movimiento";
delete from "tempcheqdet" where "foliodet" = @1 and "movimiento" in (@2, @3);
insert into "tempcancela" ("foliocheque", "comanda", "cantidad", "clave", "razon", "fecha", "usuario", "precio", "idmotivocancela", "procesadosrx") values (@1, @2, @3, @4, @5, @6, @7, @8, @9, @10), (@11, @12, @13, @14, @15, @16, @17, @18, @19, @20);
update "productosenproduccion" set "cancelado" = @1, "movimiento" = @2 where "folio" = @3 and "movimiento" in (@4, @5);
update "tempcheqdet" set "movimiento" = @1 where "foliodet" = @2 and "movimiento" = @3;
update "productosenproduccion" set "movimiento" = @1 where "folio" = @2 and "movimiento" = @3 and ("cancelado" = @4 or "cancelado" is null);
insert into "bitacorasistema" ("fecha", "tipoalerta", "enviado", "usuariosolicita", "usuario", "evento", "valores", "estacion", "idempresa", "seriefolio") values (@1, @2, @3, @4, @5, @6, @7, @8, @9, @10);
update "tempcheques" set "subtotal" = @1, "subtotalsinimpuestos" = @2, "total" = @3, "totalimpuesto1" = @4, "totalimpuestod1" = @5, "totalimpuestod2" = @6, "totalimpuestod3" = @7, "descuento" = @8, "descuentoimporte" = @9, "subtotalcondescuento" = @10, "totalsindescuento" = @11, "totalsindescuentoimp" = @12, "totaldescuentos" = @13, "totaldescuentoalimentos" = @14, "totaldescuentobebidas" = @15, "totaldescuentootros" = @16, "totalcortesias" = @17, "totalcortesiaalimentos" = @18, "totalcortesiabebidas" = @19, "totalcortesiaotros" = @20, "totaldescuentoycortesia" = @21, "totalalimentos" = @22, "totalbebidas" = @23, "totalotros" = @24, "totalalimentossindescuentos" = @25, "totalbebidassindescuentos" = @26, "totalotrossindescuentos" = @27, "totalarticulos" = @28, "totalconpropina" = @29, "totalconcargo" = @30, "totalconpropinacargo" = @31, "totalcondonativo" = @32, "totalconpropinacargodonativo" = @33 where "folio" = @34;
select count(*) as "n" from "registro_dispositivos";
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @1, @2, @3, @4, @5, @6, @7 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @8 and idem_key = @9);
