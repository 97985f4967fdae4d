-- scenario 1: {}
select "idempresa", "nombre", "razonsocial", "rfc" from "empresas" order by "idempresa";
