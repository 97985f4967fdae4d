-- scenario 1: {"search":"caja"}
select count(*) as "total" from "estaciones" where (lower("idestacion") like @1 escape '\' or lower("descripcion") like @2 escape '\');
select count(*) as "total" from "areasrestaurant" where (lower("idarearestaurant") like @1 escape '\' or lower("descripcion") like @2 escape '\');
select count(*) as "total" from "mesas" as "m" where lower("m"."idmesa") like @1 escape '\';
select "idestacion", "descripcion", "serie", "seriefolio", "ip" from "estaciones" where (lower("idestacion") like @1 escape '\' or lower("descripcion") like @2 escape '\') order by "idestacion" offset @3 rows fetch next @4 rows only;

-- scenario 2: {"pageSize":100}
select count(*) as "total" from "estaciones";
select count(*) as "total" from "areasrestaurant";
select count(*) as "total" from "mesas" as "m";
select "idestacion", "descripcion", "serie", "seriefolio", "ip" from "estaciones" order by "idestacion" offset @1 rows fetch next @2 rows only;
select "idarearestaurant", "descripcion", "idtiposervicio" from "areasrestaurant" order by "idarearestaurant" offset @1 rows fetch next @2 rows only;
select "m"."idmesa", "m"."idarearestaurant", "m"."personas", (select min("tc"."folio") as "folio" from "tempcheques" as "tc" where "tc"."tipodeservicio" = @1 and upper(rtrim("tc"."mesa")) = upper(rtrim("m"."idmesa")) and ("tc"."pagado" = @2 or "tc"."pagado" is null) and ("tc"."cancelado" = @3 or "tc"."cancelado" is null)) as "folio" from "mesas" as "m" order by "m"."idmesa", "m"."idmesasistema" offset @4 rows fetch next @5 rows only;
