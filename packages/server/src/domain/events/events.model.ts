import type { VenueScans } from '@resale/shared/admission-code';
import { DEFAULT_ADMISSION_CODES, type AdmissionCodesSettings } from '../partners/partners.settings.js';
import type { ShowStatus } from './events.table.js';
import type { Configuration, ImageIn, InventoryIn, Location, Producer, Seating, ShowDates } from './events.schemas.js';

/**
 * The in-memory aggregate of an event: what is loaded, changed and saved as one unit.
 * Money is in minor units here; `id` is absent on parts not yet stored.
 */
export interface EventAggregate {
  id?: string;
  partnerId: string;
  externalReferenceId: string;
  title: string;
  description: string;
  location: Location;
  producers: Producer[];
  configuration: Configuration;
  seating: Seating | null;
  source: 'api' | 'feed' | 'import';
  createdAt?: number;
  updatedAt?: number;
  shows: ShowAggregate[];
}

export interface ShowAggregate {
  id?: string;
  showId: string;
  title: string;
  startsAt: number;
  status: ShowStatus;
  primarySalesUrl: string | null;
  images: ImageIn[];
  configuration: Configuration;
  location: Location | null;
  showRescheduled: boolean;
  resaleEnabled: boolean;
  dates: ShowDates | null;
  salesStartAt: number | null;
  tags: string[];
  cancelledAt: number | null;
  ticketOptions: TicketOptionAggregate[];
  priceTypes: PriceTypeAggregate[];
  combinations: CombinationAggregate[];
}

export interface TicketOptionAggregate {
  id?: string;
  ticketId: string;
  title: string;
  description: string;
  currency: string;
  priceMinor: number | null;
  stock: number | null;
  webVisibility: boolean;
  webSoldOut: boolean | null;
  area: string | null;
}

export interface PriceTypeAggregate {
  id?: string;
  priceTypeId: string;
  externalObjectId: unknown;
  title: string | null;
  description: string | null;
  webVisibility: boolean;
  webSoldOut: boolean | null;
  stock: number | null;
  invisible: boolean;
  inventory: InventoryIn | null;
}

export interface CombinationAggregate {
  id?: string;
  ticketOptionId: string;
  priceTypeId: string;
  priceMinor: number;
  description: string | null;
}

/** Statuses under which a show is over for resale. */
const CLOSED: readonly ShowStatus[] = ['CANCELLED', 'HIDDEN'];

/**
 * Whether resale is open for a show: `resaleEnabled` and a status other than CANCELLED or
 * HIDDEN. ANNOUNCED, RESCHEDULED and PRIVATE shows follow `resaleEnabled` (the spec's
 * "depends on configuration").
 */
export function isResaleOpen(show: { status: ShowStatus; resaleEnabled: boolean }): boolean {
  return show.resaleEnabled && !CLOSED.includes(show.status);
}

/**
 * The configuration in force for a show: the event's, overridden field by field by the
 * show's (`ticketDelivery`, `crossBorderPayments`, `redemption` each as a whole).
 */
export function effectiveConfiguration(event: Configuration, show: Configuration): Configuration {
  return { ...event, ...Object.fromEntries(Object.entries(show).filter(([, v]) => v !== undefined)) };
}

/** What the venue scans at a show, and the rotating code's step (see {@link admissionCodesOf}). */
export interface ShowAdmissionCodes {
  venueScans: VenueScans;
  rotationSeconds: number;
  /** The holder's view shows the rotating code instead of the partner's QR: ticketShield is on and the venue scans rotating codes. */
  rotating: boolean;
}

/**
 * The show's admission codes: its own override, else the partner's setting (stored settings from
 * before the setting existed lack it: the default). Rotating codes need ticketShield: without
 * it the partner shows its own tickets and the service shows none.
 */
export function admissionCodesOf(show: { ticketShield: boolean; venueScans: VenueScans | null; rotationSeconds: number | null }, partnerSettings: { admissionCodes?: AdmissionCodesSettings | undefined }): ShowAdmissionCodes {
  const partner = partnerSettings.admissionCodes ?? DEFAULT_ADMISSION_CODES;
  const venueScans = show.venueScans ?? partner.venueScans;
  return { venueScans, rotationSeconds: show.rotationSeconds ?? partner.rotationSeconds, rotating: show.ticketShield && venueScans === 'rotating' };
}
