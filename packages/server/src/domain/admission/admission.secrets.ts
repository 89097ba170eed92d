import { createSecretKey, type KeyObject } from 'node:crypto';
import type { SecretBox } from '../../lib/crypto.js';

/** Issuers whose tag secrets one process keeps opened: far more shows than a venue's doors scan at once. */
export const OPENED_TAG_SECRETS_LIMIT = 1_000;

/**
 * The shows' issuer tag secrets, opened once and kept in this process's memory for the online
 * check of codes (`AdmissionService.verify`). Opening the sealed secret on every scan (AES-GCM
 * under a key derived from `SECRET_KEY`, a new cipher each time) cost more than the whole check
 * of the code's tag, and a door scans the same show's codes thousands of times.
 *
 * Never stale, so correct whatever other processes do: an entry is keyed by the sealed text
 * itself, and a sealed text always opens to the same secret (an issuer's secret never changes;
 * a reseal under a newer `SECRET_KEY` is another text, opened again). Nothing else of the
 * issuer is kept: which show a key tag names, and everything a scan checks, is read in the
 * scan's transaction. The secret stays in memory as long as its entry (the process holds
 * `SECRET_KEY`, from which every sealed value opens, so this exposes nothing new). At most
 * {@link OPENED_TAG_SECRETS_LIMIT} entries, the oldest dropped first.
 */
export class OpenedTagSecrets {
  private readonly opened = new Map<string, KeyObject>();

  constructor(
    private readonly box: Pick<SecretBox, 'open'>,
    private readonly limit = OPENED_TAG_SECRETS_LIMIT,
  ) {}

  /**
   * The tag secret sealed in `sealed` (an issuer's `tagSecretSealed`), as a secret KeyObject:
   * HMAC with a KeyObject skips preparing the key from bytes on each use.
   */
  tagSecret(sealed: string): KeyObject {
    const hit = this.opened.get(sealed);
    if (hit !== undefined) return hit;
    const secret = createSecretKey(Buffer.from(this.box.open(sealed), 'base64url'));
    if (this.opened.size >= this.limit) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(sealed, secret);
    return secret;
  }

  /** How many secrets are held (tests). */
  get size(): number {
    return this.opened.size;
  }
}
