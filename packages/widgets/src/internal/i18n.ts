import type { Lang } from '@resale/shared/lang';
/** The few texts the components own; everything else comes localised from the server. */


const en = {
  close: 'Close',
  ticket: 'ticket',
  tickets: 'tickets',
  noneForSale: 'none for sale',
  from: 'from',
  status_SELLABLE: 'Available to resell',
  status_NOT_SELLABLE: 'Not available for resale',
  status_FOR_SALE: 'On sale',
  status_SOLD: 'Sold',
  status_MIXED: 'Several states',
  resaleActions: 'Resale actions',
  categories: 'Resale tickets by category',
  seatingChart: 'Seating chart',
  areas: 'Areas',
  listings: 'Offers in {area}',
  chooseArea: 'Choose an area on the map to see its offers.',
  noListings: 'No offers in this area right now.',
  section: 'Section',
  row: 'Row',
  seat: 'Seat',
  perTicket: 'per ticket',
  select: 'Select',
  selected: 'Selected',
  continue: 'Continue',
  clear: 'Clear selection',
  selection: '{count} selected',
  nothingSelected: 'Nothing selected',
  added: 'Added {what}. {count} selected.',
  removed: 'Removed {what}. {count} selected.',
  refusedOption: 'One purchase stays within one ticket category. Clear your selection to choose another category.',
  refusedOrphan: 'These seats would leave a single empty seat in the row: add the seat next to them or choose others to continue.',
  notAvailable: 'not available',
};

type Messages = typeof en;
export type MessageKey = keyof Messages;

const es: Messages = {
  close: 'Cerrar',
  ticket: 'entrada',
  tickets: 'entradas',
  noneForSale: 'ninguna a la venta',
  from: 'desde',
  status_SELLABLE: 'Disponible para revender',
  status_NOT_SELLABLE: 'No disponible para reventa',
  status_FOR_SALE: 'En venta',
  status_SOLD: 'Vendida',
  status_MIXED: 'Varios estados',
  resaleActions: 'Acciones de reventa',
  categories: 'Entradas de reventa por categoría',
  seatingChart: 'Plano de asientos',
  areas: 'Zonas',
  listings: 'Ofertas en {area}',
  chooseArea: 'Elige una zona del plano para ver sus ofertas.',
  noListings: 'No hay ofertas en esta zona ahora.',
  section: 'Sector',
  row: 'Fila',
  seat: 'Asiento',
  perTicket: 'por entrada',
  select: 'Elegir',
  selected: 'Elegida',
  continue: 'Continuar',
  clear: 'Borrar selección',
  selection: '{count} elegidas',
  nothingSelected: 'Nada elegido',
  added: 'Añadido {what}. {count} elegidas.',
  removed: 'Quitado {what}. {count} elegidas.',
  refusedOption: 'Una compra se limita a una categoría de entrada. Borra tu selección para elegir otra categoría.',
  refusedOrphan: 'Estos asientos dejarían un asiento libre suelto en la fila: añade el de al lado o elige otros para continuar.',
  notAvailable: 'no disponible',
};

const MESSAGES: Record<Lang, Messages> = { en, es };

/**
 * `es` for any Spanish tag (`es`, `es-AR`), `en` otherwise. An empty value falls back to the
 * page's `<html lang>`, so a partner page in Spanish needs no attribute.
 */
export function resolveLang(value: string | null | undefined): Lang {
  const tag = (value || (typeof document === 'undefined' ? '' : document.documentElement.lang) || '').toLowerCase();
  return tag === 'es' || tag.startsWith('es-') ? 'es' : 'en';
}

/** A message with `{name}` placeholders filled. */
export function t(lang: Lang, key: MessageKey, vars?: Record<string, string | number>): string {
  let text = MESSAGES[lang][key];
  if (vars) for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`{${k}}`, String(v));
  return text;
}

/** "1 ticket", "12 tickets" (localised number and noun). */
export function ticketCount(lang: Lang, n: number): string {
  return `${new Intl.NumberFormat(lang).format(n)} ${t(lang, n === 1 ? 'ticket' : 'tickets')}`;
}

/**
 * A price in major units: with the currency symbol when the ISO code is known and valid, else
 * the bare number with two decimals (categories carry no currency).
 */
export function formatPrice(lang: Lang, amount: number, currency?: string | null): string {
  if (currency) {
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(amount);
    } catch {
      // An unknown code: fall through to the plain number rather than breaking the page.
    }
  }
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
}
