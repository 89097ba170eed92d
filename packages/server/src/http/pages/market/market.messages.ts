import { defineMessages } from '../../../lib/i18n.js';

/**
 * Texts of the market page, in English and Spanish. The page chrome and the 404 come from the
 * shared `t()` (lib/i18n.ts); the Buy button and the buy's refusals are the checkout's
 * (`cm`, checkout.messages.ts), as the checkout says the same.
 */
export const mm = defineMessages(
  {
    forSale: 'Tickets for sale',
    none: 'No tickets are for sale for this show right now.',
    shows: 'Other dates',
    perTicket: 'per ticket, fees included',
    tickets: '{n} tickets, sold together',
    shared: 'The ticket you were sent',
    cancelled: 'This show has been cancelled.',
    all: 'All categories',
    map: 'Seat map',
    selection: 'Your selection',
    selectionGone: 'Some of the tickets you picked are no longer for sale.',
    selectionTotal: 'Total, fees included',
    reserve: 'Reserve and pay',
    primarySoldOut: 'Sold out in the primary sale — resale is the official way to get tickets.',
    primaryAlmostSoldOut: 'Almost sold out in the primary sale — resale is the official way to get tickets.',
    strandsAlone: 'Bought on its own, this seat would leave a single empty seat beside it that nobody could buy.',
    buyWith: 'Buy with {place}',
    together: 'Together: {total}',
    pickOnMap: 'Choose it with the seats beside it on the seat map.',
    ownHoldTitle: 'You have tickets reserved',
    ownHoldOne: '1 ticket is reserved for you until {time}.',
    ownHoldOther: '{n} tickets are reserved for you until {time}.',
    continueCheckout: 'Continue to checkout',
    release: 'Release them',
    othersHoldOne: '1 ticket is reserved by another fan right now: if they do not pay, it may be back at {time}.',
    othersHoldOther: '{n} tickets are reserved by other fans right now: if they do not pay, they may be back at {time}.',
    released: 'Released: the tickets are for sale again.',
    pickExpiredTitle: 'Your pick has expired',
    pickExpiredText: 'More than 15 minutes passed since you pressed Buy, so nothing was reserved: the tickets may have changed. Choose them again on the market.',
    pickForeignTitle: 'This link holds nothing here',
    pickForeignText: 'It continues a Buy pressed in another browser, or it was changed. Nothing was reserved: choose the tickets on the market.',
  },
  {
    forSale: 'Entradas a la venta',
    none: 'Ahora mismo no hay entradas a la venta para este espectáculo.',
    shows: 'Otras fechas',
    perTicket: 'por entrada, gastos incluidos',
    tickets: '{n} entradas, se venden juntas',
    shared: 'La entrada que te han enviado',
    cancelled: 'Este espectáculo se ha cancelado.',
    all: 'Todas las categorías',
    map: 'Mapa de asientos',
    selection: 'Tu selección',
    selectionGone: 'Algunas de las entradas que elegiste ya no están a la venta.',
    selectionTotal: 'Total, gastos incluidos',
    reserve: 'Reservar y pagar',
    primarySoldOut: 'Agotado en la venta oficial: la reventa es la forma oficial de conseguir entradas.',
    primaryAlmostSoldOut: 'Casi agotado en la venta oficial: la reventa es la forma oficial de conseguir entradas.',
    strandsAlone: 'Comprada sola, esta entrada dejaría a su lado un asiento libre suelto que nadie podría comprar.',
    buyWith: 'Comprar con {place}',
    together: 'Juntas: {total}',
    pickOnMap: 'Elígela con los asientos de al lado en el mapa de asientos.',
    ownHoldTitle: 'Tienes entradas reservadas',
    ownHoldOne: 'Tienes 1 entrada reservada hasta las {time}.',
    ownHoldOther: 'Tienes {n} entradas reservadas hasta las {time}.',
    continueCheckout: 'Continuar con el pago',
    release: 'Liberarlas',
    othersHoldOne: 'Otro fan tiene 1 entrada reservada ahora mismo: si no paga, puede volver a estar a la venta a las {time}.',
    othersHoldOther: 'Otros fans tienen {n} entradas reservadas ahora mismo: si no pagan, pueden volver a estar a la venta a las {time}.',
    released: 'Liberadas: las entradas vuelven a estar a la venta.',
    pickExpiredTitle: 'Tu selección ha caducado',
    pickExpiredText: 'Han pasado más de 15 minutos desde que pulsaste Comprar, así que no se ha reservado nada: las entradas pueden haber cambiado. Elígelas de nuevo en el mercado.',
    pickForeignTitle: 'Este enlace no reserva nada aquí',
    pickForeignText: 'Continúa una compra iniciada en otro navegador, o se ha modificado. No se ha reservado nada: elige las entradas en el mercado.',
  },
);

/** What the market page says when a pick would strand a seat (the widget says the same on the map). */
export const orphanSeatMessages = defineMessages(
  {
    title: 'Nothing was reserved: a single seat would be left empty',
    text: 'These tickets would leave one empty seat on its own in the row, which cannot be sold. Add the seat next to them, or choose others, on the seat map. Nothing was reserved.',
  },
  {
    title: 'No se ha reservado nada: quedaría un asiento suelto',
    text: 'Estas entradas dejarían un asiento libre solo en la fila, que no se podría vender. Añade el asiento de al lado, o elige otros, en el mapa de asientos. No se ha reservado nada.',
  },
);
