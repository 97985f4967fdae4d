-- scenario 1: {"search":"efe"}
select count(*) as "total" from "formasdepago" where (lower("idformadepago") like @1 escape '\' or lower("descripcion") like @2 escape '\');
select "idformadepago", "descripcion", "tipo", "tipodecambio", "visible" from "formasdepago" where (lower("idformadepago") like @1 escape '\' or lower("descripcion") like @2 escape '\') order by "idformadepago" offset @3 rows fetch next @4 rows only;
