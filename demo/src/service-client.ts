/**
 * The demo platform's calls to the resale service, server to server with the private key:
 * what a partner's back end does. Every call has a time limit; a failure throws
 * {@link ServiceError} saying whether trying again could help (network, 5xx, 429) or not
 * (any other 4xx: the request is wrong).
 */

export class ServiceError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the service answered. */
    readonly status: number | null,
    /** true for network errors, timeouts, 5xx and 429. */
    readonly retryable: boolean,
    /** The `errors` of the envelope, when there was one. */
    readonly errors: unknown = null,
  ) {
    super(message);
  }
}

export interface ServiceClientOptions {
  /** The service's base URL (`http://localhost:3000`). */
  serviceUrl: string;
  privateKey: string;
  /** Per call. Default 8 000 ms. */
  timeoutMs?: number;
}

/** A call to action of the sell access layer. */
export interface Cta {
  key: string;
  text: string;
  url: string;
  enabled: boolean;
  colors?: { background: string; text: string };
}

/** One ticket of the sell access layer's answer. */
export interface SellTicketEntry {
  status: 'SELLABLE' | 'NOT_SELLABLE' | 'FOR_SALE' | 'SOLD';
  ticketId: string;
  ticketOptionId: string;
  priceTypeId: string | null;
  sync: boolean;
  callToActions: Cta[];
}

export interface SellBannerComponent {
  type: 'banner';
  class: 'sellBanner';
  sellBanner: {
    title: string;
    description: string;
    image: string | null;
    visible: boolean;
    colors: { background: string; text: string };
    callToAction: { text: string; url: string; enabled: boolean };
  };
}

export interface SoldTicketEntry {
  ticketId: string;
  orderId: string | null;
  eventId: string;
  showId: string;
  ticketOptionId: string;
  listingId: string;
  currency: string;
  price: number;
  payout: number;
  soldAt: string | null;
}

/** `data` of `POST /v1/wrapper/accesslayer` in tickets mode. */
export interface SellAccessLayerData {
  user?: string;
  tickets?: SellTicketEntry[];
  components?: SellBannerComponent[];
  soldTickets?: SoldTicketEntry[];
}

export interface SellAccessLayerRequest {
  user: string;
  tickets?: { eventId: string; showId: string; ticketId: string; ticketOptionId: string; priceTypeId?: string }[];
  autologin?: boolean;
  includeTicketSales?: boolean;
}

export type ServiceClient = ReturnType<typeof createServiceClient>;

/**
 * @example
 * const service = createServiceClient({ serviceUrl: 'http://localhost:3000', privateKey });
 * const token = await service.oneTimeToken('ana@demo.test');
 */
export function createServiceClient(opts: ServiceClientOptions) {
  const base = opts.serviceUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 8_000;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: opts.privateKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new ServiceError(`${method} ${path}: the service could not be reached (${cause})`, null, true);
    }
    const text = await res.text();
    let json: { data?: T; errors?: unknown } | null = null;
    try {
      json = text ? (JSON.parse(text) as { data?: T; errors?: unknown }) : null;
    } catch {
      // Not JSON: reported below by status.
    }
    if (!res.ok) {
      const retryable = res.status >= 500 || res.status === 429;
      throw new ServiceError(`${method} ${path}: the service answered ${res.status}`, res.status, retryable, json?.errors ?? null);
    }
    return { status: res.status, data: json?.data as T };
  }

  return {
    call,
    /** Creates the event, or updates it when it exists (409 on create): safe to repeat on every start. */
    async upsertEvent(payload: Record<string, unknown>): Promise<'created' | 'updated'> {
      try {
        await call('POST', '/v1/events', payload);
        return 'created';
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status !== 409) throw err;
      }
      await call('PUT', '/v1/events', payload);
      return 'updated';
    },
    /** `POST /v1/sync/tickets`: every item's outcome; throws when an item is rejected. */
    async syncTickets(items: Record<string, unknown>[]): Promise<{ created: number; updated: number }> {
      const { data } = await call<{ created: number; updated: number; rejected: number; results: unknown[] }>('POST', '/v1/sync/tickets', items);
      if (data.rejected > 0) throw new ServiceError(`POST /v1/sync/tickets: ${data.rejected} ticket(s) rejected`, 200, false, data.results);
      return { created: data.created, updated: data.updated };
    },
    /** Login Force step 3: a single-use token for the user who just signed in on the platform. */
    async oneTimeToken(email: string): Promise<string> {
      const { data } = await call<string>('GET', `/v1/auth/oneTimeToken?user=${encodeURIComponent(email)}`);
      if (typeof data !== 'string' || !data) throw new ServiceError('GET /v1/auth/oneTimeToken: no token in the answer', 200, false);
      return data;
    },
    async sellAccessLayer(body: SellAccessLayerRequest, lang = 'en'): Promise<SellAccessLayerData> {
      const { data } = await call<SellAccessLayerData>('POST', `/v1/wrapper/accesslayer?lang=${encodeURIComponent(lang)}`, body);
      return data ?? {};
    },
    /**
     * The service's sign-out URL (`GET /v1/auth/signOutUrl`): the browser goes through it when
     * someone signs out here, so their resale session ends too, then lands on `returnTo`.
     */
    async signOutUrl(returnTo: string): Promise<string> {
      const { data } = await call<string>('GET', `/v1/auth/signOutUrl?${new URLSearchParams({ returnTo })}`);
      if (typeof data !== 'string' || !/^https?:\/\//.test(data)) throw new ServiceError('GET /v1/auth/signOutUrl: no URL in the answer', 200, false);
      return data;
    },
    /**
     * The secure ticket view of a ticket (`GET /v1/tickets/:ticketId/url`, ticketShield): the
     * holder's credential, so it is shown only to them (My tickets), never cached in a page others see.
     */
    async ticketViewUrl(ticketId: string): Promise<string> {
      const { data } = await call<string>('GET', `/v1/tickets/${encodeURIComponent(ticketId)}/url`);
      if (typeof data !== 'string' || !/^https?:\/\//.test(data)) throw new ServiceError('GET /v1/tickets/:ticketId/url: no URL in the answer', 200, false);
      return data;
    },
    /**
     * The buy access layer of a show signed for `user` (Login Trust, private key): every URL signs
     * the fan in, and the answer shows the fan's own hold (continue to checkout, release) apart
     * from other fans' (`reserved`). Never cached: each answer carries single-use tokens.
     */
    async buyAccessLayer(eventId: string, showId: string, user: string, lang = 'en'): Promise<unknown[]> {
      const q = new URLSearchParams({ type: 'buy', eventId, showId, lang, 'loginTrust[user]': user });
      const { data } = await call<unknown[]>('GET', `/v1/wrapper/accesslayer?${q}`);
      return Array.isArray(data) ? data : [];
    },
    /** The market page of a show: the no-JavaScript way into resale from an event page. Signed for `loginTrustUser` when given. */
    async buyingFlowUrl(eventId: string, showId: string, returnTo: string, opts: { lang?: string; loginTrustUser?: string } = {}): Promise<string> {
      const q = new URLSearchParams({ externalReferenceEventId: eventId, showId, returnTo, lang: opts.lang ?? 'en' });
      // Login Trust: the URL carries a single-use token, so the buyer arrives signed in as this user.
      if (opts.loginTrustUser) q.set('loginTrust[user]', opts.loginTrustUser);
      const { data } = await call<string>('GET', `/v1/marketplace/buyingflow/url/entrypoint?${q}`);
      return data;
    },
  };
}
