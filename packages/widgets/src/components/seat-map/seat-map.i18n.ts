import type { Lang } from '@resale/shared/lang';

/**
 * The seat map's own texts (legend, zoom, list view), in the widgets' pattern (internal/i18n.ts):
 * an English dictionary, a Spanish one of the same keys, `{name}` placeholders. Kept beside the
 * map so its chunk carries them and the core bundle does not.
 */
const en = {
  legend: 'Legend',
  legendForSale: 'For sale',
  legendSelected: 'Selected',
  legendUnavailable: 'Not for sale',
  legendCheapest: 'Cheapest area',
  legendSome: 'Area with tickets',
  legendNone: 'Area without tickets',
  zoomIn: 'Zoom in',
  zoomOut: 'Zoom out',
  zoomReset: 'Show the whole map',
  zoomedToPick: 'Zoomed in: now tap a seat to pick it.',
  seatList: 'Seats for sale',
  total: 'Total {amount}',
};

type Messages = typeof en;

const es: Messages = {
  legend: 'Leyenda',
  legendForSale: 'A la venta',
  legendSelected: 'Elegido',
  legendUnavailable: 'No está a la venta',
  legendCheapest: 'Zona más barata',
  legendSome: 'Zona con entradas',
  legendNone: 'Zona sin entradas',
  zoomIn: 'Acercar',
  zoomOut: 'Alejar',
  zoomReset: 'Ver todo el mapa',
  zoomedToPick: 'Mapa ampliado: ahora toca un asiento para elegirlo.',
  seatList: 'Asientos a la venta',
  total: 'Total {amount}',
};

const MESSAGES: Record<Lang, Messages> = { en, es };

/** A seat map message with `{name}` placeholders filled. */
export function mt(lang: Lang, key: keyof Messages, vars?: Record<string, string | number>): string {
  let text = MESSAGES[lang][key];
  if (vars) for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`{${k}}`, String(v));
  return text;
}
