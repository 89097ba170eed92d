/** Why loading failed. */
export interface ErrorDetail {
  /** `network`, `http`, `parse` (not JSON or not the expected shape). */
  reason: 'network' | 'http' | 'parse';
  /** The HTTP status for `http`. */
  status?: number;
  message: string;
}

/**
 * Dispatched when loading fails. The element then renders nothing: the partner's page never
 * breaks because the resale service is unreachable.
 */
export class ResaleErrorEvent extends CustomEvent<ErrorDetail> {
  static readonly eventName = 'resale-error';
  constructor(detail: ErrorDetail) {
    super(ResaleErrorEvent.eventName, { bubbles: true, composed: true, detail });
  }
}
