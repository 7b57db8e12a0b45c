import type { Logger, Registry } from '@crs/runtime';
import type { Messaging } from '@crs/messaging';

/** What every consumer, processor and decider shell of a service is built with. */
export interface MessagingClients {
  kafka: Messaging['kafka'];
  serde: Messaging['serde'];
  logger: Logger;
  metrics: Registry;
}

/** The common part of an `AtLeastOnceConsumer`'s options: the clients and the prefixed group id. */
export interface ConsumerOptions extends MessagingClients {
  groupId: string;
}

/** The common part of a `TransactionalProcessor`'s options: a consumer's, with the prefixed transactional ids. */
export interface ProcessorOptions extends ConsumerOptions {
  transactionalIdPrefix: string;
}

/** The common part of a `StreamReader`'s options: the clients and its group's prefix. */
export interface ReaderOptions extends MessagingClients {
  groupPrefix: string;
}

/**
 * The service's messaging (`setUpMessaging`) with what each of its consumers shares: the clients,
 * the logger and metrics, and the topic prefix before every group and transactional id. A service
 * spreads these into a consumer's options and adds what is its own: topics, handlers, its settings.
 * The functions are plain properties, so they can be destructured.
 */
export interface HostMessaging extends Messaging {
  /** Kafka, the serde, the service's logger and metrics. */
  clients: MessagingClients;
  /** `name` behind the topic prefix (consumer groups, transactional ids, readers' group prefixes). */
  prefixed(name: string): string;
  /** An at-least-once consumer's shared options, in the consumer group `<prefix><group>`. */
  consumerOptions(group: string): ConsumerOptions;
  /** A transactional processor's: group `<prefix><group>`, transactional ids `<prefix><transactionalIdPrefix>`. */
  processorOptions(group: string, transactionalIdPrefix: string): ProcessorOptions;
  /** A stream reader's, its throw-away groups named after `<prefix><groupPrefix>`. */
  readerOptions(groupPrefix: string): ReaderOptions;
}

export function hostMessaging(messaging: Messaging, logger: Logger, metrics: Registry): HostMessaging {
  const { kafka, serde, prefix } = messaging;
  const clients: MessagingClients = { kafka, serde, logger, metrics };
  const prefixed = (name: string): string => `${prefix}${name}`;
  const consumerOptions = (group: string): ConsumerOptions => ({ ...clients, groupId: prefixed(group) });
  return {
    ...messaging,
    clients,
    prefixed,
    consumerOptions,
    processorOptions: (group, transactionalIdPrefix) => ({
      ...consumerOptions(group),
      transactionalIdPrefix: prefixed(transactionalIdPrefix),
    }),
    readerOptions: (groupPrefix) => ({ ...clients, groupPrefix: prefixed(groupPrefix) }),
  };
}
