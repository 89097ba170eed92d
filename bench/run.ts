/** npm run bench: every benchmark, one after the other. Never part of npm test. */
import { run as ticketsIngest } from './tickets-ingest.js';
import { run as ticketsApply } from './tickets-apply.js';
import { run as intentionsContention } from './intentions-contention.js';
import { run as accessLayerBuy } from './accesslayer-buy.js';
import { run as webhooksNeighbours } from './webhooks-neighbours.js';
import { run as pgNotify } from './pg-notify.js';
import { run as rateLimit } from './rate-limit.js';
import { run as dbOutage } from './db-outage.js';
import { run as seatMap } from './seatmap.js';
import { run as lighthouse } from './lighthouse.js';
import { run as onsale } from './onsale.js';
import { run as waitingList } from './waitinglist.js';
import { run as admissionVerify } from './admission-verify.js';

const benches: [string, () => Promise<unknown>][] = [
  ['tickets-ingest', ticketsIngest],
  ['tickets-apply', ticketsApply],
  ['intentions-contention', intentionsContention],
  ['accesslayer-buy', accessLayerBuy],
  ['webhooks-neighbours', webhooksNeighbours],
  ['pg-notify', pgNotify],
  ['rate-limit', rateLimit],
  ['db-outage', dbOutage],
  ['seatmap', seatMap],
  ['lighthouse', lighthouse],
  ['onsale', onsale],
  ['waitinglist', waitingList],
  ['admission-verify', admissionVerify],
];
const only = process.argv[2];
for (const [name, bench] of benches) {
  if (only && only !== name) continue;
  await bench();
}
