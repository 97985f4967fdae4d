-- scenario 1: {"search":"bebidas"}
select count(*) as "total" from "grupos" where (lower("idgrupo") like @1 escape '\' or lower("descripcion") like @2 escape '\' or "clasificacion" in (@3));
select "idgrupo", "descripcion", "clasificacion" from "grupos" where (lower("idgrupo") like @1 escape '\' or lower("descripcion") like @2 escape '\' or "clasificacion" in (@3)) order by "idgrupo" offset @4 rows fetch next @5 rows only;
