-- scenario 1: {}
select count(*) as "n" from "turnos" where "cierre" is not null;
select count(*) as "total" from "cheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo";
select "d"."foliodet", "d"."movimiento", "d"."idproducto", "p"."descripcion", "g"."clasificacion", "d"."cantidad", "d"."precio", "d"."preciosinimpuestos", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "d"."comentario", "d"."hora" from "cheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" order by "d"."foliodet", "d"."movimiento" offset @1 rows fetch next @2 rows only;
select count(*) as "n" from "turnos" where "cierre" is not null;

-- scenario 2: {"search":"guacamole"}
select count(*) as "n" from "turnos" where "cierre" is not null;
select count(*) as "total" from "cheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 and (lower("d"."idproducto") like @2 escape '\' or lower("p"."descripcion") like @3 escape '\' or lower("d"."comentario") like @4 escape '\');
select "d"."foliodet", "d"."movimiento", "d"."idproducto", "p"."descripcion", "g"."clasificacion", "d"."cantidad", "d"."precio", "d"."preciosinimpuestos", "d"."impuesto1", "d"."impuesto2", "d"."impuesto3", "d"."descuento", "d"."modificador", "d"."comentario", "d"."hora" from "cheqdet" as "d" left join "productos" as "p" on "p"."idproducto" = "d"."idproducto" left join "grupos" as "g" on "g"."idgrupo" = "p"."idgrupo" where "d"."foliodet" = @1 and (lower("d"."idproducto") like @2 escape '\' or lower("p"."descripcion") like @3 escape '\' or lower("d"."comentario") like @4 escape '\') order by "d"."foliodet", "d"."movimiento" offset @5 rows fetch next @6 rows only;
select count(*) as "n" from "turnos" where "cierre" is not null;
