import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ResourcePatternTypes,
  type Admin,
  type Kafka,
} from 'kafkajs';
import { createLogger } from '@crs/runtime';
import { ensureTopics } from './admin';
import { createKafka } from './kafka';
import { Topics } from './topics';

/**
 * The per-service ACLs of the Helm chart (deploy/helm/customer-risk/files/kafka-acls.json,
 * docs/kafka-acls.md) on a real broker with SASL/SCRAM: a private single-node KRaft Kafka from the jars
 * `deploy/local/stack.sh up` caches, on free loopback ports, SASL_PLAINTEXT with SCRAM-SHA-512 and the
 * StandardAuthorizer (no ACL = denied). SCRAM users are created when the storage is formatted (the KRaft
 * way to bootstrap credentials); the ACLs come from the chart's file, applied with kafkajs as an admin.
 * The broker is the test's own: started in beforeAll, stopped (SIGTERM, then SIGKILL) in afterAll.
 */
const ROOT = join(__dirname, '../../..');
const KAFKA_VERSION = /^KAFKA_VERSION=(\S+)$/m.exec(
  readFileSync(join(ROOT, 'deploy/local/stack.sh'), 'utf8'),
)![1]!;
const CACHE_DIR =
  process.env.STACK_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'crs-stack');
const KAFKA_HOME = join(CACHE_DIR, `kafka-${KAFKA_VERSION}`);
const JARS_PRESENT = existsSync(join(KAFKA_HOME, '.complete'));

interface AclEntry {
  type: 'topic' | 'group' | 'transactionalId' | 'cluster';
  name: string;
  patternType: 'literal' | 'prefix';
  operations: string[];
}
const ACLS = JSON.parse(
  readFileSync(join(ROOT, 'deploy/helm/customer-risk/files/kafka-acls.json'), 'utf8'),
) as { principals: Record<string, { acls: AclEntry[] }> };

const RESOURCE = {
  topic: AclResourceTypes.TOPIC,
  group: AclResourceTypes.GROUP,
  transactionalId: AclResourceTypes.TRANSACTIONAL_ID,
  cluster: AclResourceTypes.CLUSTER,
} as const;
const OPERATION: Record<string, AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Create: AclOperationTypes.CREATE,
  Delete: AclOperationTypes.DELETE,
  Describe: AclOperationTypes.DESCRIBE,
  DescribeConfigs: AclOperationTypes.DESCRIBE_CONFIGS,
  AlterConfigs: AclOperationTypes.ALTER_CONFIGS,
  IdempotentWrite: AclOperationTypes.IDEMPOTENT_WRITE,
};

/** The ACL bindings of one principal of the chart's file, for kafkajs createAcls. */
function bindingsOf(principal: string, user: string) {
  return ACLS.principals[principal]!.acls.flatMap((acl) =>
    acl.operations.map((operation) => ({
      resourceType: RESOURCE[acl.type],
      resourceName: acl.type === 'cluster' ? 'kafka-cluster' : acl.name,
      resourcePatternType:
        acl.patternType === 'prefix' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      principal: `User:${user}`,
      host: '*',
      operation: OPERATION[operation]!,
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
}

/** Every protocol error type in an error and its causes (kafkajs wraps them). */
function errorTypes(err: unknown, found: string[] = []): string[] {
  if (!err || typeof err !== 'object') return found;
  const e = err as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown[] };
  if (typeof e.type === 'string') found.push(e.type);
  errorTypes(e.cause, found);
  errorTypes(e.originalError, found);
  for (const inner of e.errors ?? []) errorTypes(inner, found);
  return found;
}

async function refusal(action: Promise<unknown>): Promise<string[]> {
  try {
    await action;
  } catch (err) {
    return errorTypes(err);
  }
  return ['NOT_REFUSED'];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private SASL/SCRAM broker with the given users (name -> password); `admin` is the super user. */
class ScramBroker {
  private child?: ChildProcess;
  private exited = false;
  readonly dir = mkdtempSync(join(tmpdir(), 'crs-kafka-acls-'));
  port = 0;

  constructor(private readonly users: Record<string, string>) {}

  get log(): string {
    return existsSync(join(this.dir, 'kafka.log')) ? readFileSync(join(this.dir, 'kafka.log'), 'utf8') : '';
  }

  async start(): Promise<void> {
    this.port = await freePort();
    const controllerPort = await freePort();
    const props = join(this.dir, 'server.properties');
    writeFileSync(
      props,
      [
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
        `listeners=SASL_PLAINTEXT://127.0.0.1:${this.port},CONTROLLER://127.0.0.1:${controllerPort}`,
        `advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${this.port}`,
        'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=SASL_PLAINTEXT',
        'sasl.enabled.mechanisms=SCRAM-SHA-512',
        'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
        `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${this.users.admin}";`,
        'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        // ANONYMOUS is the broker talking to its own controller over the loopback PLAINTEXT controller
        // listener (cluster actions); clients only reach the SASL listener, where nobody is anonymous.
        'super.users=User:admin;User:ANONYMOUS',
        'allow.everyone.if.no.acl.found=false',
        `log.dirs=${join(this.dir, 'data')}`,
        'num.partitions=1',
        'default.replication.factor=1',
        'min.insync.replicas=1',
        'offsets.topic.replication.factor=1',
        'offsets.topic.num.partitions=1',
        'transaction.state.log.replication.factor=1',
        'transaction.state.log.min.isr=1',
        'transaction.state.log.num.partitions=1',
        'auto.create.topics.enable=false',
        'group.initial.rebalance.delay.ms=0',
        'num.network.threads=1',
        'num.io.threads=2',
        'num.recovery.threads.per.data.dir=1',
        'log.segment.bytes=16777216',
      ].join('\n'),
    );
    const jvm = [
      '-Xms128m',
      '-Xmx384m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true',
      `-Dlog4j.configuration=file:${join(ROOT, 'deploy/local/stack/kafka/log4j.properties')}`,
      '-cp',
      `${join(KAFKA_HOME, 'libs')}/*`,
    ];
    // A Kafka Uuid: 16 random bytes, base64url; one starting with '-' would read as an option.
    let clusterId = '-';
    while (clusterId.startsWith('-')) clusterId = randomBytes(16).toString('base64url');
    const scram = Object.entries(this.users).flatMap(([name, password]) => [
      '--add-scram',
      `SCRAM-SHA-512=[name=${name},password=${password}]`,
    ]);
    await promisify(execFile)(
      'java',
      [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props, ...scram],
      { timeout: 120_000 },
    );
    const log = openSync(join(this.dir, 'kafka.log'), 'a');
    this.child = spawn('java', [...jvm, 'kafka.Kafka', props], { stdio: ['ignore', log, log] });
    closeSync(log);
    this.child.once('exit', () => {
      this.exited = true;
    });
    process.once('exit', () => this.child?.kill('SIGKILL'));
  }

  /** Waits until the admin user can describe the cluster; fails at once if the broker died. */
  async waitReady(kafka: Kafka, timeoutMs = 150_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new Error(`the test broker exited during start:\n${this.log.slice(-3000)}`);
      const admin = kafka.admin();
      try {
        await admin.connect();
        await admin.describeCluster();
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(
            `the test broker did not answer: ${(err as Error).message}\n${this.log.slice(-3000)}`,
          );
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      await sleep(500);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && !this.exited) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([
        gone.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), 20_000);
        }),
      ]);
      clearTimeout(timer);
      if (!stopped) {
        child.kill('SIGKILL');
        await gone;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const suite = JARS_PRESENT ? describe : describe.skip;
// Jest lists no titles of a skipped file; say why here.
if (!JARS_PRESENT)
  console.warn(
    `kafka-acls.int.test.ts SKIPPED: no cached Kafka ${KAFKA_VERSION} jars in ${KAFKA_HOME} (run npm run stack:up)`,
  );
const TITLE = JARS_PRESENT
  ? 'Kafka ACLs per service principal (SASL/SCRAM, real broker)'
  : `Kafka ACLs per service principal: SKIPPED, no cached Kafka ${KAFKA_VERSION} jars in ${KAFKA_HOME} (run npm run stack:up)`;

suite(TITLE, () => {
  const logger = createLogger('kafka-acls-int', 'silent');
  const password = () => randomBytes(12).toString('hex');
  const users = {
    admin: password(),
    'crs-ingress': password(),
    'crs-projector': password(),
    'crs-nobody': password(),
  };
  const broker = new ScramBroker(users);
  const clientOf = (user: keyof typeof users): Kafka =>
    createKafka(
      {
        KAFKA_BROKERS: `127.0.0.1:${broker.port}`,
        KAFKA_SSL: false,
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: user,
        KAFKA_SASL_PASSWORD: users[user],
      },
      `acls-${user}`,
      logger,
    );
  let admin: Admin;

  beforeAll(async () => {
    await broker.start();
    const adminKafka = clientOf('admin');
    await broker.waitReady(adminKafka);
    // What the init job does as the admin principal: every topic of the catalogue.
    await ensureTopics(adminKafka, { partitions: 1, replicationFactor: 1, logger });
    admin = adminKafka.admin();
    await admin.connect();
    const acl = [...bindingsOf('ingress', 'crs-ingress'), ...bindingsOf('projector', 'crs-projector')];
    await admin.createAcls({ acl });
    // The authorizer applies ACLs once the metadata log has them; describeAcls reads the same state.
    for (let i = 0; ; i += 1) {
      const { resources } = await admin.describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      });
      if (resources.reduce((n, r) => n + r.acls.length, 0) >= acl.length) break;
      if (i > 100) throw new Error('the ACLs never became visible');
      await sleep(200);
    }
  }, 240_000);

  afterAll(async () => {
    await admin?.disconnect().catch(() => undefined);
    await broker.stop();
  }, 60_000);

  it('lets the ingress principal write commands with its idempotent producer', async () => {
    const producer = clientOf('crs-ingress').producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const [sent] = await producer.send({
        topic: Topics.customerCommands.name,
        acks: -1,
        messages: [{ key: 'BU1:C-1', value: '{}' }],
      });
      expect(sent).toMatchObject({ topicName: Topics.customerCommands.name, errorCode: 0 });
    } finally {
      await producer.disconnect();
    }
  });

  it('refuses a principal without the ACL: the projector may not write commands, the ingress may not write events', async () => {
    const projector = clientOf('crs-projector').producer();
    await projector.connect();
    const ingress = clientOf('crs-ingress').producer({ idempotent: true, maxInFlightRequests: 1 });
    await ingress.connect();
    try {
      expect(
        await refusal(
          projector.send({
            topic: Topics.customerCommands.name,
            messages: [{ key: 'BU1:C-1', value: '{}' }],
          }),
        ),
      ).toContain('TOPIC_AUTHORIZATION_FAILED');
      expect(
        await refusal(
          ingress.send({
            topic: Topics.customerEvents.name,
            acks: -1,
            messages: [{ key: 'BU1:C-1', value: '{}' }],
          }),
        ),
      ).toContain('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await projector.disconnect();
      await ingress.disconnect();
    }
  });

  it('lets the projector read the events in its own group', async () => {
    const producer = clientOf('admin').producer();
    await producer.connect();
    await producer.send({
      topic: Topics.customerEvents.name,
      messages: [{ key: 'BU1:C-1', value: 'event-1' }],
    });
    await producer.disconnect();

    const consumer = clientOf('crs-projector').consumer({ groupId: 'projector' });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: Topics.customerEvents.name, fromBeginning: true });
      const first = await new Promise<string>((resolve, reject) => {
        consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
        void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) });
      });
      expect(first).toBe('event-1');
    } finally {
      await consumer.disconnect();
    }
  });

  it('lets every service start: with Describe on the crs. prefix the start-up topic check creates nothing', async () => {
    await expect(
      ensureTopics(clientOf('crs-ingress'), { partitions: 1, replicationFactor: 1, logger }),
    ).resolves.toBeUndefined();
    // Without it a service sees no topic, tries to create them and is refused.
    expect(
      await refusal(ensureTopics(clientOf('crs-nobody'), { partitions: 1, replicationFactor: 1, logger })),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/AUTHORIZATION_FAILED$/)]));
  });
});
