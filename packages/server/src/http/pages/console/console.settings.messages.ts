import { defineMessages } from '../../../lib/i18n.js';

/** Texts of the console's settings page (its preview and its write-only and JSON fields), in English and Spanish. */
export const sm = defineMessages(
  {
    previewTitle: 'Preview',
    previewIntro: 'How fans see the partner: the header of the hosted pages (market, checkout, ticket view) and the buy banner of the event pages. It follows what you type; nothing is saved until you press Save.',
    previewHeader: 'Header of the hosted pages',
    previewLink: 'A link in the brand colour',
    previewButton: 'A button in the brand colour',
    previewBanner: 'Buy banner (shown on the event page while tickets are for sale)',
    previewNoBanner: 'No buy banner is configured: the buy access layer has no buyBanner.',
    previewBannerProblem: 'The buy access layer cannot be previewed: {problem}',
    previewAction: 'Preview without saving',
    previewNoScript: 'Without script, the banner is drawn by the widgets’ script only: the header above is the preview.',
    secretSet: 'A secret is set (it is never shown).',
    secretNotSet: 'No secret is set: calls to the platform are not signed.',
    jsonHint: 'The same JSON as the API’s settings (see the OpenAPI document); every problem is listed at once.',
  },
  {
    previewTitle: 'Vista previa',
    previewIntro: 'Cómo ven los fans al partner: la cabecera de las páginas alojadas (mercado, pago, entrada) y el banner de compra de las páginas del evento. Sigue lo que escribes; nada se guarda hasta pulsar Guardar.',
    previewHeader: 'Cabecera de las páginas alojadas',
    previewLink: 'Un enlace en el color de la marca',
    previewButton: 'Un botón en el color de la marca',
    previewBanner: 'Banner de compra (en la página del evento mientras hay entradas a la venta)',
    previewNoBanner: 'No hay banner de compra: la capa de compra no tiene buyBanner.',
    previewBannerProblem: 'La capa de compra no se puede previsualizar: {problem}',
    previewAction: 'Previsualizar sin guardar',
    previewNoScript: 'Sin script, el banner solo lo dibuja el script de los widgets: la cabecera de arriba es la vista previa.',
    secretSet: 'Hay un secreto configurado (nunca se muestra).',
    secretNotSet: 'No hay secreto: las llamadas a la plataforma no van firmadas.',
    jsonHint: 'El mismo JSON que los ajustes de la API (ver el documento OpenAPI); se listan todos los problemas a la vez.',
  },
);
