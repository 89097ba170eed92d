import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasOffset, parseLocal } from './sheet.dates.js';
import { zonedIso } from '../../../lib/zoned-time.js';
import { COLUMNS } from './sheet.layout.js';
import { parseCsv, type Sheet } from './sheet.read.js';
import { sheetToEvents } from './sheet.to-events.js';

const HEAD = 'eventId,eventTitle,timezone,showId,showDate,ticketOptionId,ticketOptionName,price,currency';

function plan(csv: string) {
  const { plans, errors } = sheetToEvents(parseCsv(csv));
  return { plan: plans[0]!, plans, errors };
}

describe('the header', () => {
  it('matches columns case-insensitively and in any order', () => {
    const { plan: p, errors } = plan('TICKETOPTIONID, ShowId ,EVENTID,price,Currency\no1,s1,e1,10,eur\n');
    expect(errors).toEqual([]);
    expect(p.input?.shows?.[0]?.ticketOptions?.[0]).toMatchObject({ ticketId: 'o1', price: '10', currency: 'EUR' });
  });

  it('reports unknown and repeated columns and missing key columns, and makes no plan', () => {
    const { plans, errors } = plan('eventId,curency,eventTitle,EventTitle\ne1,EUR,A,B\n');
    expect(plans).toEqual([]);
    expect(errors).toEqual([
      { row: 1, column: 'curency', message: "'curency' is not a column of the layout (see docs/import.md); rename or remove it" },
      { row: 1, column: 'eventTitle', message: 'eventTitle appears twice (columns 3 and 4)' },
      { row: 1, column: 'showId', message: 'The header has no showId column; it is required' },
      { row: 1, column: 'ticketOptionId', message: 'The header has no ticketOptionId column; it is required' },
    ]);
  });

  it('reports values under no header', () => {
    const { plans, errors } = plan('eventId,,showId,ticketOptionId\ne1,stray,s1,o1\n');
    expect(plans).toEqual([]);
    expect(errors).toEqual([{ row: 1, message: 'Column 2 has values (row 2) but no header' }]);
    const extra = plan('eventId,showId,ticketOptionId\ne1,s1,o1,stray\n');
    expect(extra.plan.errors).toEqual([{ row: 2, eventId: 'e1', message: 'Column 4 has a value but no header' }]);
  });

  it('documents every column, with a unique name, in docs/import.md', () => {
    expect(new Set(COLUMNS.map((c) => c.name.toLowerCase())).size).toBe(COLUMNS.length);
    expect(COLUMNS.filter((c) => c.requiredHeader).map((c) => c.name)).toEqual(['eventId', 'showId', 'ticketOptionId']);
    const doc = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../docs/import.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `(\w+)` \| [a-z ]+ \| `([\w.]+)` \| (\w+) \|/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(documented).toEqual(COLUMNS.map((c) => [c.name, c.path.join('.'), c.kind]));
  });
});

describe('grouping rows', () => {
  it('builds the PUT body: one event, its shows, options, price types and combinations', () => {
    const { plan: p } = plan(
      [
        `${HEAD},priceTypeId,priceTypeName,combinationPrice`,
        'e1,Tour,Europe/Madrid,s1,2026-05-01T21:00:00+02:00,field,Field,45.50,EUR,early,Early,39',
        ',,,,,,,,,,,',
        'e1,,,s1,,field,,,,std,Standard,45.50',
        'e1,,,s2,2026-05-02T21:00:00+02:00,vip,VIP,120,EUR,,,',
      ].join('\n'),
    );
    expect(p.errors).toEqual([]);
    expect(p.rows).toEqual([2, 4, 5]);
    expect(p.input).toEqual({
      externalReferenceId: 'e1',
      title: 'Tour',
      location: { timeZone: 'Europe/Madrid', city: '', state: '', venueName: '', address: '', country: '', postalCode: '' },
      shows: [
        {
          showId: 's1',
          date: '2026-05-01T21:00:00+02:00',
          ticketOptions: [{ ticketId: 'field', title: 'Field', price: '45.50', currency: 'EUR' }],
          priceTypes: [
            { priceTypeId: 'early', title: 'Early' },
            { priceTypeId: 'std', title: 'Standard' },
          ],
          combinations: [
            { ticketOptionId: 'field', priceTypeId: 'early', price: '39' },
            { ticketOptionId: 'field', priceTypeId: 'std', price: '45.50' },
          ],
        },
        { showId: 's2', date: '2026-05-02T21:00:00+02:00', ticketOptions: [{ ticketId: 'vip', title: 'VIP', price: '120', currency: 'EUR' }] },
      ],
    });
  });

  it('reads the event configuration, images and typed cells', () => {
    const { plan: p } = plan(
      [
        'eventId,showId,ticketOptionId,ticketDeliveryWhen,ticketDeliverySeconds,redemptionPolicy,redemptionHoursBeforeShow,imageUrl,resaleEnabled,stock,showStatus',
        'e1,s1,o1,before,3600,optional,48,https://x.example/a.jpg,No,12,cancelled',
      ].join('\n'),
    );
    expect(p.errors).toEqual([]);
    expect(p.input).toMatchObject({
      configuration: { ticketDelivery: { time: { when: 'BEFORE', seconds: 3600 } }, redemption: { policy: 'OPTIONAL', hoursBeforeShow: 48 } },
      shows: [{ images: [{ url: 'https://x.example/a.jpg', kind: 'main' }], resaleEnabled: false, status: 'CANCELLED', ticketOptions: [{ ticketId: 'o1', stock: 12 }] }],
    });
  });

  it('reads decimal commas in a `;` file', () => {
    const { plan: p } = plan('eventId;showId;ticketOptionId;price;redemptionHoursBeforeShow;redemptionPolicy\ne1;s1;o1;45,50;1,5;NONE\n');
    expect(p.errors).toEqual([]);
    expect(p.input?.shows?.[0]?.ticketOptions?.[0]?.price).toBe('45.50');
    expect(p.input?.configuration?.redemption?.hoursBeforeShow).toBe(1.5);
  });

  it('reports cells of the wrong kind with what was found', () => {
    const { plan: p } = plan('eventId,showId,ticketOptionId,stock,resaleEnabled,ticketDeliverySeconds\ne1,s1,o1,12.5,maybe,soon\n');
    expect(p.errors).toEqual([
      { row: 2, column: 'stock', eventId: 'e1', message: "stock must be a whole number (found '12.5')" },
      { row: 2, column: 'resaleEnabled', eventId: 'e1', message: "resaleEnabled must be true or false (found 'maybe')" },
      { row: 2, column: 'ticketDeliverySeconds', eventId: 'e1', message: "ticketDeliverySeconds must be a whole number (found 'soon')" },
    ]);
  });

  it('reports missing keys and price-type columns without a price type', () => {
    const { plan: p, errors } = plan(
      ['eventId,showId,ticketOptionId,priceTypeId,priceTypeName,combinationPrice', ',s1,o1,,,', 'e1,,o1,,,', 'e1,s1,,,,', 'e1,s1,o1,,Early,9', 'e1,s1,o1,pt,,'].join('\n'),
    );
    expect(errors).toEqual([{ row: 2, column: 'eventId', message: 'eventId is required on every row' }]);
    expect(p.errors).toEqual([
      { row: 3, column: 'showId', eventId: 'e1', message: 'showId is required on every row' },
      { row: 4, column: 'ticketOptionId', eventId: 'e1', message: 'ticketOptionId is required on every row' },
      { row: 5, column: 'priceTypeName', eventId: 'e1', message: 'priceTypeName needs a priceTypeId on the same row' },
      { row: 5, column: 'combinationPrice', eventId: 'e1', message: 'combinationPrice needs a priceTypeId on the same row' },
      { row: 6, column: 'combinationPrice', eventId: 'e1', message: 'combinationPrice is required on a row with a priceTypeId' },
    ]);
  });

  it('validates with the API schema and tells body paths as columns', () => {
    const { plan: p } = plan(
      [
        `${HEAD},imageUrl,priceTypeId,combinationPrice`,
        'e1,Tour,Mars/Olympus,s1,2026-05-01T21:00:00+02:00,o1,One,-3,EUR,ftp://x,,',
        'e1,Tour,Mars/Olympus,s1,2026-05-01T21:00:00+02:00,o2,Two,5,EUR,,pt,abc',
      ].join('\n'),
    );
    const found = p.errors.map((e) => [e.row, e.column, e.message]).sort((a, b) => String(a).localeCompare(String(b)));
    expect(found).toEqual([
      [2, 'imageUrl', 'imageUrl must be an http(s) URL'],
      [2, 'price', "price must be a decimal amount such as 19.99 (found '-3')"],
      [2, 'timezone', "timezone must be an IANA time zone such as Europe/Madrid (found 'Mars/Olympus')"],
      [3, 'combinationPrice', "combinationPrice must be a decimal amount such as 19.99 (found 'abc')"],
    ]);
    // What is left is valid and checked further by the service: option o2, no bad parts.
    expect(p.input?.shows?.[0]?.ticketOptions?.map((o) => o.ticketId)).toEqual(['o2']);
    expect(p.input?.shows?.[0]?.combinations).toBeUndefined();
    expect(p.input?.location?.timeZone).toBeUndefined();
  });
});

describe('dates', () => {
  it('reads a local date and a real Excel date in the event time zone', () => {
    const sheet: Sheet = {
      format: 'xlsx',
      headers: ['eventId', 'timezone', 'showId', 'showDate', 'ticketOptionId'],
      rows: [
        { row: 2, cells: ['e1', 'America/New_York', 's1', '2026-10-15 01:30', 'o1'] },
        { row: 3, cells: ['e1', null, 's2', new Date(Date.UTC(2026, 6, 4, 20, 0)), 'o1'] },
        { row: 4, cells: ['e1', null, 's3', 46000.5, 'o1'] },
        { row: 5, cells: ['e1', null, 's4', '2026-07-04T20:00:00Z', 'o1'] },
      ],
      decimalComma: false,
    };
    const { plans } = sheetToEvents(sheet);
    expect(plans[0]!.errors).toEqual([]);
    expect(plans[0]!.input?.shows?.map((s) => s.date)).toEqual(['2026-10-15T01:30:00-04:00', '2026-07-04T20:00:00-04:00', '2025-12-09T12:00:00-05:00', '2026-07-04T20:00:00Z']);
  });

  it('reports a date without offset when the event has no time zone, once', () => {
    const { plan: p } = plan('eventId,showId,showDate,ticketOptionId,ticketOptionName,currency\ne1,s1,2026-05-01 21:00,o1,One,EUR\n');
    expect(p.errors).toEqual([
      {
        row: 2,
        column: 'showDate',
        eventId: 'e1',
        message: "showDate '2026-05-01 21:00' has no UTC offset: write it as 2026-05-01T21:00:00+02:00 or fill the timezone column of the event",
      },
    ]);
    expect(p.reported.has('show:s1|showDate')).toBe(true);
  });

  it('converts across daylight-saving changes', () => {
    expect(zonedIso({ year: 2026, month: 5, day: 1, hour: 21, minute: 0, second: 0 }, 'Europe/Madrid')).toBe('2026-05-01T21:00:00+02:00');
    expect(zonedIso({ year: 2026, month: 1, day: 10, hour: 21, minute: 0, second: 0 }, 'Europe/Madrid')).toBe('2026-01-10T21:00:00+01:00');
    // 02:30 does not exist on the spring-forward night: clocks show 03:30.
    expect(zonedIso({ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0 }, 'Europe/Madrid')).toBe('2026-03-29T03:30:00+02:00');
    expect(zonedIso({ year: 2026, month: 6, day: 1, hour: 9, minute: 15, second: 30 }, 'Asia/Kolkata')).toBe('2026-06-01T09:15:30+05:30');
    expect(hasOffset('2026-05-01T21:00:00+0200')).toBe(true);
    expect(hasOffset('2026-05-01T21:00:00')).toBe(false);
    expect(parseLocal('2026-05-01T21:00')).toEqual({ year: 2026, month: 5, day: 1, hour: 21, minute: 0, second: 0 });
    expect(parseLocal('01/05/2026')).toBeNull();
  });
});
