import type { CustomerEvent } from '@crs/contracts';
import type { DecodedMessage, OutgoingMessage } from '@crs/messaging';
import type { CustomerPrivacy } from '@crs/privacy';
import type { Histogram } from '@crs/runtime';
import { admitFor } from '../domain/admit-hit';
import { screenSubjects } from '../domain/screen-customer';
import { screenedFields, screeningSubjects } from '../domain/screening-subjects';
import { applySuppression, type DecisionBook } from '../domain/suppression';
import { thresholdsFor } from '../domain/thresholds';
import type { ScreeningIndexes } from '../lists/screening-indexes';
import type { CustomerCommandWriter } from '../customer-commands';
import { screenedNameHash } from '../screened-name-hash';
import type { ScreeningConfig } from '../config';

export type ScreeningRequested = Extract<CustomerEvent, { type: 'ScreeningRequested' }>;

export interface ScreeningRequestedReactorDeps {
  config: Pick<ScreeningConfig, 'SCREENING_THRESHOLD' | 'thresholdOverrides'>;
  indexes: ScreeningIndexes;
  book: DecisionBook;
  /** Set at start, once the key store is connected. */
  privacy: () => CustomerPrivacy;
  commands: CustomerCommandWriter;
  duration: Histogram<'kind'>;
}

/**
 * The reactor of ScreeningRequested: one RecordScreeningResult per requested list, its hits after the
 * recorded decisions, with ids derived from the event so that a re-processed event yields the same
 * commands. Returns the batch handler of the transactional processor.
 */
export function screeningRequestedReactor(
  deps: ScreeningRequestedReactorDeps,
): (messages: DecodedMessage<CustomerEvent>[]) => Promise<OutgoingMessage[]> {
  const { config, indexes, book, commands, duration } = deps;

  const screenRequest = async (event: ScreeningRequested): Promise<OutgoingMessage[]> => {
    const started = process.hrtime.bigint();
    const privacy = deps.privacy();
    // docs/privacy.md: what screening reads of the record (screenedFields) is decrypted in memory; the
    // hits' personal fields are encrypted again.
    const customer = event.data.customer
      ? (await privacy.decrypt(event.streamId, screenedFields(event.data.customer))).record
      : undefined;
    const subjects = customer ? screeningSubjects(customer) : [];
    const lists = [...new Set(event.data.lists)];
    const found = screenSubjects(
      indexes.all(),
      subjects,
      lists,
      thresholdsFor(config.SCREENING_THRESHOLD, config.thresholdOverrides, event.businessUnit),
      admitFor([event.businessUnit], event.streamId),
    );
    const out = lists.map(async (list) => {
      const hits = await privacy.encryptHits(
        event.streamId,
        applySuppression(event.streamId, found[list], book, indexes.entryHashOf, screenedNameHash),
      );
      return commands(
        'RecordScreeningResult',
        {
          // Derived from the event and the list: a re-processed event yields the same command.
          commandId: `${event.eventId}:screening:${list}`,
          streamId: event.streamId,
          correlationId: event.correlationId,
          causationId: event.eventId,
          businessUnit: event.businessUnit,
          customerExtId: event.customerExtId,
        },
        {
          requestId: event.data.requestId,
          list,
          matched: hits.some((h) => !h.suppressed),
          hits,
          snapshotVersion: indexes.snapshotVersion(list),
        },
      );
    });
    const result = await Promise.all(out);
    duration.labels('request').observe(Number(process.hrtime.bigint() - started) / 1e9);
    return result;
  };

  return async (messages) => {
    // The keys of the batch's customers in one store read, not one per customer (decision 0032).
    const customers = messages.flatMap((m) =>
      m.value.type === 'ScreeningRequested' && m.value.data.customer ? [m.value.streamId] : [],
    );
    if (customers.length > 0) await deps.privacy().warmKeys(customers);
    const out: OutgoingMessage[] = [];
    for (const m of messages)
      if (m.value.type === 'ScreeningRequested') out.push(...(await screenRequest(m.value)));
    return out;
  };
}
