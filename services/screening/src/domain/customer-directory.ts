import type { CustomerEvent, ScreeningHitData, ScreeningList } from '@crs/contracts/types';
import { normalizeCountries, type ListEntry } from '@crs/screening-core/matcher';
import { screenedFields, screeningSubjects, type ScreeningSubject } from './screening-subjects';

/** What ongoing screening needs of a customer that asked for screening: whom to screen, against what, and the last result. */
export interface ScreenedCustomer {
  streamId: string;
  businessUnit: string;
  customerExtId: string;
  /** The communicationNumber of the last screening request (correlation of re-screening results). */
  correlationId: string;
  subjects: ScreeningSubject[];
  lists: ScreeningList[];
  lastHits: Partial<Record<ScreeningList, ScreeningHitData[]>>;
}

/**
 * A customer with a list purpose. Customers without one are not kept (a directory of millions of customers
 * would otherwise hold every record in memory); the record's screened fields (`screenedFields`) only while
 * the purpose is BLACK: the record that makes a customer BLACK carries `listPurpose` itself (the decider
 * records the purpose from an imported record), so it is always the one kept.
 */
interface InternalCandidate {
  businessUnit: string;
  customer?: Record<string, unknown>;
  purpose: 'WHITE' | 'BLACK';
}

/** Source of the INTERNAL_LIST entries derived from customers marked listPurpose BLACK. */
export const INTERNAL_CUSTOMERS_SOURCE = 'INTERNAL_CUSTOMERS';

/**
 * Folded from the customer event log: the compact registry of screened customers (for ongoing screening and
 * for decisions) and the customers marked BLACK (the customer-derived internal list). Pure: events in, state out.
 */
export class CustomerDirectory {
  readonly screened = new Map<string, ScreenedCustomer>();
  private readonly internal = new Map<string, InternalCandidate>();
  private internalRevision = 0;

  /** Applies one event; returns true when the customer-derived internal list changed. */
  apply(event: CustomerEvent): boolean {
    switch (event.type) {
      case 'CustomerCreated':
      case 'CustomerUpdated': {
        const prev = this.internal.get(event.streamId);
        const purpose = event.data.customer.listPurpose ?? prev?.purpose;
        if (!purpose) this.internal.delete(event.streamId);
        else
          this.internal.set(event.streamId, {
            businessUnit: event.businessUnit,
            purpose,
            ...(purpose === 'BLACK' ? { customer: screenedFields(event.data.customer) } : {}),
          });
        return this.bump(prev?.purpose === 'BLACK' || purpose === 'BLACK');
      }
      case 'InternalListPurposeRecorded': {
        const prev = this.internal.get(event.streamId);
        const purpose = event.data.listPurpose;
        this.internal.set(event.streamId, {
          businessUnit: event.businessUnit,
          purpose,
          ...(purpose === 'BLACK' && prev?.customer ? { customer: prev.customer } : {}),
        });
        return this.bump(prev?.purpose !== purpose);
      }
      case 'ScreeningRequested': {
        const prev = this.screened.get(event.streamId);
        this.screened.set(event.streamId, {
          streamId: event.streamId,
          businessUnit: event.businessUnit,
          customerExtId: event.customerExtId,
          correlationId: event.correlationId,
          subjects: event.data.customer ? screeningSubjects(event.data.customer) : (prev?.subjects ?? []),
          lists: [...new Set([...(prev?.lists ?? []), ...event.data.lists])],
          lastHits: prev?.lastHits ?? {},
        });
        return false;
      }
      case 'ScreeningCompleted': {
        const s = this.screened.get(event.streamId);
        if (s) s.lastHits = { ...s.lastHits, [event.data.list]: event.data.hits };
        return false;
      }
      case 'PersonalDataErased': {
        // docs/privacy.md: an erased customer is screened no more and leaves the internal list.
        this.screened.delete(event.streamId);
        const prev = this.internal.get(event.streamId);
        this.internal.delete(event.streamId);
        return this.bump(prev?.purpose === 'BLACK');
      }
      default:
        return false;
    }
  }

  /**
   * What the directory holds of a customer with a list purpose: the purpose, and the screened fields
   * while it is BLACK. Undefined for a customer without one (nothing of it is held).
   */
  listPurposeOf(streamId: string): Readonly<{ purpose: 'WHITE' | 'BLACK'; customer?: object }> | undefined {
    const held = this.internal.get(streamId);
    return held && { purpose: held.purpose, ...(held.customer ? { customer: held.customer } : {}) };
  }

  /** How many customers with a list purpose the directory holds (its memory beside `screened`). */
  get listPurposeCustomers(): number {
    return this.internal.size;
  }

  /** Whether the directory holds a list purpose (BLACK or WHITE) for the customer. */
  hasListPurpose(streamId: string): boolean {
    return this.internal.has(streamId);
  }

  /** Whether the customer is marked BLACK (its record feeds the internal list, so it is kept in plain). */
  isBlack(streamId: string): boolean {
    return this.internal.get(streamId)?.purpose === 'BLACK';
  }

  private bump(changed: boolean): boolean {
    if (changed) this.internalRevision++;
    return changed;
  }

  /**
   * The BLACK customers as INTERNAL_LIST entries (entry id = stream id, <businessUnit>:<customerExtId>),
   * in stream id order; the composition root makes them a snapshot (its version is a hash).
   */
  internalEntries(): ListEntry[] {
    const entries: ListEntry[] = [];
    for (const [streamId, c] of [...this.internal].sort(([a], [b]) => a.localeCompare(b))) {
      if (c.purpose !== 'BLACK' || !c.customer) continue;
      const subject = screeningSubjects(c.customer).find((s) => s.key === 'CUSTOMER');
      if (!subject) continue;
      entries.push({
        list: 'INTERNAL_LIST',
        source: INTERNAL_CUSTOMERS_SOURCE,
        id: streamId,
        entityType: subject.entityType,
        names: subject.names,
        ...(subject.birthDate ? { birthDates: [subject.birthDate] } : {}),
        ...(subject.countries ? { countries: normalizeCountries(subject.countries) } : {}),
        ...(subject.identifiers ? { identifiers: subject.identifiers } : {}),
      });
    }
    return entries;
  }

  get revision(): number {
    return this.internalRevision;
  }
}
