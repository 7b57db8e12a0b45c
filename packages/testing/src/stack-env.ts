import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import ConnectionString from 'mongodb-connection-string-url';

/** Where the connection settings of a test run came from. */
export type StackSource = 'local' | 'env' | 'testcontainers';

/** Connection settings for Kafka, the schema registry (Confluent-compatible API) and MongoDB. */
export interface StackEnv {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  mongoUri: string;
  source: StackSource;
  /** Stops what resolveStackEnv started (containers only); absent when it started nothing. */
  stop?: () => Promise<void>;
}

export interface ResolveStackEnvOptions {
  /** Variables to read KAFKA_BROKERS, SCHEMA_REGISTRY_URL and MONGODB_URI from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Repository root holding `.local/stack.env`; found from this file's location by default. */
  rootDir?: string;
  /** Start containers when nothing else is reachable and a container runtime is present (default true). */
  containers?: boolean;
  /** Per-endpoint reachability timeout. */
  timeoutMs?: number;
}

/** Raised when no stack can be found or started; the message says what to do. */
export class StackUnavailableError extends Error {
  readonly code = 'STACK_UNAVAILABLE';
  override readonly name = 'StackUnavailableError';
}

export const STACK_ENV_VARS = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'MONGODB_URI'] as const;

/**
 * Images for the container fallback, chosen to match the local stack: Kafka 3.9 (Confluent 7.9),
 * Apicurio Registry 3.0.9, and MongoDB itself where the local stack runs FerretDB.
 */
export const CONTAINER_IMAGES = {
  kafka: 'confluentinc/cp-kafka:7.9.1',
  registry: 'apicurio/apicurio-registry:3.0.9',
  mongo: 'mongo:7.0.14',
} as const;

const HINT =
  'Start the local stack with `npm run stack:up` (see deploy/local/stack.sh), or set KAFKA_BROKERS, SCHEMA_REGISTRY_URL and MONGODB_URI.';

/**
 * Finds the stack the integration and end-to-end tests run against, in this order:
 * explicit environment variables, the local stack (`.local/stack.env` written by `stack.sh up`)
 * when it answers, and containers started through testcontainers when a container runtime exists.
 */
export async function resolveStackEnv(options: ResolveStackEnvOptions = {}): Promise<StackEnv> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 3000;

  const explicit = STACK_ENV_VARS.filter((name) => Boolean(env[name]));
  if (explicit.length > 0) {
    const missing = STACK_ENV_VARS.filter((name) => !env[name]);
    if (missing.length > 0) {
      throw new StackUnavailableError(
        `${explicit.join(', ')} set but ${missing.join(', ')} not: set all three or none.`,
      );
    }
    const stack = fromVariables(env, 'env');
    await assertReachable(
      stack,
      timeoutMs,
      'The stack named by KAFKA_BROKERS, SCHEMA_REGISTRY_URL and MONGODB_URI',
    );
    return stack;
  }

  const envFile = join(options.rootDir ?? findRepoRoot(__dirname), '.local', 'stack.env');
  if (existsSync(envFile)) {
    const stack = fromVariables(parseEnvFile(readFileSync(envFile, 'utf8')), 'local');
    const unreachable = await unreachableEndpoints(stack, timeoutMs);
    if (unreachable.length === 0) return stack;
    if (options.containers === false || !(await containerRuntimeAvailable())) {
      throw new StackUnavailableError(
        `The local stack (${envFile}) is not answering: ${unreachable.join('; ')}. ${HINT}`,
      );
    }
  }

  if (options.containers !== false && (await containerRuntimeAvailable())) {
    return startContainers();
  }
  throw new StackUnavailableError(
    `No stack found: the local stack is not running and no container runtime is available. ${HINT}`,
  );
}

/** The settings as the environment variables the services read. */
export function toProcessEnv(stack: StackEnv): Record<(typeof STACK_ENV_VARS)[number], string> {
  return {
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    MONGODB_URI: stack.mongoUri,
  };
}

/**
 * Kafka and registry settings for a test that builds its own clients (createKafka, MessageSerde,
 * setUpMessaging) against the stack the jest global setup found: plain connections, no credentials.
 */
export function messagingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    KAFKA_BROKERS: env.KAFKA_BROKERS!,
    KAFKA_SSL: false,
    KAFKA_SASL_MECHANISM: '' as const,
    KAFKA_SASL_USERNAME: '',
    KAFKA_SASL_PASSWORD: '',
    SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!,
    SCHEMA_REGISTRY_USERNAME: '',
    SCHEMA_REGISTRY_PASSWORD: '',
  };
}

/**
 * Messaging settings of an integration test on the local stack: the stack's broker and registry, the test's
 * own topic prefix (so its topics are its own and `deleteTopicsWithPrefix` removes them), one replica.
 */
export function scratchMessagingSettings(prefix: string, partitions = 1) {
  return {
    ...messagingSettingsFromEnv(),
    TOPIC_PARTITIONS: partitions,
    TOPIC_REPLICATION_FACTOR: 1,
    TOPIC_PREFIX: prefix,
  };
}

/** Parses KEY=VALUE lines (comments, blank lines and a leading `export` are allowed). */
export function parseEnvFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    vars[line.slice(0, eq).trim()] = line
      .slice(eq + 1)
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
  }
  return vars;
}

/** Describes every endpoint of the stack that does not answer; empty when all do. */
export async function unreachableEndpoints(stack: StackEnv, timeoutMs = 3000): Promise<string[]> {
  const checks: Array<Promise<string | undefined>> = [
    ...stack.kafkaBrokers.map((broker) => socketCheck(`Kafka ${broker}`, hostPort(broker, 9092), timeoutMs)),
    httpCheck(
      `schema registry ${stack.schemaRegistryUrl}`,
      `${stack.schemaRegistryUrl.replace(/\/$/, '')}/subjects`,
      timeoutMs,
    ),
    ...mongoChecks(stack.mongoUri, timeoutMs),
  ];
  return (await Promise.all(checks)).filter((problem): problem is string => problem !== undefined);
}

async function assertReachable(stack: StackEnv, timeoutMs: number, what: string): Promise<void> {
  const unreachable = await unreachableEndpoints(stack, timeoutMs);
  if (unreachable.length > 0)
    throw new StackUnavailableError(`${what} is not answering: ${unreachable.join('; ')}.`);
}

function fromVariables(vars: Record<string, string | undefined>, source: StackSource): StackEnv {
  const missing = STACK_ENV_VARS.filter((name) => !vars[name]);
  if (missing.length > 0)
    throw new StackUnavailableError(`Stack settings lack ${missing.join(', ')}. ${HINT}`);
  return {
    kafkaBrokers: vars
      .KAFKA_BROKERS!.split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    schemaRegistryUrl: vars.SCHEMA_REGISTRY_URL!,
    mongoUri: vars.MONGODB_URI!,
    source,
  };
}

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

/** A server on TCP. */
export interface HostPort {
  host: string;
  port: number;
}

/** A server on a Unix domain socket (the local stack's FerretDB: decision 0082). */
export interface SocketPath {
  path: string;
}

/** Where a server listens, in the form `net.connect` takes. */
export type Endpoint = HostPort | SocketPath;

const endpointText = (e: Endpoint): string => ('path' in e ? e.path : `${e.host}:${e.port}`);

function hostPort(address: string, defaultPort: number): HostPort {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? defaultPort) };
  const i = address.lastIndexOf(':');
  return i < 0
    ? { host: address, port: defaultPort }
    : { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

/**
 * The hosts of a `mongodb://` URI, as the driver reads them (parsed by the driver's own URI library): a host
 * that is a percent-encoded path ending in `.sock` is a Unix domain socket. Throws on a malformed URI.
 */
export function mongoHosts(uri: string): Endpoint[] {
  const parsed = new ConnectionString(uri);
  // SRV records need DNS look-ups; leave those to the driver.
  if (parsed.isSRV) return [];
  return parsed.hosts.map((h) => {
    const decoded = decodeURIComponent(h);
    return decoded.endsWith('.sock') ? { path: decoded } : hostPort(h, 27017);
  });
}

/** A check per host of the URI, or the URI's own problem when it does not parse. */
function mongoChecks(uri: string, timeoutMs: number): Array<Promise<string | undefined>> {
  let hosts: Endpoint[];
  try {
    hosts = mongoHosts(uri);
  } catch (err) {
    return [Promise.resolve(`MongoDB URI: ${(err as Error).message}`)];
  }
  return hosts.map((host) => socketCheck(`MongoDB ${endpointText(host)}`, host, timeoutMs));
}

function socketCheck(label: string, where: Endpoint, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(where);
    const done = (problem?: string) => {
      socket.destroy();
      resolve(problem === undefined ? undefined : `${label}: ${problem}`);
    };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs} ms`));
    socket.once('connect', () => done());
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

async function httpCheck(label: string, url: string, timeoutMs: number): Promise<string | undefined> {
  try {
    // Any HTTP answer proves the registry is up; a 401 from a secured one is the tests' business.
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status >= 500 ? `${label}: HTTP ${response.status}` : undefined;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return `${label}: ${cause?.code ?? (err as Error).message}`;
  }
}

async function containerRuntimeAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

// Not exercised on the development machine (no container runtime there); see
// docs/decisions/0001-local-stack-without-docker.md.
async function startContainers(): Promise<StackEnv> {
  const [{ GenericContainer, Wait }, { KafkaContainer }, { MongoDBContainer }] = await Promise.all([
    import('testcontainers'),
    import('@testcontainers/kafka'),
    import('@testcontainers/mongodb'),
  ]);
  const started = await Promise.allSettled([
    new KafkaContainer(CONTAINER_IMAGES.kafka)
      .withKraft()
      .withEnvironment({
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '1',
      })
      .start(),
    new GenericContainer(CONTAINER_IMAGES.registry)
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080).forStatusCode(200))
      .start(),
    new MongoDBContainer(CONTAINER_IMAGES.mongo).start(),
  ]);
  const containers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.allSettled(containers.map((container) => container.stop()));
  };
  const failure = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) {
    await stop();
    throw new StackUnavailableError(`Starting the test containers failed: ${String(failure.reason)}`);
  }
  const [kafka, registry, mongo] = containers as [
    Awaited<ReturnType<InstanceType<typeof KafkaContainer>['start']>>,
    Awaited<ReturnType<InstanceType<typeof GenericContainer>['start']>>,
    Awaited<ReturnType<InstanceType<typeof MongoDBContainer>['start']>>,
  ];
  return {
    kafkaBrokers: [`${kafka.getHost()}:${kafka.getMappedPort(9093)}`],
    schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
    // The image runs a one-member replica set that advertises its container hostname.
    mongoUri: `${mongo.getConnectionString()}/?directConnection=true`,
    source: 'testcontainers',
    stop,
  };
}
