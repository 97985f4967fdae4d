/** The demo branches' menu: a small Mexican restaurant, prices with IVA 16 % included. */

export interface DemoGroup {
  idgrupo: string;
  descripcion: string;
  clasificacion: 1 | 2 | 3;
}

export interface DemoProduct {
  idproducto: string;
  descripcion: string;
  nombrecorto: string;
  idgrupo: string;
  precio: string;
  visible?: boolean;
  bloqueado?: boolean;
}

export const DEMO_GROUPS: DemoGroup[] = [
  { idgrupo: 'BEB', descripcion: 'Bebidas', clasificacion: 1 },
  { idgrupo: 'BAR', descripcion: 'Bar y coctelería', clasificacion: 1 },
  { idgrupo: 'ENT', descripcion: 'Entradas', clasificacion: 2 },
  { idgrupo: 'PLA', descripcion: 'Platos fuertes', clasificacion: 2 },
  { idgrupo: 'POS', descripcion: 'Postres', clasificacion: 2 },
  { idgrupo: 'MOD', descripcion: 'Modificadores', clasificacion: 3 },
  { idgrupo: 'OTR', descripcion: 'Otros (souvenirs)', clasificacion: 3 },
];

export const DEMO_PRODUCTS: DemoProduct[] = [
  { idproducto: '1001', descripcion: 'Café americano', nombrecorto: 'Americano', idgrupo: 'BEB', precio: '35.00' },
  { idproducto: '1002', descripcion: 'Café con leche', nombrecorto: 'Café leche', idgrupo: 'BEB', precio: '42.00' },
  { idproducto: '1003', descripcion: 'Agua de jamaica 1 L', nombrecorto: 'Jamaica', idgrupo: 'BEB', precio: '38.50' },
  { idproducto: '1004', descripcion: 'Agua de horchata 1 L', nombrecorto: 'Horchata', idgrupo: 'BEB', precio: '38.50' },
  { idproducto: '1005', descripcion: 'Refresco de cola 355 ml', nombrecorto: 'Refresco', idgrupo: 'BEB', precio: '29.90' },
  { idproducto: '1006', descripcion: 'Jugo de naranja natural', nombrecorto: 'Jugo naranja', idgrupo: 'BEB', precio: '45.00' },
  { idproducto: '1007', descripcion: 'Chocolate caliente', nombrecorto: 'Chocolate', idgrupo: 'BEB', precio: '48.00' },
  { idproducto: '1101', descripcion: 'Cerveza clara 355 ml', nombrecorto: 'Cerveza', idgrupo: 'BAR', precio: '55.00' },
  { idproducto: '1102', descripcion: 'Michelada', nombrecorto: 'Michelada', idgrupo: 'BAR', precio: '79.00' },
  { idproducto: '1103', descripcion: 'Piña colada', nombrecorto: 'Piña colada', idgrupo: 'BAR', precio: '115.00' },
  { idproducto: '1104', descripcion: 'Margarita de limón', nombrecorto: 'Margarita', idgrupo: 'BAR', precio: '120.00' },
  { idproducto: '1105', descripcion: 'Botella tequila reposado 750 ml', nombrecorto: 'Bot. tequila', idgrupo: 'BAR', precio: '1500.00' },
  { idproducto: '2001', descripcion: 'Guacamole con totopos', nombrecorto: 'Guacamole', idgrupo: 'ENT', precio: '95.00' },
  { idproducto: '2002', descripcion: 'Queso fundido con chorizo', nombrecorto: 'Queso fundido', idgrupo: 'ENT', precio: '110.00' },
  { idproducto: '2003', descripcion: 'Sopa de tortilla', nombrecorto: 'Sopa tortilla', idgrupo: 'ENT', precio: '78.00' },
  { idproducto: '2004', descripcion: 'Esquites', nombrecorto: 'Esquites', idgrupo: 'ENT', precio: '49.00' },
  { idproducto: '2005', descripcion: 'Quesadilla de flor de calabaza', nombrecorto: 'Quesadilla', idgrupo: 'ENT', precio: '58.00' },
  { idproducto: '3001', descripcion: 'Tacos al pastor (3 pzas)', nombrecorto: 'Tacos pastor', idgrupo: 'PLA', precio: '89.00' },
  { idproducto: '3002', descripcion: 'Enchiladas suizas', nombrecorto: 'Ench. suizas', idgrupo: 'PLA', precio: '135.00' },
  { idproducto: '3003', descripcion: 'Chiles en nogada', nombrecorto: 'Ch. nogada', idgrupo: 'PLA', precio: '245.00' },
  { idproducto: '3004', descripcion: 'Mole poblano con pollo', nombrecorto: 'Mole poblano', idgrupo: 'PLA', precio: '165.00' },
  { idproducto: '3005', descripcion: 'Arrachera 300 g', nombrecorto: 'Arrachera', idgrupo: 'PLA', precio: '289.00' },
  { idproducto: '3006', descripcion: 'Pescado a la talla', nombrecorto: 'Pesc. talla', idgrupo: 'PLA', precio: '259.00' },
  { idproducto: '3007', descripcion: 'Pozole rojo grande', nombrecorto: 'Pozole', idgrupo: 'PLA', precio: '129.00' },
  { idproducto: '3008', descripcion: 'Chilaquiles verdes con huevo', nombrecorto: 'Chilaquiles', idgrupo: 'PLA', precio: '112.50' },
  { idproducto: '3009', descripcion: 'Cochinita pibil', nombrecorto: 'Cochinita', idgrupo: 'PLA', precio: '139.00', bloqueado: true },
  { idproducto: '4001', descripcion: 'Flan napolitano', nombrecorto: 'Flan', idgrupo: 'POS', precio: '55.00' },
  { idproducto: '4002', descripcion: 'Churros con cajeta', nombrecorto: 'Churros', idgrupo: 'POS', precio: '65.00' },
  { idproducto: '4003', descripcion: 'Pastel tres leches', nombrecorto: 'Tres leches', idgrupo: 'POS', precio: '72.00' },
  { idproducto: '4004', descripcion: 'Arroz con leche', nombrecorto: 'Arroz leche', idgrupo: 'POS', precio: '45.00', visible: false },
  { idproducto: '9001', descripcion: 'Sin cebolla', nombrecorto: 'Sin cebolla', idgrupo: 'MOD', precio: '0.00' },
  { idproducto: '9002', descripcion: 'Extra queso', nombrecorto: 'Extra queso', idgrupo: 'MOD', precio: '15.00' },
  { idproducto: '9003', descripcion: 'Salsa aparte', nombrecorto: 'Salsa aparte', idgrupo: 'MOD', precio: '0.00' },
  { idproducto: '9004', descripcion: 'Término medio', nombrecorto: 'Término medio', idgrupo: 'MOD', precio: '0.00' },
  { idproducto: '9501', descripcion: 'Taza de barro 100% mexicana', nombrecorto: 'Taza barro', idgrupo: 'OTR', precio: '150.00' },
];

/** Which modifiers each base product offers (SR's `modificadores`). */
export const DEMO_MODIFIERS: Array<[base: string, modifier: string]> = [
  ['3001', '9001'],
  ['3001', '9003'],
  ['3002', '9002'],
  ['3005', '9004'],
  ['2005', '9002'],
  // A product registered as a modifier of itself: SR keeps this price equal to the product's.
  ['9002', '9002'],
];

/** The kitchen monitors (monitoresproduccion) and where each group's products show. */
export const DEMO_MONITORS = [
  { idmonitor: '01', descripcion: 'Cocina' },
  { idmonitor: '02', descripcion: 'Barra' },
];
export const MONITOR_OF_GROUP: Record<string, string | undefined> = { BEB: '02', BAR: '02', ENT: '01', PLA: '01', POS: '01', MOD: '01' };

/** Supplies (insumos) kept in stock, with their average cost per unit. */
export const DEMO_SUPPLIES = [
  { idinsumo: 'TORTILLA', descripcion: 'Tortilla de maíz', unidad: 'PZA', costopromedio: '0.8000' },
  { idinsumo: 'PASTOR', descripcion: 'Carne al pastor', unidad: 'KG', costopromedio: '160.0000' },
  { idinsumo: 'REFRESCO', descripcion: 'Refresco de cola 355 ml', unidad: 'PZA', costopromedio: '9.5000' },
  { idinsumo: 'CAFE', descripcion: 'Café molido', unidad: 'KG', costopromedio: '320.0000' },
];

/** Recipes (costos): what one unit of a product takes from stock. */
export const DEMO_RECIPES: Array<[idproducto: string, idinsumo: string, cantidad: string]> = [
  ['3001', 'TORTILLA', '3'],
  ['3001', 'PASTOR', '0.1500'],
  ['1005', 'REFRESCO', '1'],
  ['1001', 'CAFE', '0.0150'],
];
