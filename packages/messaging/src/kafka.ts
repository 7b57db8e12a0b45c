import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { Logger } from '@crs/runtime';

export interface KafkaSettings {
  KAFKA_BROKERS: string;
  KAFKA_SSL: boolean;
  KAFKA_SASL_MECHANISM: string;
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
}

const toPino: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** kafkajs client wired to the service's logger and the shared connection settings. */
export function createKafka(settings: KafkaSettings, clientId: string, logger: Logger): Kafka {
  const sasl: SASLOptions | undefined = settings.KAFKA_SASL_MECHANISM
    ? ({
        mechanism: settings.KAFKA_SASL_MECHANISM,
        username: settings.KAFKA_SASL_USERNAME,
        password: settings.KAFKA_SASL_PASSWORD,
      } as SASLOptions)
    : undefined;
  const config: KafkaConfig = {
    clientId,
    brokers: settings.KAFKA_BROKERS.split(',').map((b) => b.trim()),
    ssl: settings.KAFKA_SSL,
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }) => {
        const { message, ...extra } = log;
        // Partition leadership changes and rebalances are routine; keep them at debug.
        const lvl = toPino[level] ?? 'info';
        logger[lvl]({ kafka: extra }, message);
      },
  };
  if (sasl) config.sasl = sasl;
  return new Kafka(config);
}
