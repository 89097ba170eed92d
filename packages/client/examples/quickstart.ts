// Quickstart: create an event, sync its tickets, read both access layers and verify a webhook.
//
//   RESALE_BASE_URL        where the service runs, e.g. https://resale.example
//   RESALE_KEY             your private key (sk_…)
//   RESALE_CHANNELS_KEY    your channels key (sk_ch_…): publishes a listing, which sends a webhook
//   RESALE_WEBHOOK_SECRET  your webhook secret (whsec_…)
//   RESALE_WEBHOOK_PORT    the local port to receive it on: your webhookUrl must be
//                          http://<this machine>:<port>/hooks/resale (a partner setting)
//
// Run it with: npx tsx examples/quickstart.ts
import { createServer } from 'node:http';
import { createResaleClient, unwrap, verifyWebhook, type Schemas, type WebhookPayload } from '@resale/client';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see the top of this file)`);
  return value;
}

const baseUrl = env('RESALE_BASE_URL');
const resale = createResaleClient({ baseUrl, key: env('RESALE_KEY') });
const channels = createResaleClient({ baseUrl, key: env('RESALE_CHANNELS_KEY') });
const webhookSecret = env('RESALE_WEBHOOK_SECRET');
const webhookPort = Number(env('RESALE_WEBHOOK_PORT'));

// 1. Receive webhooks: verify each on its raw body, answer 2xx fast.
const received: WebhookPayload[] = [];
const hooks = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      received.push(verifyWebhook(Buffer.concat(chunks), req.headers, webhookSecret));
      res.writeHead(204).end();
    } catch {
      res.writeHead(400).end(); // bad signature, or a timestamp more than 5 minutes off
    }
  });
});
await new Promise<void>((resolve) => hooks.listen(webhookPort, resolve));

// 2. Create an event with one show, a month from now.
const eventId = `quickstart-${Date.now()}`;
const showId = 'show-1';
const event: Schemas['EventCreate'] = {
  externalReferenceId: eventId,
  title: 'Quickstart Live',
  description: 'An event created by the quickstart',
  location: { city: 'Madrid', venueName: 'Arena Norte', country: 'ES', timeZone: 'Europe/Madrid' },
  configuration: {},
  shows: [
    {
      showId,
      title: 'Opening night',
      date: new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString(),
      ticketOptions: [{ ticketId: 'general', title: 'General admission', description: 'Standing', currency: 'EUR', price: 40 }],
      images: [{ url: 'https://partner.example/img/poster.jpg' }],
      configuration: {},
    },
  ],
};
const { data: created } = unwrap(await resale.createEvent({ body: event }));
console.log(`event created: ${created.externalReferenceId} (${created.id})`);

// 3. Sync two tickets bought by a fan; each item answers its own outcome.
const tickets: Schemas['TicketInput'][] = ['t-1', 't-2'].map((ticketId) => ({
  externalReferenceEventId: eventId,
  showId,
  ticketId,
  ticketOptionId: 'general',
  buyer: 'fan@example.com',
  ticketAccess: { type: 'URL', locator: `https://partner.example/qr/${ticketId}` },
  price: 40,
}));
const { data: synced } = unwrap(await resale.createTicketsSync({ body: tickets }));
console.log(`tickets synced: ${synced.created} created, ${synced.rejected} rejected`);

// 4. The sell access layer: what each of the fan's tickets offers (SELL, EDIT …).
const { data: sell } = unwrap(
  await resale.sellAccessLayer({
    body: { user: 'fan@example.com', tickets: tickets.map((t) => ({ eventId, showId, ticketId: t.ticketId, ticketOptionId: t.ticketOptionId })) },
  }),
);
for (const ticket of sell.tickets ?? []) console.log(`sell access layer: ${ticket.ticketId} ${ticket.status}`);

// 5. The buy access layer: the components to render on the event page.
const { data: buy } = unwrap(await resale.buyAccessLayer({ params: { query: { type: 'buy', eventId, showId } } }));
console.log(`buy access layer: ${buy.map((component) => component.class).join(', ')}`);

// 6. A resale channel lists two tickets: the service sends listing.created to your webhookUrl.
const { data: listing } = unwrap(
  await channels.createChannelListing({
    body: { externalListingId: `${eventId}-listing`, externalReferenceEventId: eventId, showId, ticketOptionId: 'general', quantity: 2, price: 45, currency: 'EUR' },
  }),
);
console.log(`channel listing: ${listing.id} ${listing.state}`);

const deadline = Date.now() + 30_000;
let webhook: WebhookPayload<'listing.created'> | undefined;
while (!webhook && Date.now() < deadline) {
  for (const payload of received) if (payload.action === 'listing.created' && payload.data.listingId === listing.id) webhook = payload;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
hooks.close();
if (!webhook) throw new Error('No listing.created webhook within 30 s: is your webhookUrl this machine, port RESALE_WEBHOOK_PORT?');
console.log(`webhook verified: ${webhook.action} ${webhook.data.listingId} ${webhook.data.state}`);
