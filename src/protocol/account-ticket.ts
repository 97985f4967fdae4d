/**
 * The customer's ticket of an account, as data: the POS layer reads it in the account's print
 * (pos/operations/account-ticket.ts) and the printers render it (printing/escpos.ts); the agent
 * hands one to the other.
 */

/** One line of a customer's ticket: `importe` with tax, after the line's own discount ('' for a free modifier). */
export interface AccountTicketLine {
  cantidad: number;
  descripcion: string;
  importe: string;
  /** A modifier of the line above it (tempcheqdet.modificador): printed indented. */
  modificador: boolean;
}

/** A label and an amount already formatted to the cent (decimal text, never a float). */
export interface TicketAmount {
  label: string;
  amount: string;
}

/** The customer's ticket of an account (POST /temp_ordenes/{licenseKey}/{folio}/imprimir with printerId). */
export interface AccountTicket {
  businessName: string;
  businessSubtitle?: string;
  numcheque: number;
  folio: number;
  mesa: string;
  mesero: string;
  personas: number;
  isReprint: boolean;
  date: Date;
  lines: AccountTicketLine[];
  /** Subtotal, discounts, each tax and the total, in the order printed; the last is the total. */
  totals: TicketAmount[];
  /** The tenders already recorded on the account, each in pesos. */
  payments: TicketAmount[];
}
