import type { Collection, Db } from 'mongodb';
import type { CustomerCommand } from '@crs/contracts';
import type { DurablePublisher } from '@crs/messaging';
import type { Counter, Logger } from '@crs/runtime';
import {
  detectDialect,
  insertNew,
  pagesById,
  type CustomerDoc,
  type CustomerOverride,
  type ProjectionCatalog,
} from '@crs/store';
import { overrideExpiryCommandId, overrideExpiryKey } from './domain/message-ids';

/** Owned by the evaluation service: override expiries already answered with a re-evaluation. */
export const HANDLED_OVERRIDE_EXPIRIES = 'evaluation_override_expiries';

/** What the scan reads of a customer in the `customers` read model: one whose override has an expiry (the filter). */
type CustomerRow = Pick<CustomerDoc, '_id' | 'businessUnit' | 'customerExtId'> & {
  override: CustomerOverride & { expiresAt: string };
};

/**
 * An override stops applying at its expiresAt, but nothing happens in the customer's stream at that
 * moment. This scan finds customers whose override has expired (in the customers projection) and asks
 * the decider for a re-evaluation (reason OVERRIDE_EXPIRED); the decider, which no longer applies the
 * expired override, records the computed level. Each expiry is handled once (a marker per customer,
 * override and expiry); a crash between publishing and marking sends one more harmless request.
 */
export class OverrideExpiryScanner {
  private readonly handled: Collection<{ _id: string; handledAt: Date }>;
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly opts: {
      db: Db;
      catalog: ProjectionCatalog;
      publisher: DurablePublisher;
      commandsTopic: string;
      logger: Logger;
      published: Counter<'reason'>;
      periodMs: number;
      chunkSize: number;
      clock: () => Date;
    },
  ) {
    this.handled = opts.db.collection(HANDLED_OVERRIDE_EXPIRIES);
  }

  start(): void {
    if (this.opts.periodMs <= 0) return;
    const tick = () => {
      this.scanning = this.scanOnce()
        .then((n) => {
          if (n > 0)
            this.opts.logger.info({ reevaluations: n }, 'expired overrides: re-evaluation requested');
        })
        .catch((err: unknown) =>
          this.opts.logger.error({ err }, 'override expiry scan failed; retried next period'),
        )
        .finally(() => {
          this.scanning = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, this.opts.periodMs);
        });
    };
    this.timer = setTimeout(tick, this.opts.periodMs);
  }

  /** One pass over every expired override; returns how many re-evaluations it requested. */
  async scanOnce(): Promise<number> {
    const { opts } = this;
    const now = opts.clock().toISOString();
    const customers = await opts.catalog.collection<CustomerRow>('customers');
    let requested = 0;
    const pages = pagesById(
      customers,
      {
        // ISO dates and date-times compare as strings; a date expires at the start of that day, as in the decider.
        'override.expiresAt': { $lte: now },
        simplified: { $ne: true },
      },
      {
        projection: { _id: 1, businessUnit: 1, customerExtId: 1, override: 1 },
        pageSize: opts.chunkSize,
        after: null,
        dialect: await detectDialect(opts.db),
      },
    );
    for await (const rows of pages) {
      if (this.stopped) return requested;
      const keyed = rows.map((r) => ({
        row: r,
        key: overrideExpiryKey(r._id, r.override.setAt ?? '', r.override.expiresAt),
      }));
      const seen = new Set(
        (
          await this.handled
            .find({ _id: { $in: keyed.map((k) => k.key) } }, { projection: { _id: 1 } })
            .toArray()
        ).map((d) => d._id),
      );
      const todo = keyed.filter((k) => !seen.has(k.key));
      if (todo.length > 0) {
        const issuedAt = opts.clock().toISOString();
        await opts.publisher.publish(
          todo.map(({ row, key }) => {
            const command: CustomerCommand = {
              commandId: overrideExpiryCommandId(key),
              type: 'RequestReevaluation',
              streamId: row._id,
              issuedAt,
              correlationId: `override-expired-${row.customerExtId}`,
              businessUnit: row.businessUnit,
              customerExtId: row.customerExtId,
              issuedBy: 'evaluation',
              data: { reason: 'OVERRIDE_EXPIRED' },
            };
            return { topic: opts.commandsTopic, key: row._id, type: command.type, value: command };
          }),
        );
        // E11000: another replica recorded the expiry too; any other failure is thrown (insertNew).
        await insertNew(
          this.handled,
          todo.map((t) => ({ _id: t.key, handledAt: opts.clock() })),
        );
        opts.published.labels('OVERRIDE_EXPIRED').inc(todo.length);
        requested += todo.length;
      }
    }
    return requested;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.scanning?.catch(() => undefined);
  }
}
