// Hands each resale widget the data the demo's server asked the service for (My tickets: the
// sell access layer; an event page with someone signed in: the buy access layer signed for them).
//
// The page runs under a CSP without 'unsafe-inline', so the data travels in
// <script type="application/json" id="…"> blocks (inert: never executed) and this file,
// served by the demo itself, sets them as properties. Each widget names its block in
// data-resale-data. Module scripts run after the document is parsed and in order, after
// resale.js; a property set before an element is upgraded is kept by Lit, so the order
// does not matter anyway.
const PROPERTY = {
  'RESALE-SELL-ACTIONS': 'entry', // one ticket of the sell access layer: {status, ticketId, callToActions, …}
  'RESALE-SELL-BANNER': 'component', // the sellBanner component: {type, class, sellBanner}
  'RESALE-ACCESS-LAYER': 'components', // the buy access layer's components, signed for the fan (Login Trust)
};

for (const el of document.querySelectorAll('[data-resale-data]')) {
  const block = document.getElementById(el.getAttribute('data-resale-data') || '');
  if (!block || block.type !== 'application/json') continue;
  try {
    el[PROPERTY[el.tagName] || 'data'] = JSON.parse(block.textContent || 'null');
  } catch {
    // A broken block leaves the element's fallback links in place.
  }
}
