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
  // Tickets held in checkouts (held.ts). {count} is "1 ticket" / "2 tickets".
  held_others_one: 'Reserved by another fan',
  held_others_other: 'Reserved by other fans',
  held_any_one: 'Reserved in a checkout',
  held_any_other: 'Reserved in checkouts',
  heldCount_others_one: '{count} reserved by another fan',
  heldCount_others_other: '{count} reserved by other fans',
  heldCount_any_one: '{count} reserved in a checkout',
  heldCount_any_other: '{count} reserved in checkouts',
  backAt_one: 'may be back at {time}',
  backAt_other: 'may be back at {time}',
  backSoon_one: 'may be back any moment',
  backSoon_other: 'may be back any moment',
  yourHold_one: 'You have {count} reserved',
  yourHold_other: 'You have {count} reserved',
  holdLeft: '({time} left)',
  continueCheckout: 'Continue to checkout',
  release_one: 'Release it',
  release_other: 'Release them',
  holdUnderFiveMinutes: 'Less than 5 minutes left to pay for your reserved tickets.',
  holdUnderOneMinute: 'Less than a minute left to pay for your reserved tickets.',
  holdEnded: 'Your reservation has ended',
  // The show's waiting list (waiting.ts). {count} is "1 ticket" / "2 tickets".
  waitingJoin: 'Join the waiting list',
  waitingFans_one: '{n} fan waiting',
  waitingFans_other: '{n} fans waiting',
  waitingPlace: 'You are #{position} in line for {count}.',
  waitingPlaceLink: 'See your place',
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
  held_others_one: 'Reservada por otro fan',
  held_others_other: 'Reservadas por otros fans',
  held_any_one: 'Reservada en una compra en curso',
  held_any_other: 'Reservadas en compras en curso',
  heldCount_others_one: '{count} reservada por otro fan',
  heldCount_others_other: '{count} reservadas por otros fans',
  heldCount_any_one: '{count} reservada en una compra en curso',
  heldCount_any_other: '{count} reservadas en compras en curso',
  backAt_one: 'puede volver a la venta a las {time}',
  backAt_other: 'pueden volver a la venta a las {time}',
  backSoon_one: 'puede volver a la venta en cualquier momento',
  backSoon_other: 'pueden volver a la venta en cualquier momento',
  yourHold_one: 'Tienes {count} reservada',
  yourHold_other: 'Tienes {count} reservadas',
  holdLeft: '(quedan {time})',
  continueCheckout: 'Continuar con el pago',
  release_one: 'Liberarla',
  release_other: 'Liberarlas',
  holdUnderFiveMinutes: 'Quedan menos de 5 minutos para pagar tus entradas reservadas.',
  holdUnderOneMinute: 'Queda menos de un minuto para pagar tus entradas reservadas.',
  holdEnded: 'Tu reserva ha terminado',
  waitingJoin: 'Apuntarme a la lista de espera',
  waitingFans_one: '{n} persona en espera',
  waitingFans_other: '{n} personas en espera',
  waitingPlace: 'Eres el n.º {position} de la lista de espera para {count}.',
  waitingPlaceLink: 'Ver tu lugar',
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
