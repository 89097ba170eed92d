import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { perConnection, prepared } from '../../db/statements.js';
import { admissionCredentials, admissionIssuers, type AdmissionCredentialRow, type AdmissionIssuerRow } from './admission.table.js';

/** What the online check needs of an issuer: its show and its sealed tag secret. */
export type ScanIssuer = Pick<AdmissionIssuerRow, 'showPk' | 'tagSecretSealed'>;

/** What the online check needs of a credential (everything but its bookkeeping of binds). */
export type ScanCredential = Pick<AdmissionCredentialRow, 'ticketPk' | 'epoch' | 'ownerPk' | 'deviceKey' | 'admittedScan'>;

/**
 * The statements of a scan's check (`AdmissionService.verify`) on the admission tables,
 * prepared once per connection (`perConnection`): drizzle building the SQL of every statement
 * of every scan was the largest item of the service's CPU profile under a door's load
 * (bench/admission-verify.ts), several times the cost of running them. They run on the
 * connection of the handle they are asked with, inside whatever transaction it is in.
 */
export interface ScanStatements {
  /** The partner's issuer named by a code's key tag (unique per partner). */
  issuerByTag(partnerId: string, keyTag: number): Promise<ScanIssuer | undefined>;
  /** The credential of a show's serial (unique per show). */
  credentialBySerial(showPk: string, serial: number): Promise<ScanCredential | undefined>;
  /** Records the hash of the scan that admitted the ticket. */
  recordAdmittedScan(ticketPk: string, hash: string, now: number): Promise<void>;
}

/**
 * The {@link ScanStatements} of the connection `tx` runs on.
 *
 * @example const issuer = await scanStatements(tx).issuerByTag(partnerId, code.keyTag);
 */
export const scanStatements = perConnection((tx: Tx): ScanStatements => {
  const issuer = prepared(
    tx
      .select({ showPk: admissionIssuers.showPk, tagSecretSealed: admissionIssuers.tagSecretSealed })
      .from(admissionIssuers)
      .where(and(eq(admissionIssuers.partnerId, sql.placeholder('partnerId')), eq(admissionIssuers.keyTag, sql.placeholder('keyTag')))),
    'admission_issuerByTag',
  );
  const credential = prepared(
    tx
      .select({
        ticketPk: admissionCredentials.ticketPk,
        epoch: admissionCredentials.epoch,
        ownerPk: admissionCredentials.ownerPk,
        deviceKey: admissionCredentials.deviceKey,
        admittedScan: admissionCredentials.admittedScan,
      })
      .from(admissionCredentials)
      .where(and(eq(admissionCredentials.showPk, sql.placeholder('showPk')), eq(admissionCredentials.serial, sql.placeholder('serial')))),
    'admission_credentialBySerial',
  );
  const admittedScan = prepared(
    tx
      .update(admissionCredentials)
      .set({ admittedScan: sql`${sql.placeholder('hash')}`, updatedAt: sql`${sql.placeholder('now')}` })
      .where(eq(admissionCredentials.ticketPk, sql.placeholder('ticketPk'))),
    'admission_recordAdmittedScan',
  );
  return {
    issuerByTag: async (partnerId, keyTag) => (await issuer.execute({ partnerId, keyTag }))[0],
    credentialBySerial: async (showPk, serial) => (await credential.execute({ showPk, serial }))[0],
    recordAdmittedScan: async (ticketPk, hash, now) => void (await admittedScan.execute({ ticketPk, hash, now })),
  };
});
