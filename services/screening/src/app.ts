import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Health, Histogram, createMetricsRegistry, type Logger, type Registry } from '@crs/runtime';
import { createTokenVerifier } from '@crs/auth';
import type { CustomerCommand, CustomerEvent, ScreeningHitData, ScreeningListName } from '@crs/contracts';
import {
  DurablePublisher,
  StreamReader,
  TransactionalProcessor,
  newId,
  setUpMessaging,
  streamKey,
  type DecodedMessage,
  type OutgoingMessage,
  type TopicNames,
} from '@crs/messaging';
import {
  buildIndex,
  createNameReader,
  loadJapaneseTokenizer,
  KOREAN_READER,
  type NameReader,
  entryContentHash,
  screen,
  type Hit,
  type ListSnapshot,
  type ScreeningIndex,
} from '@crs/screening-core';
import { CustomerDirectory, INTERNAL_CUSTOMERS_SOURCE } from './domain/customer-directory';
import { screenSubjects } from './domain/screen-customer';
import { screeningSubjects } from './domain/screening-subjects';
import {
  DecisionBook,
  applySuppression,
  queryTokensOf,
  sameMatches,
  type ScreeningDecision,
} from './domain/suppression';
import { screenedNameHash } from './screened-name-hash';
import { thresholdsFor } from './domain/thresholds';
import { chunks, mergeRescreenedHits } from './domain/rescreening';
import { ListCatalog, type SnapshotChange } from './lists/list-catalog';
import { screeningRoutes } from './http/screening-routes';
import { ScreeningHitNotFoundError, ScreeningRouteNotFoundError } from './http/api-error';
import { errorMiddleware } from './http/error-middleware';
import type { DecisionRequest, SearchQuery } from './http/search-query';
import type { ScreeningConfig } from './config';
import { CustomerPrivacy } from '@crs/privacy';
import { connectMongo } from '@crs/store';

export interface ScreeningService {
  start(): Promise<void>;
  stop(): Promise<void>;
  port(): number;
  metrics: Registry;
}

type ListMessage =
  | { eventId: string; type: 'ListSnapshotLoaded'; occurredAt: string; data: Record<string, unknown> }
  | {
      eventId: string;
      type: 'ScreeningDecisionRecorded';
      occurredAt: string;
      data: ScreeningDecision & Record<string, unknown>;
    };

const SERVICE = 'screening';

/**
 * The screening reactor: answers each ScreeningRequested with one RecordScreeningResult per list (exactly
 * once, in the transaction that consumes the event), keeps the lists fresh and re-screens known customers
 * against what changed, and serves ad-hoc search and hit decisions over HTTP on the health port.
 */
export function buildScreeningService(
  config: ScreeningConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): ScreeningService {
  const metrics = createMetricsRegistry(SERVICE);
  const health = new Health();
  const duration = new Histogram({
    name: 'screening_duration_seconds',
    help: 'Time to screen one customer (all subjects, all requested lists)',
    labelNames: ['kind'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  });
  const catalog = new ListCatalog({
    configFile: config.LISTS_CONFIG_FILE,
    sharedDataDir: config.sharedDataDir,
    logger,
    metrics,
    clock,
  });
  const directory = new CustomerDirectory();
  const book = new DecisionBook();
  let mainIndex: ScreeningIndex | undefined;
  let internal:
    | { revision: number; snapshot: ListSnapshot; index: ScreeningIndex; hashes: Map<string, string> }
    | undefined;
  let topics: TopicNames | undefined;
  let publisher: DurablePublisher | undefined;
  let eventsReader: StreamReader<CustomerEvent> | undefined;
  let listsReader: StreamReader<ListMessage> | undefined;
  let processor: TransactionalProcessor<CustomerEvent> | undefined;
  let server: Server | undefined;
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;
  let stopping = false;
  let privacy = CustomerPrivacy.disabled();
  let mongo: Awaited<ReturnType<typeof connectMongo>>['client'] | undefined;
  // Korean readings until the Japanese dictionary is loaded at start (when configured).
  let reader: NameReader = KOREAN_READER;
  const indexOf = (snapshots: readonly ListSnapshot[]) => buildIndex(snapshots, { reader });

  const rebuildMainIndex = (reason: string) => {
    const started = process.hrtime.bigint();
    const snapshots = catalog.current();
    mainIndex = indexOf(snapshots);
    // Counts and versions only: entries are names of people.
    logger.info(
      {
        reason,
        ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        entries: mainIndex.entries.length,
        names: mainIndex.names.length,
        snapshots: snapshots.map((s) => ({
          list: s.list,
          source: s.source,
          entryCount: s.entryCount,
          version: s.version.slice(0, 12),
        })),
        heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
      },
      'screening index built',
    );
  };

  /** The customer-derived internal list, rebuilt when a BLACK mark changed (it is small). */
  const internalList = () => {
    if (!internal || internal.revision !== directory.revision) {
      const snapshot = directory.internalSnapshot(clock().toISOString());
      internal = {
        revision: directory.revision,
        snapshot,
        index: indexOf([snapshot]),
        hashes: new Map(snapshot.entries.map((e) => [e.id, entryContentHash(e)])),
      };
    }
    return internal;
  };

  const indexes = (): ScreeningIndex[] => [mainIndex!, internalList().index];

  const entryHashOf = (source: string, entryId: string): string | undefined =>
    source === INTERNAL_CUSTOMERS_SOURCE
      ? internalList().hashes.get(entryId)
      : catalog.entryHash(source, entryId);

  /** Another business unit's internal list is not ours, and a BLACK customer does not match itself. */
  const admitFor = (businessUnits: '*' | readonly string[], self?: string) => (hit: Hit) => {
    if (hit.source !== INTERNAL_CUSTOMERS_SOURCE) return true;
    if (hit.entryId === self) return false;
    const bu = hit.entryId.slice(0, hit.entryId.indexOf(':'));
    return businessUnits === '*' || businessUnits.includes(bu);
  };

  const snapshotVersion = (list: ScreeningListName): string => {
    const parts = catalog
      .current()
      .filter((s) => s.list === list)
      .map((s) => `${s.source}:${s.version.slice(0, 16)}`);
    if (list === 'INTERNAL_LIST')
      parts.push(`${INTERNAL_CUSTOMERS_SOURCE}:${internalList().snapshot.version.slice(0, 16)}`);
    return parts.sort().join(',') || 'none';
  };

  const command = (
    type: 'RecordScreeningResult' | 'RecordRescreeningResult' | 'RecordScreeningDecision',
    base: {
      commandId: string;
      streamId: string;
      correlationId: string;
      causationId: string;
      businessUnit: string;
      customerExtId: string;
    },
    data: CustomerCommand['data'],
  ): OutgoingMessage => ({
    topic: topics!.customerCommands,
    key: base.streamId,
    type,
    value: { ...base, type, issuedAt: clock().toISOString(), issuedBy: SERVICE, data },
  });

  const screenRequest = async (
    event: Extract<CustomerEvent, { type: 'ScreeningRequested' }>,
  ): Promise<OutgoingMessage[]> => {
    const started = process.hrtime.bigint();
    // docs/privacy.md: decrypted in memory for screening; the hits' personal fields are encrypted again.
    const customer = event.data.customer
      ? (await privacy.decrypt(event.streamId, event.data.customer)).record
      : undefined;
    const subjects = customer ? screeningSubjects(customer) : [];
    const lists = [...new Set(event.data.lists)];
    const found = screenSubjects(
      indexes(),
      subjects,
      lists,
      thresholdsFor(config.SCREENING_THRESHOLD, config.thresholdOverrides, event.businessUnit),
      admitFor([event.businessUnit], event.streamId),
    );
    const out = lists.map(async (list) => {
      const hits = await privacy.encryptHits(
        event.streamId,
        applySuppression(event.streamId, found[list], book, entryHashOf, screenedNameHash),
      );
      return command(
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
          snapshotVersion: snapshotVersion(list),
        },
      );
    });
    const commands = await Promise.all(out);
    duration.labels('request').observe(Number(process.hrtime.bigint() - started) / 1e9);
    return commands;
  };

  const processBatch = async (messages: DecodedMessage<CustomerEvent>[]): Promise<OutgoingMessage[]> => {
    const out: OutgoingMessage[] = [];
    for (const m of messages)
      if (m.value.type === 'ScreeningRequested') out.push(...(await screenRequest(m.value)));
    return out;
  };

  /**
   * What the directory needs in plain (docs/privacy.md): the record of a screening request (whom to
   * re-screen), the hits of a result (what changed), and the record of a customer marked BLACK (the
   * internal list). Everything else is folded as it is, without a key look-up.
   */
  const revealForDirectory = async (event: CustomerEvent): Promise<CustomerEvent> => {
    switch (event.type) {
      case 'ScreeningRequested':
        if (!event.data.customer) return event;
        return {
          ...event,
          data: {
            ...event.data,
            customer: (await privacy.decrypt(event.streamId, event.data.customer)).record,
          },
        };
      case 'ScreeningCompleted':
        return {
          ...event,
          data: { ...event.data, hits: (await privacy.decryptHits(event.streamId, event.data.hits)).hits },
        };
      case 'CustomerCreated':
      case 'CustomerUpdated':
        if (event.data.customer.listPurpose !== 'BLACK' && !directory.isBlack(event.streamId)) return event;
        return {
          ...event,
          data: {
            ...event.data,
            customer: (await privacy.decrypt(event.streamId, event.data.customer)).record,
          },
        };
      default:
        return event;
    }
  };

  /** Ongoing screening: known customers against the added and changed entries of one new snapshot. */
  const rescreen = async (change: SnapshotChange) => {
    const { next, diff } = change;
    if (!diff || !publisher) return;
    const freshIds = new Set([...diff.added, ...diff.changed]);
    if (freshIds.size === 0 && diff.removed.length === 0) return;
    const fresh = indexOf([{ ...next, entries: next.entries.filter((e) => freshIds.has(e.id)) }]);
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
      if (stopping) return;
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
          entryHashOf,
          screenedNameHash,
        );
        duration.labels('rescreen').observe(Number(process.hrtime.bigint() - started) / 1e9);
        if (sameMatches(previous, merged)) continue;
        const hits = await privacy.encryptHits(c.streamId, merged);
        out.push(
          command(
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
              snapshotVersion: snapshotVersion(next.list),
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

  const publishSnapshots = async (changes: SnapshotChange[]) => {
    await publisher!.publish(
      changes.map(({ next, previous, diff }) => ({
        topic: topics!.screeningLists,
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
      })),
    );
  };

  const refresh = async () => {
    const changes = await catalog.refresh();
    if (changes.length === 0) return;
    rebuildMainIndex('refresh');
    await publishSnapshots(changes);
    for (const change of changes) await rescreen(change);
  };

  const search = (query: SearchQuery, businessUnits: '*' | readonly string[]): Hit[] => {
    const started = process.hrtime.bigint();
    const threshold =
      query.threshold ??
      thresholdsFor(config.SCREENING_THRESHOLD, config.thresholdOverrides, query.businessUnit ?? '*');
    const admit = admitFor(businessUnits);
    const hits = indexes()
      .flatMap((index) => screen(index, query, { threshold, limit: query.limit }))
      .filter(admit)
      .sort(
        (a, b) => b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId),
      )
      .slice(0, query.limit);
    duration.labels('search').observe(Number(process.hrtime.bigint() - started) / 1e9);
    return hits;
  };

  const decide = async (request: DecisionRequest, decidedBy: string): Promise<string> => {
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
      entryHash: entryHashOf(hit.source, hit.entryId) ?? 'REMOVED',
      screenedNameHash: screenedNameHash(queryTokensOf(hit)),
    };
    const eventId = newId();
    await publisher!.publish([
      // The customer stream learns the decision too, so the risk evaluation sees confirmed matches.
      command(
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
      {
        topic: topics!.screeningLists,
        key: streamId,
        type: 'ScreeningDecisionRecorded',
        value: {
          eventId,
          type: 'ScreeningDecisionRecorded',
          occurredAt: clock().toISOString(),
          data: {
            ...decision,
            businessUnit: request.businessUnit,
            customerExtId: request.customerExtId,
            reason: request.reason,
            decidedBy,
          },
        },
      },
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

  const buildHttp = (verifier: ReturnType<typeof createTokenVerifier> | undefined) => {
    const app = express();
    app.disable('x-powered-by');
    app.set('query parser', 'simple');
    app.get('/health/live', (_req, res) => {
      res.status(health.isLive() ? 200 : 503).json({ status: health.isLive() ? 'UP' : 'DOWN' });
    });
    app.get('/health/ready', async (_req, res) => {
      const r = await health.readiness();
      res.status(r.ready ? 200 : 503).json({ status: r.ready ? 'UP' : 'DOWN', checks: r.checks });
    });
    app.get('/metrics', async (_req, res) => {
      res.type(metrics.contentType).send(await metrics.metrics());
    });
    app.use(express.json({ limit: '64kb', type: 'application/json' }));
    if (verifier) app.use(screeningRoutes({ verifier, search, decide }));
    app.use((_req, _res, next) => next(new ScreeningRouteNotFoundError()));
    app.use(errorMiddleware(logger));
    return app;
  };

  const verifier = createTokenVerifier({
    ...(config.AUTH_JWKS_URL ? { jwksUrl: config.AUTH_JWKS_URL } : { jwksFile: config.AUTH_JWKS_FILE }),
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
  });

  return {
    metrics,
    port: () => (server?.address() as AddressInfo | null)?.port ?? 0,
    async start() {
      // Listen first, unready, so probes get answers while the lists load.
      server = createServer(buildHttp(verifier));
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.HEALTH_PORT, config.HEALTH_HOST, resolve);
      });
      if (config.PRIVACY_KEK_FILE) {
        const store = await connectMongo(config, metrics);
        mongo = store.client;
        privacy = CustomerPrivacy.fromConfig(config, store.ownDb('keys'), config.PRIVACY_REQUIRED);
      } else {
        privacy = CustomerPrivacy.fromConfig(config, () => undefined as never, config.PRIVACY_REQUIRED);
        logger.warn('PRIVACY_KEK_FILE is not set: screening reads and writes personal data in plain');
      }
      const messaging = await setUpMessaging(config, SERVICE, logger);
      const { kafka, serde, prefix } = messaging;
      topics = messaging.topics;
      const loaded = await catalog.loadInitial();
      if (config.JAPANESE_READINGS) {
        const started = process.hrtime.bigint();
        reader = createNameReader(await loadJapaneseTokenizer());
        logger.info(
          { ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6) },
          'japanese reading dictionary loaded',
        );
      }
      rebuildMainIndex('start');
      publisher = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
      await publisher.connect();
      await publishSnapshots(loaded);

      listsReader = new StreamReader<ListMessage>({
        kafka,
        serde,
        logger,
        topic: topics.screeningLists,
        groupPrefix: `${prefix}screening-lists`,
        onMessage: (m) => {
          if (m.value.type === 'ScreeningDecisionRecorded') book.record(m.value.data);
        },
      });
      eventsReader = new StreamReader<CustomerEvent>({
        kafka,
        serde,
        logger,
        topic: topics.customerEvents,
        groupPrefix: `${prefix}screening-directory`,
        onMessage: async (m) => {
          directory.apply(await revealForDirectory(m.value));
        },
      });
      await listsReader.start();
      await eventsReader.start();
      await listsReader.waitUntilCaughtUp();
      await eventsReader.waitUntilCaughtUp();
      logger.info(
        {
          decisions: book.size,
          screenedCustomers: directory.screened.size,
          internalEntries: internalList().snapshot.entryCount,
        },
        'screening state rebuilt',
      );

      processor = new TransactionalProcessor<CustomerEvent>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${config.CONSUMER_GROUP}`,
        topic: topics.customerEvents,
        transactionalIdPrefix: `${prefix}${config.TRANSACTIONAL_ID_PREFIX}`,
        handler: {
          // Only requests are screened: the other customer events are skipped unread (decision 0013).
          types: ['ScreeningRequested'],
          process: processBatch,
          // The internal list must include BLACK marks written before the request on this partition.
          beforePartition: async (p) => eventsReader!.waitUntilCaughtUp([p]),
        },
      });
      health.addReadinessCheck('events', () => processor?.isReady() ?? false);
      health.addReadinessCheck('lists', () => (mainIndex?.entries.length ?? 0) > 0);
      await processor.start();
      if (config.LIST_REFRESH_INTERVAL_SEC > 0) {
        refreshTimer = setInterval(() => {
          if (refreshing || stopping) return;
          refreshing = refresh()
            .catch((err: unknown) => logger.error({ err }, 'list refresh failed'))
            .finally(() => {
              refreshing = undefined;
            });
        }, config.LIST_REFRESH_INTERVAL_SEC * 1000);
        refreshTimer.unref();
      }
      health.markStarted();
    },
    async stop() {
      stopping = true;
      if (refreshTimer) clearInterval(refreshTimer);
      await refreshing;
      if (server) {
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
      }
      await processor?.stop();
      await eventsReader?.stop();
      await listsReader?.stop();
      await publisher?.disconnect().catch(() => undefined);
      await mongo?.close();
    },
  };
}
