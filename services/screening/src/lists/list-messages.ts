import type { OutgoingMessage } from '@crs/messaging';
import type { ScreeningDecision } from '../domain/suppression';
import type { SnapshotChange } from './list-catalog';

/** What the screening lists topic carries: list snapshots loaded, and decisions on hits. */
export type ListMessage =
  | { eventId: string; type: 'ListSnapshotLoaded'; occurredAt: string; data: Record<string, unknown> }
  | {
      eventId: string;
      type: 'ScreeningDecisionRecorded';
      occurredAt: string;
      data: ScreeningDecision & Record<string, unknown>;
    };

/** One ListSnapshotLoaded per change, keyed by list and source: versions and counts, no entries. */
export function listSnapshotLoadedMessages(
  topic: string,
  clock: () => Date,
  changes: readonly SnapshotChange[],
): OutgoingMessage[] {
  return changes.map(({ next, previous, diff }) => ({
    topic,
    key: `${next.list}:${next.source}`,
    type: 'ListSnapshotLoaded',
    value: {
      eventId: `${next.source}:${next.version}`,
      type: 'ListSnapshotLoaded',
      occurredAt: clock().toISOString(),
      data: {
        list: next.list,
        source: next.source,
        version: next.version,
        entryCount: next.entryCount,
        loadedAt: next.loadedAt,
        ...(previous ? { previousVersion: previous.version } : {}),
        ...(diff
          ? {
              diff: {
                added: diff.added.length,
                changed: diff.changed.length,
                removed: diff.removed.length,
              },
            }
          : {}),
      },
    },
  }));
}

/** A decision on a hit, keyed by the customer's stream so that one customer's decisions keep their order. */
export function screeningDecisionRecordedMessage(
  topic: string,
  eventId: string,
  occurredAt: string,
  data: ScreeningDecision & Record<string, unknown>,
): OutgoingMessage {
  return {
    topic,
    key: data.streamId,
    type: 'ScreeningDecisionRecorded',
    value: { eventId, type: 'ScreeningDecisionRecorded', occurredAt, data },
  };
}
