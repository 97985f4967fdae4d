-- scenario 1: {"search":"caja"}
select count(*) as "total" from "estaciones" where (lower("idestacion") like @1 escape '\' or lower("descripcion") like @2 escape '\');
select "idestacion", "descripcion", "serie", "seriefolio", "ip" from "estaciones" where (lower("idestacion") like @1 escape '\' or lower("descripcion") like @2 escape '\') order by "idestacion" offset @3 rows fetch next @4 rows only;
