-- scenario 1: {"razon":"El cliente se fue","idMotivoCancela":"01","usuario":"CAJERO"}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
select "folio", "mesa", "idmesero", "estacion", "idempresa", "seriefolio", "tipodeservicio", "descuento", "numcheque", "impresiones", "reabiertas", "pagado", "cancelado", "impreso", "cuentaenuso" from "tempcheques" with (updlock, rowlock) where "folio" = @1;
select "usuario" from "usuarios" where "usuario" = @1;
select "idmotivocancela" from "motivoscancelacion" where "idmotivocancela" = @1;
select "idestacion", "cajacomandero", "usarturnoestacion", "seriefolio", "idarearestaurant", "idarearestaurantdomicilio", "idarearestaurantrapido" from "estaciones" where "idestacion" = @1;
select "idturno" from "turnos" where "idestacion" = @1 and "idempresa" = @2 and "idmesero" = @3 and "cierre" is null and "apertura" is not null order by "idturno" desc;
select "d"."movimiento", "d"."idproducto", "d"."cantidad", "d"."precio", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "p"."descripcion", "g"."clasificacion" from "tempcheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 order by "d"."movimiento";
delete from "tempcheqdet" where "foliodet" = @1 and "movimiento" in (@2);
insert into "tempcancela" ("foliocheque", "comanda", "cantidad", "clave", "razon", "fecha", "usuario", "precio", "idmotivocancela", "procesadosrx") values (@1, @2, @3, @4, @5, @6, @7, @8, @9, @10);
update "productosenproduccion" set "cancelado" = @1, "movimiento" = @2 where "folio" = @3 and "movimiento" in (@4);
update "tempcheques" set "subtotal" = @1, "subtotalsinimpuestos" = @2, "total" = @3, "totalimpuesto1" = @4, "totalimpuestod1" = @5, "totalimpuestod2" = @6, "totalimpuestod3" = @7, "descuento" = @8, "descuentoimporte" = @9, "subtotalcondescuento" = @10, "totalsindescuento" = @11, "totalsindescuentoimp" = @12, "totaldescuentos" = @13, "totaldescuentoalimentos" = @14, "totaldescuentobebidas" = @15, "totaldescuentootros" = @16, "totalcortesias" = @17, "totalcortesiaalimentos" = @18, "totalcortesiabebidas" = @19, "totalcortesiaotros" = @20, "totaldescuentoycortesia" = @21, "totalalimentos" = @22, "totalbebidas" = @23, "totalotros" = @24, "totalalimentossindescuentos" = @25, "totalbebidassindescuentos" = @26, "totalotrossindescuentos" = @27, "totalarticulos" = @28, "totalconpropina" = @29, "totalconcargo" = @30, "totalconpropinacargo" = @31, "totalcondonativo" = @32, "totalconpropinacargodonativo" = @33 where "folio" = @34;
select count(*) as "n" from "registro_dispositivos";
update "tempcheques" set "cancelado" = @1, "usuariocancelo" = @2, "fechacancelado" = @3, "razoncancelado" = @4, "idmotivocancela" = @5, "idturno" = @6 where "folio" = @7;
insert into "bitacorasistema" ("fecha", "tipoalerta", "enviado", "usuariosolicita", "usuario", "evento", "valores", "estacion", "idempresa", "seriefolio") values (@1, @2, @3, @4, @5, @6, @7, @8, @9, @10);
insert into "ba_event_origins" ("kind", "entity", "job_id", "created_at") values (@1, @2, @3, @4);
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
