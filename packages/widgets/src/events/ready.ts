/** What became ready. */
export interface ReadyDetail {
  /** `fetch`: loaded from the service; `property`: given by the partner. */
  source: 'fetch' | 'property';
  /** Components rendered (access layer) or areas on the map (seat map). */
  count: number;
}

/** Dispatched when data has arrived and been rendered (access layer, seat map). */
export class ResaleReadyEvent extends CustomEvent<ReadyDetail> {
  static readonly eventName = 'resale-ready';
  constructor(detail: ReadyDetail) {
    super(ResaleReadyEvent.eventName, { bubbles: true, composed: true, detail });
  }
}
