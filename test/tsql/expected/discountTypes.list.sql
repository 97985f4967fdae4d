-- scenario 1: {}
select "idtipodescuento", "desc_tipodescuento", "descuento", "activar_maximo_descuento" from "tipodescuento" where "Visible" = @1 order by "idtipodescuento";
