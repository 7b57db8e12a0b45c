import { Histogram, type Logger, type Registry } from '@crs/runtime';
import { createTokenVerifier } from '@crs/auth';
import type { CustomerEvent } from '@crs/contracts';
import {
  DurablePublisher,
  StreamReader,
  TransactionalProcessor,
  logCatchUpProgress,
  type TopicNames,
} from '@crs/messaging';
import { createNameReader, loadJapaneseTokenizer } from '@crs/screening-core';
import { CustomerPrivacy, PrivacyKeysMissingError } from '@crs/privacy';
import { ServiceHost } from '@crs/host';
import { CustomerDirectory } from './domain/customer-directory';
import { DecisionBook } from './domain/suppression';
import { customerCommandWriter, SERVICE } from './customer-commands';
import { directoryReading } from './handlers/customer-event-projector';
import { screeningDecisionRecordedProjector } from './handlers/screening-decision-recorded-projector';
import { screeningRequestedReactor } from './handlers/screening-requested-reactor';
import { rescreener } from './rescreening/rescreener';
import { ListCatalog } from './lists/list-catalog';
import type { ListMessage } from './lists/list-messages';
import { ListRefresher } from './lists/list-refresher';
import { ScreeningIndexes } from './lists/screening-indexes';
import { buildHttpApp } from './http/http-app';
import { screeningDecisions } from './http/screening-decisions';
import { screeningSearch } from './http/screening-search';
import type { ScreeningConfig } from './config';

export interface ScreeningService {
  start(): Promise<void>;
  stop(): Promise<void>;
  port(): number;
  metrics: Registry;
}

/**
 * The screening reactor: answers each ScreeningRequested with one RecordScreeningResult per list (exactly
 * once, in the transaction that consumes the event), keeps the lists fresh and re-screens known customers
 * against what changed, and serves ad-hoc search and hit decisions over HTTP on the health port.
 * Composition only: the work is in handlers/, rescreening/, lists/ and http/.
 */
export function buildScreeningService(
  config: ScreeningConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): ScreeningService {
  const host = new ServiceHost({ name: SERVICE, config, logger });
  const { metrics, health } = host;
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
  const indexes = new ScreeningIndexes({ catalog, directory, logger, clock });
  // Known once start() has connected them; nothing below reads them before.
  let topics: TopicNames | undefined;
  let publisher: DurablePublisher | undefined;
  let privacy = CustomerPrivacy.disabled();
  let stopping = false;

  const commands = customerCommandWriter(() => topics!, clock);
  const refresher = new ListRefresher({
    catalog,
    indexes,
    publisher: () => publisher!,
    topics: () => topics!,
    clock,
    rescreen: rescreener({
      config,
      indexes,
      directory,
      book,
      publisher: () => publisher,
      privacy: () => privacy,
      commands,
      duration,
      logger,
      stopping: () => stopping,
    }),
    logger,
    intervalSec: config.LIST_REFRESH_INTERVAL_SEC,
    stopping: () => stopping,
  });
  const verifier = createTokenVerifier({
    ...(config.AUTH_JWKS_URL ? { jwksUrl: config.AUTH_JWKS_URL } : { jwksFile: config.AUTH_JWKS_FILE }),
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
  });
  const http = buildHttpApp({
    health,
    metrics,
    logger,
    routes: {
      verifier,
      search: screeningSearch({ config, indexes, duration }),
      decide: screeningDecisions({
        directory,
        book,
        indexes,
        commands,
        publisher: () => publisher!,
        topics: () => topics!,
        clock,
        logger,
      }),
    },
  });

  return {
    metrics,
    port: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        // Listen first, unready, so probes get answers while the lists load.
        const api = await host.listen(http);
        if (config.PRIVACY_KEK_FILE) {
          // Watched (a client stuck after a store outage is reconnected: the data-key reads need it), but
          // not a readiness check: searches answer from memory while the store is down.
          const store = await host.connectStore({ readiness: false });
          privacy = CustomerPrivacy.fromConfig(config, store.ownDb('keys'), config.PRIVACY_REQUIRED);
        } else {
          if (config.PRIVACY_REQUIRED) throw new PrivacyKeysMissingError();
          privacy = CustomerPrivacy.disabled();
          logger.warn('PRIVACY_KEK_FILE is not set: screening reads and writes personal data in plain');
        }
        const messaging = await host.connectMessaging();
        const { kafka, serde, readerOptions, processorOptions } = messaging;
        topics = messaging.topics;
        const loaded = await catalog.loadInitial();
        if (config.JAPANESE_READINGS) {
          const started = process.hrtime.bigint();
          indexes.useReader(createNameReader(await loadJapaneseTokenizer()));
          logger.info(
            { ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6) },
            'japanese reading dictionary loaded',
          );
        }
        indexes.rebuildMain('start');
        const outgoing = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
        publisher = outgoing;
        host.onStop(() => outgoing.disconnect().catch(() => undefined));
        await outgoing.connect();
        await refresher.publish(loaded);

        const listsReader = new StreamReader<ListMessage>({
          ...readerOptions('screening-lists'),
          topic: topics.screeningLists,
          onMessage: screeningDecisionRecordedProjector(book),
        });
        const eventsReader = new StreamReader<CustomerEvent>({
          ...readerOptions('screening-directory'),
          topic: topics.customerEvents,
          // Only what the directory folds is decoded: other types and the records of customers without a
          // list purpose are skipped by their headers; the keys of a batch's customers are read at once.
          ...directoryReading({ directory, privacy: () => privacy }),
        });
        // The directory is folded from the whole customer log at every start (no snapshot): long on a
        // large book, so its progress is logged.
        const rebuildStarted = Date.now();
        await host.startPart(listsReader);
        await host.startPart(eventsReader);
        await listsReader.waitUntilCaughtUp();
        await eventsReader.waitUntilCaughtUp(
          undefined,
          logCatchUpProgress(logger, 'rebuilding the screening directory from the customer log', () => ({
            screenedCustomers: directory.screened.size,
          })),
        );
        logger.info(
          {
            ms: Date.now() - rebuildStarted,
            decisions: book.size,
            screenedCustomers: directory.screened.size,
            listPurposeCustomers: directory.listPurposeCustomers,
            internalEntries: indexes.internalList().snapshot.entryCount,
          },
          'screening state rebuilt',
        );

        const processor = new TransactionalProcessor<CustomerEvent>({
          ...processorOptions(config.CONSUMER_GROUP, config.TRANSACTIONAL_ID_PREFIX),
          topic: topics.customerEvents,
          handler: {
            // Only requests are screened: the other customer events are skipped unread (decision 0013).
            types: ['ScreeningRequested'],
            process: screeningRequestedReactor({
              config,
              indexes,
              book,
              privacy: () => privacy,
              commands,
              duration,
            }),
            // The internal list must include BLACK marks written before the request on this partition.
            beforePartition: async (p) => eventsReader.waitUntilCaughtUp([p]),
          },
        });
        await host.startPart(processor, 'events');
        health.addReadinessCheck('lists', () => indexes.hasEntries());
        refresher.start();
        host.onStop(async () => {
          stopping = true;
          await refresher.stop();
          // The API publishes hit decisions: it stops accepting before the consumers and the publisher stop.
          await api.close();
        });
      }),
    stop: () => host.stop(),
  };
}
