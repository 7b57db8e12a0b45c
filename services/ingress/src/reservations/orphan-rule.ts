import type { ReservationDoc } from './reservation';

/**
 * Whether a held reservation is an orphan that a retry for `customerExtId` may reclaim: reserved for that
 * same customer, older than `orphanAfterMs` (so its attempt cannot still be publishing), and its command
 * never acknowledged by Kafka (`published`, the ingress's own record, asked last and only when the rest
 * holds). `orphanAfterMs` 0 or unset: never.
 */
export async function isOrphan(
  held: Pick<ReservationDoc, 'customerExtId' | 'reservedAt'>,
  retry: { customerExtId: string; now: Date },
  orphanAfterMs: number | undefined,
  published: () => Promise<boolean>,
): Promise<boolean> {
  if (!orphanAfterMs || held.customerExtId !== retry.customerExtId) return false;
  if (retry.now.getTime() - new Date(held.reservedAt).getTime() < orphanAfterMs) return false;
  return !(await published());
}
