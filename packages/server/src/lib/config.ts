import type { TrustProxy } from './trust-proxy.js';

/** Settings of the running service (from the environment, see env.ts). */
export interface AppConfig {
  env: 'production' | 'development' | 'test';
  /** Host of every URL the service generates, without a trailing slash. */
  publicBaseUrl: string;
  /** Bearer token of the operator API; null disables it. */
  operatorToken: string | null;
  maxBodyBytes: number;
  /** Default per-partner limit of the whole API, per minute. */
  rateLimitPerMinute: number;
  /** SMTP transport URL; null keeps messages in the development mailbox. */
  smtpUrl: string | null;
  /** From address of e-mails. */
  mailFrom: string;
  // The three below are optional so that tools that build a config by hand (the import CLI,
  // the benchmarks) keep compiling and get the safe defaults.
  /**
   * Which peers may tell the client's address in `X-Forwarded-For` (`TRUST_PROXY`): a hop
   * count, or addresses/CIDRs/keywords as proxy-addr takes them. Absent, 0 or empty: nobody,
   * the socket's peer is the client (see middleware/client-address.ts).
   */
  trustProxy?: TrustProxy | undefined;
  /** Requests per minute to hosted pages per client address; 0 disables. Absent: 300. */
  pageRateLimitPerMinute?: number | undefined;
  /** POSTs per minute to hosted pages per client address, on top of the above; 0 disables. Absent: 60. */
  pagePostRateLimitPerMinute?: number | undefined;
  /**
   * Bearer token of `GET /metrics` (`METRICS_TOKEN`); absent or null: `operatorToken` serves.
   * Optional like the three above, for configs built by hand.
   */
  metricsToken?: string | null | undefined;
  /** The console's operators (`OPERATOR_EMAILS`), lowercased; absent: none. */
  operatorEmails?: readonly string[] | undefined;
  /**
   * Live stock streams of the buy access layer one process keeps open at most
   * (`ACCESS_LAYER_MAX_STREAMS`); beyond, 503 with Retry-After. Absent: {@link ACCESS_LAYER_MAX_STREAMS_DEFAULT}.
   */
  accessLayerMaxStreams?: number | undefined;
  /**
   * SQLite: buy attempts written in groups, one durable commit per group (`SQLITE_GROUP_COMMIT`,
   * db/group-commit.ts). Absent: false. Ignored on PostgreSQL.
   */
  groupCommit?: boolean | undefined;
}

/** Defaults of `PAGE_RATE_LIMIT_PER_MINUTE` and `PAGE_POST_RATE_LIMIT_PER_MINUTE`. */
export const PAGE_RATE_LIMIT_DEFAULTS = { perMinute: 300, postPerMinute: 60 } as const;

/**
 * Default of `ACCESS_LAYER_MAX_STREAMS`: each open stream holds a socket and a few kB, and
 * costs nothing while its show's stock does not change (flows/accesslayer/accesslayer.stream.ts).
 */
export const ACCESS_LAYER_MAX_STREAMS_DEFAULT = 2_000;
