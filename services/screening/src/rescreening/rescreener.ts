import type { DurablePublisher, OutgoingMessage } from '@crs/messaging';
import type { CustomerPrivacy } from '@crs/privacy';
import type { Histogram, Logger } from '@crs/runtime';
import { admitFor } from '../domain/admit-hit';
import type { CustomerDirectory } from '../domain/customer-directory';
import { chunks, mergeRescreenedHits } from '../domain/rescreening';
import { screenSubjects } from '../domain/screen-customer';
import { applySuppression, sameMatches, type DecisionBook } from '../domain/suppression';
import { thresholdsFor } from '../domain/thresholds';
import type { SnapshotChange } from '../lists/list-catalog';
import type { ScreeningIndexes } from '../lists/screening-indexes';
import type { CustomerCommandWriter } from '../customer-commands';
import { screenedNameHash } from '../screened-name-hash';
import type { ScreeningConfig } from '../config';

export interface RescreenerDeps {
  config: Pick<ScreeningConfig, 'SCREENING_THRESHOLD' | 'thresholdOverrides' | 'RESCREEN_CHUNK_SIZE'>;
  indexes: ScreeningIndexes;
  directory: CustomerDirectory;
  book: DecisionBook;
  /** Set at start; until then there is nothing to re-screen with. */
  publisher: () => DurablePublisher | undefined;
  privacy: () => CustomerPrivacy;
  commands: CustomerCommandWriter;
  duration: Histogram<'kind'>;
  logger: Logger;
  /** True once the service stops: re-screening ends between two chunks. */
  stopping: () => boolean;
}

/**
 * Ongoing screening: known customers against the added and changed entries of one new snapshot, in
 * chunks that yield to the event loop; a customer whose matches changed gets a RecordRescreeningResult.
 */
export function rescreener(deps: RescreenerDeps): (change: SnapshotChange) => Promise<void> {
  const { config, indexes, directory, book, commands, duration, logger } = deps;
  return async (change) => {
    const { next, diff } = change;
    const publisher = deps.publisher();
    if (!diff || !publisher) return;
    const freshIds = new Set([...diff.added, ...diff.changed]);
    if (freshIds.size === 0 && diff.removed.length === 0) return;
    const fresh = indexes.indexOf([{ ...next, entries: next.entries.filter((e) => freshIds.has(e.id)) }]);
    const customers = [...directory.screened.values()].filter(
      (c) => c.lists.includes(next.list) && c.lastHits[next.list] !== undefined,
    );
    logger.info(
      {
        list: next.list,
        source: next.source,
        added: diff.added.length,
        changed: diff.changed.length,
        removed: diff.removed.length,
        customers: customers.length,
      },
      're-screening customers against a new list snapshot',
    );
    let done = 0;
    let emitted = 0;
    for (const chunk of chunks(customers, Math.max(1, config.RESCREEN_CHUNK_SIZE))) {
      if (deps.stopping()) return;
      const out: OutgoingMessage[] = [];
      for (const c of chunk) {
        const started = process.hrtime.bigint();
        const previous = c.lastHits[next.list] ?? [];
        const found = screenSubjects(
          [fresh],
          c.subjects,
          [next.list],
          thresholdsFor(config.SCREENING_THRESHOLD, config.thresholdOverrides, c.businessUnit),
          admitFor([c.businessUnit], c.streamId),
        );
        const merged = applySuppression(
          c.streamId,
          mergeRescreenedHits(previous, next.source, diff, found[next.list]),
          book,
          indexes.entryHashOf,
          screenedNameHash,
        );
        duration.labels('rescreen').observe(Number(process.hrtime.bigint() - started) / 1e9);
        if (sameMatches(previous, merged)) continue;
        const hits = await deps.privacy().encryptHits(c.streamId, merged);
        out.push(
          commands(
            'RecordRescreeningResult',
            {
              commandId: `rescreen:${next.source}:${next.version.slice(0, 16)}:${c.streamId}:${next.list}`,
              streamId: c.streamId,
              correlationId: c.correlationId,
              causationId: `${next.source}:${next.version}`,
              businessUnit: c.businessUnit,
              customerExtId: c.customerExtId,
            },
            {
              list: next.list,
              matched: merged.some((h) => !h.suppressed),
              hits,
              snapshotVersion: indexes.snapshotVersion(next.list),
            },
          ),
        );
      }
      await publisher.publish(out);
      done += chunk.length;
      emitted += out.length;
      logger.info(
        { list: next.list, source: next.source, done, of: customers.length, emitted },
        're-screening progress',
      );
      await new Promise((r) => setImmediate(r));
    }
  };
}
