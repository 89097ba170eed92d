import proxyaddr from 'proxy-addr';

/** `TRUST_PROXY` parsed: a hop count, or the proxies' addresses, CIDRs and keywords. */
export type TrustProxy = number | readonly string[];

/**
 * Parses a `TRUST_PROXY` value; throws a TypeError saying what is wrong.
 *
 * @example
 * parseTrustProxy('1'); // 1
 * parseTrustProxy('loopback, 10.0.0.0/8'); // ['loopback', '10.0.0.0/8']
 */
export function parseTrustProxy(value: string): TrustProxy {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops > 32) throw new TypeError('a hop count must be at most 32');
    return hops;
  }
  const entries = trimmed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new TypeError('must be a hop count or a list of addresses');
  for (const entry of entries) {
    try {
      // proxy-addr validates each entry (and refuses /0, which would trust everybody).
      proxyaddr.compile(entry);
    } catch {
      throw new TypeError(`'${entry.slice(0, 60)}' is not an IP address, a CIDR, loopback, linklocal or uniquelocal`);
    }
  }
  return entries;
}
