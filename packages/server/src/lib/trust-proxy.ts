/** `TRUST_PROXY` parsed: a hop count, or the proxies' addresses, CIDRs and keywords. */
export type TrustProxy = number | readonly string[];
