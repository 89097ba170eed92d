import type { Lang } from '@resale/shared/lang';
import { defineMessages } from '../../../lib/i18n.js';

/** Texts of the hosted checkout, in English and Spanish. */
export const cm = defineMessages(
  {
    title: 'Checkout',
    reservedUntil: 'These tickets are reserved for you until {time}.',
    perTicket: '{price} + {fee} fee per ticket',
    total: 'Total',
    payTitle: 'Pay by card',
    cardNumber: 'Card number',
    expiry: 'Expiry date (MM/YY)',
    expiryPlaceholder: 'MM/YY',
    securedBy: 'Secure payment by {provider}: your card goes to them, never to this page’s owner.',
    securedSandbox: 'Test payment by the sandbox: no money moves.',
    receiptTo: 'We will e-mail the receipt to {email}.',
    cvc: 'Security code',
    pay: 'Pay {amount}',
    sandbox: 'Sandbox: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0025 0000 3155 asks for verification. Any future date and any CVC.',
    badCard: 'Enter a valid card number.',
    badExpiry: 'Enter the expiry date as MM/YY, for example 12/29.',
    badCvc: 'Enter the 3 or 4 digit security code.',
    declinedTitle: 'Your card was declined',
    declined_card_declined: 'the bank declined the card.',
    declined_authentication_failed: 'the card’s verification was not completed.',
    declined_other: 'the payment was refused.',
    endedTitle: 'This reservation has ended',
    endedText: 'The time to pay ran out or the reservation was cancelled. The tickets may still be available.',
    movedTitle: 'These tickets are no longer available',
    movedText: 'A ticket in your reservation changed hands, so nothing will be charged. Please choose other tickets.',
    notYoursTitle: 'This checkout is someone else’s',
    notYoursText: 'Sign in with the account that started it, or choose the tickets again.',
    takenTitle: 'Someone else is buying these tickets',
    takenText: 'Please choose other tickets or try again in a few minutes.',
    verifyTitle: 'Confirm the payment',
    verifyText: 'Your bank asks you to confirm this payment of {amount}.',
    approve: 'Confirm',
    reject: 'Cancel payment',
    doneTitle: 'Thank you: the tickets are yours',
    doneText: 'We have sent you a confirmation. The ticketing site moves the tickets to your account.',
    backToMarket: 'Back to the tickets for sale',
    backToSite: 'Back to the ticketing site',
    buy: 'Buy',
    riskTitle: 'We could not accept this payment',
    riskText: 'For your security this purchase was stopped and nothing was charged. The tickets are available again. If you think this is a mistake, contact the ticketing site.',
    ownListingTitle: 'You cannot buy your own tickets',
    ownListingText: 'These tickets are on sale from your own account, so the reservation was cancelled and they are for sale again. To take them off sale, open your listing.',
    ownListingPickText: 'These tickets are on sale from your own account, so nothing was reserved. To take them off sale, open your listing.',
    delistedTitle: 'The organiser took these tickets off sale',
    delistedText: 'The organiser withdrew these tickets from resale while you were checking out. Nothing was charged.',
    withdrawnTitle: 'The seller took these tickets off sale',
    withdrawnText: 'These tickets were withdrawn from sale while you were checking out. Nothing was charged.',
    holdLimitTitle: 'You already have tickets on hold',
    holdsPerBuyer: 'You have {n} reservations waiting for payment. Pay for one or let it end before you reserve more tickets.',
    heldTicketsPerShow: 'You can hold at most {n} tickets for this show at once. Pay for the tickets you hold or let that reservation end first.',
    holdsPerAddress: 'Too many reservations are waiting for payment from your connection. Try again in {minutes} minutes.',
    continueCheckout: 'Continue your checkout',
    summaryTitle: 'Order summary',
    ticketsTitle: 'Tickets',
    faceValue: 'Face value {price} per ticket',
    priceLine: 'Price ({n} × {price})',
    feesLine: 'Service fee ({n} × {fee})',
    breakdown: 'What you pay',
    timeLeft: 'left to pay',
    countdownOne: '{n} minute left to pay',
    countdownOther: '{n} minutes left to pay',
    countdownEnded: 'The time to pay has run out.',
    countdownReload: 'Reload the page to see whether the tickets are still available.',
    cardName: 'Name on card (optional)',
    badName: 'Enter the name as printed on the card, in at most 100 characters.',
    expiredCard: 'This card has expired. Check the date or use another card.',
    expiryTooFar: 'Check the expiry date: it is too far in the future.',
    errorSummaryTitle: 'There is a problem',
    declinedRetry: 'Nothing was charged: {why} Your tickets are still reserved for you: try again with another card.',
    notConfirmedTitle: 'The payment was not confirmed',
    declined_incorrect_number: 'the card number is not valid.',
    declined_expired_card: 'the card has expired.',
    attemptsLeftOne: 'You can try {n} more time.',
    attemptsLeftOther: 'You can try {n} more times.',
    tooManyTitle: 'Too many declined payments',
    tooManyText: 'For your security this reservation was cancelled after several declined payments. Nothing was charged, and the tickets are available again.',
    orderReference: 'Order reference',
    paidOn: 'Paid on',
    paidWith: 'Paid with',
    cardEnding: 'Card ending in {last4}',
    walletCardEnding: '{wallet}, card ending in {last4}',
    amountPaid: 'Amount paid',
    yourTickets: 'Your tickets',
    viewTicket: 'View ticket',
    ticketMovedOn: 'This ticket is no longer in your account.',
    receiptKeep: 'This receipt stays at this address for you: bookmark it, or find it from the link in the confirmation.',
    refunded: 'Refunded',
    payHostedTitle: 'Payment',
    payHostedNoScript: 'The payment form needs JavaScript. Turn it on for this page, or pay from another browser: your tickets stay reserved until the time above.',
    payHostedLoadFailed: 'The payment form could not be loaded. Check your connection and reload the page: your tickets stay reserved until the time above.',
    providerUnavailableTitle: 'Payments are unavailable for a moment',
    providerUnavailableText: 'Nothing was charged and your tickets are still reserved. Try again in a minute.',
    confirmingTitle: 'Confirming your payment',
    confirmingText: 'Your bank has answered; we are waiting for the payment provider to confirm. This page checks again every few seconds.',
    checkAgain: 'Check again',
  },
  {
    title: 'Pago',
    reservedUntil: 'Estas entradas están reservadas para ti hasta el {time}.',
    perTicket: '{price} + {fee} de gastos por entrada',
    total: 'Total',
    payTitle: 'Paga con tarjeta',
    cardNumber: 'Número de tarjeta',
    expiry: 'Caducidad (MM/AA)',
    expiryPlaceholder: 'MM/AA',
    securedBy: 'Pago seguro con {provider}: tu tarjeta va a ellos, nunca al dueño de esta página.',
    securedSandbox: 'Pago de prueba en el sandbox: no se mueve dinero.',
    receiptTo: 'Enviaremos el recibo a {email}.',
    cvc: 'Código de seguridad',
    pay: 'Pagar {amount}',
    sandbox: 'Pruebas: 4242 4242 4242 4242 se acepta, 4000 0000 0000 0002 se rechaza, 4000 0025 0000 3155 pide verificación. Cualquier fecha futura y cualquier CVC.',
    badCard: 'Escribe un número de tarjeta válido.',
    badExpiry: 'Escribe la caducidad como MM/AA, por ejemplo 12/29.',
    badCvc: 'Escribe el código de seguridad de 3 o 4 cifras.',
    declinedTitle: 'Tu tarjeta ha sido rechazada',
    declined_card_declined: 'el banco ha rechazado la tarjeta.',
    declined_authentication_failed: 'no se completó la verificación de la tarjeta.',
    declined_other: 'el pago ha sido rechazado.',
    endedTitle: 'Esta reserva ha terminado',
    endedText: 'Se acabó el tiempo para pagar o la reserva se canceló. Puede que las entradas sigan disponibles.',
    movedTitle: 'Estas entradas ya no están disponibles',
    movedText: 'Una entrada de tu reserva ha cambiado de titular, así que no se cobrará nada. Elige otras entradas.',
    notYoursTitle: 'Este pago es de otra persona',
    notYoursText: 'Entra con la cuenta que lo empezó o vuelve a elegir las entradas.',
    takenTitle: 'Otra persona está comprando estas entradas',
    takenText: 'Elige otras entradas o vuelve a intentarlo en unos minutos.',
    verifyTitle: 'Confirma el pago',
    verifyText: 'Tu banco te pide que confirmes este pago de {amount}.',
    approve: 'Confirmar',
    reject: 'Cancelar el pago',
    doneTitle: 'Gracias: las entradas son tuyas',
    doneText: 'Te hemos enviado una confirmación. La web de venta pasa las entradas a tu cuenta.',
    backToMarket: 'Volver a las entradas a la venta',
    backToSite: 'Volver a la web de venta',
    buy: 'Comprar',
    riskTitle: 'No hemos podido aceptar este pago',
    riskText: 'Por tu seguridad hemos detenido esta compra y no se ha cobrado nada. Las entradas vuelven a estar disponibles. Si crees que es un error, contacta con la web de venta.',
    ownListingTitle: 'No puedes comprar tus propias entradas',
    ownListingText: 'Estas entradas las vende tu propia cuenta, así que la reserva se ha cancelado y vuelven a estar a la venta. Para retirarlas, abre tu anuncio.',
    ownListingPickText: 'Estas entradas las vende tu propia cuenta, así que no se ha reservado nada. Para retirarlas, abre tu anuncio.',
    delistedTitle: 'El organizador ha retirado estas entradas',
    delistedText: 'El organizador retiró estas entradas de la reventa mientras pagabas. No se ha cobrado nada.',
    withdrawnTitle: 'El vendedor ha retirado estas entradas',
    withdrawnText: 'Estas entradas se retiraron de la venta mientras pagabas. No se ha cobrado nada.',
    holdLimitTitle: 'Ya tienes entradas reservadas',
    holdsPerBuyer: 'Tienes {n} reservas pendientes de pago. Paga una o deja que termine antes de reservar más entradas.',
    heldTicketsPerShow: 'Puedes reservar como máximo {n} entradas de este espectáculo a la vez. Paga las que tienes reservadas o deja que termine esa reserva.',
    holdsPerAddress: 'Hay demasiadas reservas pendientes de pago desde tu conexión. Vuelve a intentarlo dentro de {minutes} minutos.',
    continueCheckout: 'Continuar con tu pago',
    summaryTitle: 'Resumen del pedido',
    ticketsTitle: 'Entradas',
    faceValue: 'Valor facial {price} por entrada',
    priceLine: 'Precio ({n} × {price})',
    feesLine: 'Gastos de gestión ({n} × {fee})',
    breakdown: 'Lo que pagas',
    timeLeft: 'para pagar',
    countdownOne: 'Queda {n} minuto para pagar',
    countdownOther: 'Quedan {n} minutos para pagar',
    countdownEnded: 'Se ha acabado el tiempo para pagar.',
    countdownReload: 'Recarga la página para ver si las entradas siguen disponibles.',
    cardName: 'Nombre en la tarjeta (opcional)',
    badName: 'Escribe el nombre como aparece en la tarjeta, en 100 caracteres como máximo.',
    expiredCard: 'Esta tarjeta ha caducado. Revisa la fecha o usa otra tarjeta.',
    expiryTooFar: 'Revisa la fecha de caducidad: está demasiado lejos en el futuro.',
    errorSummaryTitle: 'Hay un problema',
    declinedRetry: 'No se ha cobrado nada: {why} Tus entradas siguen reservadas para ti: vuelve a intentarlo con otra tarjeta.',
    notConfirmedTitle: 'El pago no se ha confirmado',
    declined_incorrect_number: 'el número de tarjeta no es válido.',
    declined_expired_card: 'la tarjeta ha caducado.',
    attemptsLeftOne: 'Puedes intentarlo {n} vez más.',
    attemptsLeftOther: 'Puedes intentarlo {n} veces más.',
    tooManyTitle: 'Demasiados pagos rechazados',
    tooManyText: 'Por tu seguridad hemos cancelado esta reserva tras varios pagos rechazados. No se ha cobrado nada y las entradas vuelven a estar disponibles.',
    orderReference: 'Referencia del pedido',
    paidOn: 'Pagado el',
    paidWith: 'Pagado con',
    cardEnding: 'Tarjeta terminada en {last4}',
    walletCardEnding: '{wallet}, tarjeta terminada en {last4}',
    amountPaid: 'Importe pagado',
    yourTickets: 'Tus entradas',
    viewTicket: 'Ver entrada',
    ticketMovedOn: 'Esta entrada ya no está en tu cuenta.',
    receiptKeep: 'Este recibo sigue en esta dirección para ti: guárdala en favoritos o vuelve desde el enlace de la confirmación.',
    refunded: 'Reembolsado',
    payHostedTitle: 'Pago',
    payHostedNoScript: 'El formulario de pago necesita JavaScript. Actívalo para esta página o paga desde otro navegador: tus entradas siguen reservadas hasta la hora indicada arriba.',
    payHostedLoadFailed: 'No se ha podido cargar el formulario de pago. Comprueba tu conexión y recarga la página: tus entradas siguen reservadas hasta la hora indicada arriba.',
    providerUnavailableTitle: 'Los pagos no están disponibles en este momento',
    providerUnavailableText: 'No se ha cobrado nada y tus entradas siguen reservadas. Inténtalo de nuevo en un minuto.',
    confirmingTitle: 'Confirmando tu pago',
    confirmingText: 'Tu banco ha respondido; esperamos la confirmación del proveedor de pagos. Esta página vuelve a comprobarlo cada pocos segundos.',
    checkAgain: 'Comprobar de nuevo',
  },
);

/**
 * The buyer's words for a provider's decline code (never the code itself): the sandbox's codes,
 * and Stripe's decline codes and error codes of the same meaning. The key of {@link cm} that
 * says why.
 */
export function declineReason(code: string) {
  switch (code) {
    case 'card_declined':
    case 'generic_decline':
    case 'do_not_honor':
    case 'insufficient_funds':
      return 'declined_card_declined' as const;
    case 'authentication_failed':
    case 'payment_intent_authentication_failure':
    case 'authentication_required':
      return 'declined_authentication_failed' as const;
    case 'incorrect_number':
    case 'invalid_number':
      return 'declined_incorrect_number' as const;
    case 'expired_card':
      return 'declined_expired_card' as const;
    default:
      return 'declined_other' as const;
  }
}

/** Why a payment was declined, as {@link declineReason} names it. */
export type DeclineReason = ReturnType<typeof declineReason>;

/** Names of payment methods other than a plain card, as their makers write them (never translated). */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  samsung_pay: 'Samsung Pay',
  link: 'Link',
  ideal: 'iDEAL',
  bancontact: 'Bancontact',
  eps: 'EPS',
  p24: 'Przelewy24',
};

/**
 * How the buyer paid, for the receipt: "Card ending in 4242", "Apple Pay, card ending in 4242",
 * "iDEAL"; null when the provider did not say (the receipt then leaves the line out).
 */
export function paidWith(payment: { method: string | null; cardLast4: string | null } | null | undefined, lang: Lang): string | null {
  if (!payment) return null;
  const name = payment.method ? METHOD_NAMES[payment.method] : undefined;
  if (payment.cardLast4) return name ? cm(lang, 'walletCardEnding', { wallet: name, last4: payment.cardLast4 }) : cm(lang, 'cardEnding', { last4: payment.cardLast4 });
  return name ?? null;
}
