import type { ScreeningHitData } from '@crs/contracts';
import { newId, streamKey, type DurablePublisher, type TopicNames } from '@crs/messaging';
import type { Logger } from '@crs/runtime';
import type { CustomerDirectory } from '../domain/customer-directory';
import { queryTokensOf, type DecisionBook, type ScreeningDecision } from '../domain/suppression';
import type { ScreeningIndexes } from '../lists/screening-indexes';
import { screeningDecisionRecordedMessage } from '../lists/list-messages';
import type { CustomerCommandWriter } from '../customer-commands';
import { screenedNameHash } from '../screened-name-hash';
import { ScreeningHitNotFoundError } from './api-error';
import type { DecisionRequest } from './search-query';

export interface ScreeningDecisionsDeps {
  directory: CustomerDirectory;
  book: DecisionBook;
  indexes: ScreeningIndexes;
  commands: CustomerCommandWriter;
  /** Set at start. */
  publisher: () => DurablePublisher;
  topics: () => Pick<TopicNames, 'screeningLists'>;
  clock: () => Date;
  logger: Logger;
}

/**
 * Records a reviewer's decision on a customer's last hit: a RecordScreeningDecision to the customer
 * stream and a ScreeningDecisionRecorded on the lists topic, then applies it at once. Resolves with the
 * decision event's id.
 */
export function screeningDecisions(
  deps: ScreeningDecisionsDeps,
): (request: DecisionRequest, decidedBy: string) => Promise<string> {
  const { directory, book, indexes, commands, clock, logger } = deps;
  return async (request, decidedBy) => {
    const streamId = streamKey(request.businessUnit, request.customerExtId);
    const screened = directory.screened.get(streamId);
    const hit: ScreeningHitData | undefined = screened?.lastHits[request.list]?.find(
      (h) => h.entryId === request.entryId && (!request.source || h.source === request.source),
    );
    if (!hit) throw new ScreeningHitNotFoundError();
    const decision: ScreeningDecision = {
      streamId,
      list: request.list,
      source: hit.source,
      entryId: hit.entryId,
      decision: request.decision,
      subject: hit.subject ?? 'CUSTOMER',
      entryHash: indexes.entryHashOf(hit.source, hit.entryId) ?? 'REMOVED',
      screenedNameHash: screenedNameHash(queryTokensOf(hit)),
    };
    const eventId = newId();
    await deps.publisher().publish([
      // The customer stream learns the decision too, so the risk evaluation sees confirmed matches.
      commands(
        'RecordScreeningDecision',
        {
          commandId: `${eventId}:decision`,
          streamId,
          correlationId: screened!.correlationId,
          causationId: eventId,
          businessUnit: request.businessUnit,
          customerExtId: request.customerExtId,
        },
        {
          decisionId: eventId,
          list: decision.list,
          source: decision.source,
          entryId: decision.entryId,
          subject: decision.subject,
          decision: decision.decision,
          reason: request.reason,
          decidedBy,
        },
      ),
      screeningDecisionRecordedMessage(deps.topics().screeningLists, eventId, clock().toISOString(), {
        ...decision,
        businessUnit: request.businessUnit,
        customerExtId: request.customerExtId,
        reason: request.reason,
        decidedBy,
      }),
    ]);
    // Applied at once (the log replays it identically on restart), so the next screening already sees it.
    book.record(decision);
    logger.info(
      {
        list: decision.list,
        source: decision.source,
        entryId: decision.entryId,
        decision: decision.decision,
      },
      'screening decision recorded',
    );
    return eventId;
  };
}
