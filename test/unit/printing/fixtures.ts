import type { KitchenTicket, TestTicket } from '../../../src/printing/ticket.js';

/** Mexico City has had no daylight saving time since 2022, so its offset is fixed at -06:00. */
export const TIME_ZONE = 'America/Mexico_City';

export const ORDER_DATE = new Date('2025-03-05T20:07:00Z');

export const kitchenTicket: KitchenTicket = {
  businessName: 'Cafetería La Piña',
  businessSubtitle: 'Sucursal Centro',
  title: 'COCINA',
  orderFolio: 'A-1024',
  isReprint: false,
  date: ORDER_DATE,
  orderNote: '¡Urgente! Cliente alérgico a la nuez, preparar por separado',
  lines: [
    {
      cantidad: 2,
      descripcion: 'Café con leche',
      modificadores: ['Leche deslactosada', 'Extra canela'],
      comentario: '¿Sin azúcar?',
    },
    { cantidad: 1, descripcion: 'Agua fresca de Piña natural, tamaño grande' },
    { cantidad: 12, descripcion: 'Jalapeño relleno de queso', comentario: 'Bien dorados, € 12 extra' },
  ],
};

export const reprintTicket: KitchenTicket = { ...kitchenTicket, isReprint: true, title: 'BARRA' };

export const testTicket: TestTicket = {
  title: 'PRUEBA',
  message: 'IMPRESORA OK - IGNORAR',
  printerName: 'Cocina caliente',
  date: ORDER_DATE,
};

export const labelTicket: KitchenTicket = {
  businessName: 'Cafetería La Piña',
  orderFolio: 'B-77',
  isReprint: false,
  date: ORDER_DATE,
  lines: [
    { cantidad: 3, descripcion: 'Café con leche', modificadores: ['Leche de "almendra"'], comentario: '¿Sin azúcar?' },
    { cantidad: 1, descripcion: 'Piña colada' },
  ],
};
