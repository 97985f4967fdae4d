-- scenario 1: {"search":"juan"}
select "idmesero", "nombre", "visible" from "meseros" where (lower("idmesero") like @1 escape '\' or lower("nombre") like @2 escape '\') order by "idmesero";
