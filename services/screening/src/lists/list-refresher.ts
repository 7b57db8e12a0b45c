import type { DurablePublisher, TopicNames } from '@crs/messaging';
import type { Logger } from '@crs/runtime';
import type { ListCatalog, SnapshotChange } from './list-catalog';
import { listSnapshotLoadedMessages } from './list-messages';
import type { ScreeningIndexes } from './screening-indexes';

export interface ListRefresherDeps {
  catalog: ListCatalog;
  indexes: ScreeningIndexes;
  /** Set at start, before the first publication. */
  publisher: () => DurablePublisher;
  topics: () => Pick<TopicNames, 'screeningLists'>;
  clock: () => Date;
  /** Re-screens known customers against one changed snapshot. */
  rescreen: (change: SnapshotChange) => Promise<void>;
  logger: Logger;
  /** Seconds between refreshes; 0 = off. */
  intervalSec: number;
  stopping: () => boolean;
}

/**
 * Keeps the lists fresh: on every interval the catalog is read again and, when a snapshot changed, the
 * index is rebuilt, the new snapshots are announced on the lists topic, and known customers are
 * re-screened against what changed. One refresh at a time.
 */
export class ListRefresher {
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly deps: ListRefresherDeps) {}

  /** Announces loaded snapshots (ListSnapshotLoaded) on the lists topic. */
  async publish(changes: readonly SnapshotChange[]): Promise<void> {
    const { publisher, topics, clock } = this.deps;
    await publisher().publish(listSnapshotLoadedMessages(topics().screeningLists, clock, changes));
  }

  async refresh(): Promise<void> {
    const changes = await this.deps.catalog.refresh();
    if (changes.length === 0) return;
    this.deps.indexes.rebuildMain('refresh');
    await this.publish(changes);
    for (const change of changes) await this.deps.rescreen(change);
  }

  start(): void {
    const { intervalSec, stopping, logger } = this.deps;
    if (!(intervalSec > 0)) return;
    this.timer = setInterval(() => {
      if (this.refreshing || stopping()) return;
      this.refreshing = this.refresh()
        .catch((err: unknown) => logger.error({ err }, 'list refresh failed'))
        .finally(() => {
          this.refreshing = undefined;
        });
    }, intervalSec * 1000);
    this.timer.unref();
  }

  /** Stops the interval and waits for a refresh under way (it ends early once `stopping` is true). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
  }
}
