import { describe, expect, it } from 'vitest';
import { jsonLimitMessage, jsonLimitViolation, REQUEST_JSON_LIMITS, type JsonLimits } from './json-limits.js';

const SMALL: JsonLimits = { maxDepth: 3, maxArrayItems: 2, maxObjectKeys: 2 };
const nestedObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const nestedArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonLimitViolation', () => {
  it('counts depth outside strings only, honouring escapes', () => {
    expect(jsonLimitViolation('[[[1]]]', SMALL)).toBeNull();
    expect(jsonLimitViolation('{"a":{"b":{"c":1}}}', SMALL)).toBeNull();
    expect(jsonLimitViolation('[[[[1]]]]', SMALL)).toEqual({ kind: 'depth', limit: 3 });
    expect(jsonLimitViolation('{"a":{"b":{"c":{}}}}', SMALL)).toEqual({ kind: 'depth', limit: 3 });
    // Brackets inside strings, escaped quotes and escaped backslashes open nothing.
    expect(jsonLimitViolation('["[[[[[[", "{{{{{{"]', SMALL)).toBeNull();
    expect(jsonLimitViolation('["\\"[[[[[["]', SMALL)).toBeNull();
    expect(jsonLimitViolation('["\\\\", [[[1]]]]', SMALL)).toEqual({ kind: 'depth', limit: 3 });
    expect(jsonLimitViolation('"[[[[[[[["', SMALL)).toBeNull();
  });

  it('refuses 100,000 levels at once, without recursion, and takes the deepest body the API knows', () => {
    expect(jsonLimitViolation(nestedObjects(100_000))).toEqual({ kind: 'depth', limit: 32 });
    expect(jsonLimitViolation(nestedArrays(100_000))).toEqual({ kind: 'depth', limit: 32 });
    expect(jsonLimitViolation(nestedArrays(33))).toEqual({ kind: 'depth', limit: 32 });
    expect(jsonLimitViolation(nestedArrays(32))).toBeNull();
    expect(jsonLimitViolation(nestedObjects(32))).toBeNull();
    // An event's deepest field: shows[].priceTypes[].inventory, 6 levels with the root.
    expect(jsonLimitViolation(JSON.stringify({ shows: [{ priceTypes: [{ inventory: { soldOut: true } }] }] }))).toBeNull();
  });

  it('counts the elements of arrays and the keys of objects, naming where', () => {
    expect(jsonLimitViolation('[1,2]', SMALL)).toBeNull();
    expect(jsonLimitViolation('[ 1 , "x" ]', SMALL)).toBeNull();
    expect(jsonLimitViolation('[1,2,3]', SMALL)).toEqual({ kind: 'array_items', limit: 2, path: '' });
    expect(jsonLimitViolation('[{},[],"x"]', SMALL)).toEqual({ kind: 'array_items', limit: 2, path: '' });
    expect(jsonLimitViolation('{"x":[1,[2,3,4]]}', SMALL)).toEqual({ kind: 'array_items', limit: 2, path: 'x.1' });
    expect(jsonLimitViolation('{"a":1,"b":{"c":[],"d":{}}}', SMALL)).toBeNull();
    expect(jsonLimitViolation('{"k":{"a":1,"b":"2","c":null}}', SMALL)).toEqual({ kind: 'object_keys', limit: 2, path: 'k' });
    expect(jsonLimitViolation('{"we\\"ird":{"a":1,"b":2,"c":3}}', SMALL)).toEqual({ kind: 'object_keys', limit: 2, path: 'we"ird' });
    expect(jsonLimitViolation('[]', SMALL)).toBeNull();
    expect(jsonLimitViolation('{}', SMALL)).toBeNull();
  });

  it('lets the largest legitimate arrays through and refuses 200,000 elements', () => {
    const tickets = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ ticketId: `t-${i}`, buyer: 'fan@example.com' })));
    expect(jsonLimitViolation(tickets)).toBeNull();
    expect(jsonLimitViolation(`{"items":[${'0,'.repeat(199_999)}0]}`)).toEqual({ kind: 'array_items', limit: REQUEST_JSON_LIMITS.maxArrayItems, path: 'items' });
  });

  it('is exact on valid JSON: agrees with a recursive measure of what JSON.parse builds', () => {
    const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    const samples = ['1', '"x"', '[]', '{}', '[[],[[]]]', '{"a":[{"b":[]}],"c":"[{"}', '[1,[2,[3,[4]]],{"x":{"y":{"z":{}}}}]'];
    for (const text of samples) {
      const depth = depthOf(JSON.parse(text));
      expect(jsonLimitViolation(text, { maxDepth: depth, maxArrayItems: 10, maxObjectKeys: 10 }), text).toBeNull();
      if (depth > 0) expect(jsonLimitViolation(text, { maxDepth: depth - 1, maxArrayItems: 10, maxObjectKeys: 10 }), text).toEqual({ kind: 'depth', limit: depth - 1 });
    }
  });

  it('says what was refused', () => {
    expect(jsonLimitMessage({ kind: 'depth', limit: 32 })).toBe('The body nests objects and arrays more than 32 levels deep');
    expect(jsonLimitMessage({ kind: 'array_items', limit: 10_000, path: 'items' })).toBe('items holds more than 10000 elements');
    expect(jsonLimitMessage({ kind: 'object_keys', limit: 1_000, path: '' })).toBe('The body holds more than 1000 keys');
  });
});
