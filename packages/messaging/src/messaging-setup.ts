import type { Kafka } from 'kafkajs';
import type { Logger } from '@crs/runtime';
import { loadMessageSchemas } from '@crs/contracts';
import { createKafka, type KafkaSettings } from './kafka';
import { MessageSerde, type RegistrySettings } from './serde';
import { topicNames, type TopicNames } from './topics';
import { ensureTopics, registerSchemas } from './admin';

export interface Messaging {
  kafka: Kafka;
  serde: MessageSerde;
  topics: TopicNames;
  /** Prefix for consumer groups and transactional ids, the same as the topics'. */
  prefix: string;
}

/**
 * Connects a service to Kafka and the registry. Topics and schemas are idempotently ensured at start
 * as well as by the deploy hook, so a service never runs against a topic with broker defaults and
 * never produces a message whose schema the registry has not accepted.
 */
export async function setUpMessaging(
  settings: KafkaSettings &
    RegistrySettings & { TOPIC_PARTITIONS: number; TOPIC_REPLICATION_FACTOR: number; TOPIC_PREFIX: string },
  clientId: string,
  logger: Logger,
): Promise<Messaging> {
  const kafka = createKafka(settings, clientId, logger);
  const serde = new MessageSerde(settings);
  await ensureTopics(kafka, {
    partitions: settings.TOPIC_PARTITIONS,
    replicationFactor: settings.TOPIC_REPLICATION_FACTOR,
    logger,
    prefix: settings.TOPIC_PREFIX,
  });
  await registerSchemas(serde, loadMessageSchemas());
  return { kafka, serde, topics: topicNames(settings.TOPIC_PREFIX), prefix: settings.TOPIC_PREFIX };
}
