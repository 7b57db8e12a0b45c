/** A communicationNumber reservation in `comm_reservations` (the ingress's own database). */
export interface ReservationDoc {
  _id: string;
  businessUnit: string;
  communicationNumber: string;
  customerExtId: string;
  reservedAt: Date;
  commandId: string;
  /**
   * The group of reservations it was inserted with: the publication record says per group which
   * commands Kafka acknowledged (`PublicationRecord`). Absent on reservations made before that record.
   */
  group?: string;
}

/** The `_id` of a reservation: unique per business unit and communicationNumber. */
export function reservationKey(businessUnit: string, communicationNumber: string): string {
  // A separator that cannot occur in a JSON string key collision: lengths are prefixed.
  return `${businessUnit.length}:${businessUnit}:${communicationNumber}`;
}
