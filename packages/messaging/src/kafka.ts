import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { Logger } from '@crs/runtime';
import { DEFAULT_LINGER_RULE } from './transaction-linger';

export interface KafkaSettings {
  KAFKA_BROKERS: string;
  KAFKA_SSL: boolean;
  KAFKA_SASL_MECHANISM: string;
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
  /** Consumers' fetch.min.bytes (default 1): `fetchTuningOf`. */
  KAFKA_FETCH_MIN_BYTES?: number;
  /** Consumers' fetch.max.wait.ms (default 200): `fetchTuningOf`. */
  KAFKA_FETCH_MAX_WAIT_MS?: number;
  /** The transactional processors' wait between batches under load (default 0: none): `transactionLingerOf`. */
  KAFKA_TXN_LINGER_MS?: number;
  /** How long a batch may show no sign of life before the service fails liveness (default 300,000): `batchStallOf`. */
  KAFKA_BATCH_STALL_MS?: number;
}

/**
 * How the consumers of one client fetch (docs/operations.md, "Kafka fetch tuning"): the broker answers a
 * fetch once `minBytes` are there or after `maxWaitTimeInMs`. The defaults answer as soon as anything is
 * there (lowest latency, a fetch and often a transaction per message at light load); a larger minBytes
 * with a short wait gathers what arrives within the wait into one fetch and one transaction, for fewer
 * broker requests and less CPU at load, at up to the wait's latency per hop.
 */
export interface FetchTuning {
  minBytes: number;
  maxWaitTimeInMs: number;
}

export const DEFAULT_FETCH_TUNING: Readonly<FetchTuning> = { minBytes: 1, maxWaitTimeInMs: 200 };

const fetchTunings = new WeakMap<Kafka, FetchTuning>();
const transactionLingers = new WeakMap<Kafka, number>();
const batchStalls = new WeakMap<Kafka, number>();

/** A batch silent this long is stalled unless KAFKA_BATCH_STALL_MS says otherwise (decision 0087). */
export const DEFAULT_BATCH_STALL_MS = 300_000;

/** The fetch tuning of the settings a client was created with (`createKafka`); the defaults otherwise. */
export function fetchTuningOf(kafka: Kafka): FetchTuning {
  return fetchTunings.get(kafka) ?? { ...DEFAULT_FETCH_TUNING };
}

/**
 * The transactional processors' linger of the settings a client was created with (`KAFKA_TXN_LINGER_MS`,
 * decision 0086): under load, a partition's next batch waits until this long after its last one ended.
 */
export function transactionLingerOf(kafka: Kafka): number {
  return transactionLingers.get(kafka) ?? DEFAULT_LINGER_RULE.ms;
}

/** KAFKA_TXN_LINGER_MS as kafkajs's callers read it, or a RangeError naming it: a whole number from 0 to 1000. */
export function checkTransactionLinger(ms: number): number {
  if (!Number.isInteger(ms) || ms < 0 || ms > 1000)
    throw new RangeError(`KAFKA_TXN_LINGER_MS must be a whole number from 0 to 1000, not ${ms}`);
  return ms;
}

/**
 * How long a consumer's batch may show no sign of life (no handler attempt, backoff or commit begun)
 * before the service fails liveness (`KAFKA_BATCH_STALL_MS`, `BatchWatchdog`, decision 0087).
 */
export function batchStallOf(kafka: Kafka): number {
  return batchStalls.get(kafka) ?? DEFAULT_BATCH_STALL_MS;
}

/**
 * KAFKA_BATCH_STALL_MS as the watchdog reads it, or a RangeError naming it: a whole number from 30,000
 * (longer than the consumers' longest backoff, 5 s, and a slow attempt) to 3,600,000.
 */
export function checkBatchStall(ms: number): number {
  if (!Number.isInteger(ms) || ms < 30_000 || ms > 3_600_000)
    throw new RangeError(`KAFKA_BATCH_STALL_MS must be a whole number from 30000 to 3600000, not ${ms}`);
  return ms;
}

function fetchTuningFrom(settings: KafkaSettings): FetchTuning {
  return checkFetchTuning({
    minBytes: settings.KAFKA_FETCH_MIN_BYTES ?? DEFAULT_FETCH_TUNING.minBytes,
    maxWaitTimeInMs: settings.KAFKA_FETCH_MAX_WAIT_MS ?? DEFAULT_FETCH_TUNING.maxWaitTimeInMs,
  });
}

/**
 * A fetch tuning kafkajs reads as meant, or a RangeError naming the setting it came from (the service
 * stops at start): `minBytes` a whole number of at least 1, `maxWaitTimeInMs` from 1 to 10,000.
 */
export function checkFetchTuning(
  tuning: FetchTuning,
  names: { minBytes: string; maxWaitTimeInMs: string } = {
    minBytes: 'KAFKA_FETCH_MIN_BYTES',
    maxWaitTimeInMs: 'KAFKA_FETCH_MAX_WAIT_MS',
  },
): FetchTuning {
  const { minBytes, maxWaitTimeInMs } = tuning;
  if (!Number.isInteger(minBytes) || minBytes < 1) {
    throw new RangeError(`${names.minBytes} must be a whole number of at least 1, not ${minBytes}`);
  }
  if (!Number.isInteger(maxWaitTimeInMs) || maxWaitTimeInMs < 1 || maxWaitTimeInMs > 10_000) {
    throw new RangeError(
      `${names.maxWaitTimeInMs} must be a whole number from 1 to 10000, not ${maxWaitTimeInMs}`,
    );
  }
  return { minBytes, maxWaitTimeInMs };
}

const toPino: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * Error responses kafkajs logs at error level that are part of normal work: the coordinator's
 * CONCURRENT_TRANSACTIONS while it completes a producer's previous transaction, which most back-to-back
 * transactions meet on the local broker and which our kafkajs patch asks again within milliseconds
 * (decision 0039). Logged at debug, so an error in the log still means one.
 */
export const ROUTINE_RESPONSE_ERRORS: ReadonlySet<string> = new Set([
  'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing',
]);

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
        const routine = typeof extra.error === 'string' && ROUTINE_RESPONSE_ERRORS.has(extra.error);
        const lvl = routine ? 'debug' : (toPino[level] ?? 'info');
        logger[lvl]({ kafka: extra }, message);
      },
  };
  if (sasl) config.sasl = sasl;
  const kafka = new Kafka(config);
  fetchTunings.set(kafka, fetchTuningFrom(settings));
  transactionLingers.set(
    kafka,
    checkTransactionLinger(settings.KAFKA_TXN_LINGER_MS ?? DEFAULT_LINGER_RULE.ms),
  );
  batchStalls.set(kafka, checkBatchStall(settings.KAFKA_BATCH_STALL_MS ?? DEFAULT_BATCH_STALL_MS));
  return kafka;
}

/**
 * Bytes a consumer fetches per partition at most (kafkajs defaults to 1 MiB). With the partitions
 * sized to the cores (two on the local stack, decision 0035) a 1 MiB fetch held about 400 encrypted
 * events per partition, and the projector catching up on a backlog wrote 29 % fewer events per second
 * than with six partitions; 5 MiB per partition gave that back (kafkajs's 10 MiB per fetch still caps the
 * whole). Only a consumer behind the log's end gets more: live fetches are small either way.
 */
export const FETCH_MAX_BYTES_PER_PARTITION = 5 * 1024 * 1024;
