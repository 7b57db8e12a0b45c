import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  mongoHosts,
  parseEnvFile,
  resolveStackEnv,
  StackUnavailableError,
  toProcessEnv,
  unreachableEndpoints,
} from './stack-env';

// A port on loopback that nothing listens on: bind-and-release is racy, a reserved low port is not.
const CLOSED = '127.0.0.1:1';

describe('parseEnvFile', () => {
  it('reads KEY=VALUE lines, tolerating comments, export and quotes', () => {
    expect(parseEnvFile('# c\nexport A=1\nB="two words"\n\nC=x=y\nbad\n')).toEqual({
      A: '1',
      B: 'two words',
      C: 'x=y',
    });
  });
});

describe('resolveStackEnv', () => {
  it('rejects a partial set of variables', async () => {
    await expect(resolveStackEnv({ env: { KAFKA_BROKERS: CLOSED }, containers: false })).rejects.toThrow(
      /MONGODB_URI/,
    );
  });

  it('names every endpoint that does not answer', async () => {
    const env = {
      KAFKA_BROKERS: CLOSED,
      SCHEMA_REGISTRY_URL: `http://${CLOSED}/apis/ccompat/v7`,
      MONGODB_URI: `mongodb://${CLOSED}/`,
    };
    const error = await resolveStackEnv({ env, containers: false, timeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackUnavailableError);
    expect((error as Error).message).toMatch(/Kafka 127\.0\.0\.1:1.*schema registry.*MongoDB 127\.0\.0\.1:1/);
  });

  it('tells to run the stack when neither variables nor a running local stack exist', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stack-env-'));
    await expect(resolveStackEnv({ env: {}, rootDir: root, containers: false })).rejects.toThrow(
      /npm run stack:up/,
    );
  });

  it('does not take a stale .local/stack.env for a running stack', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stack-env-'));
    mkdirSync(join(root, '.local'));
    writeFileSync(
      join(root, '.local', 'stack.env'),
      `KAFKA_BROKERS=${CLOSED}\nSCHEMA_REGISTRY_URL=http://${CLOSED}\nMONGODB_URI=mongodb://${CLOSED}/\n`,
    );
    await expect(
      resolveStackEnv({ env: {}, rootDir: root, containers: false, timeoutMs: 500 }),
    ).rejects.toThrow(/not answering.*npm run stack:up/);
  });
});

describe('toProcessEnv', () => {
  it('joins brokers with commas', () => {
    expect(
      toProcessEnv({
        kafkaBrokers: ['a:1', 'b:2'],
        schemaRegistryUrl: 'http://r',
        mongoUri: 'mongodb://m/',
        source: 'env',
      }),
    ).toEqual({
      KAFKA_BROKERS: 'a:1,b:2',
      SCHEMA_REGISTRY_URL: 'http://r',
      MONGODB_URI: 'mongodb://m/',
    });
  });

  it('checks only the registry when there is no broker and an SRV URI', async () => {
    expect(
      await unreachableEndpoints(
        {
          kafkaBrokers: [],
          schemaRegistryUrl: 'http://127.0.0.1:1',
          mongoUri: 'mongodb+srv://x/',
          source: 'env',
        },
        300,
      ),
    ).toHaveLength(1);
  });
});

describe('the store behind a Unix socket (decision 0082)', () => {
  it('reads a percent-encoded path ending in .sock as a socket, anything else as host and port', () => {
    expect(mongoHosts('mongodb://%2Ftmp%2Fx%2Fferretdb.sock/')).toEqual([{ path: '/tmp/x/ferretdb.sock' }]);
    expect(mongoHosts('mongodb://u:p@h1:27018,h2/db?replicaSet=r')).toEqual([
      { host: 'h1', port: 27018 },
      { host: 'h2', port: 27017 },
    ]);
    // A password with a percent-encoded `@` and `,`, an IPv6 host: the driver's URI library reads them.
    expect(mongoHosts('mongodb://u:p%40ss%2Cw@[::1]:27018/db')).toEqual([{ host: '::1', port: 27018 }]);
    expect(mongoHosts('mongodb+srv://cluster.example.net/db')).toEqual([]);
  });

  it('names a MONGODB_URI that does not parse instead of checking a host read out of it', async () => {
    expect(() => mongoHosts('http://h1:27018/')).toThrow(/scheme/);
    const problems = await unreachableEndpoints(
      {
        kafkaBrokers: [],
        schemaRegistryUrl: 'http://127.0.0.1:1',
        mongoUri: 'http://h1:27018/',
        source: 'env',
      },
      300,
    );
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^MongoDB URI: .*scheme/i)]));
  });

  it('checks the socket itself: answering while something listens on it, named when nothing does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stack-env-'));
    const path = join(dir, 'ferretdb.sock');
    const stack = {
      kafkaBrokers: [],
      schemaRegistryUrl: 'http://127.0.0.1:1',
      mongoUri: `mongodb://${encodeURIComponent(path)}/`,
      source: 'env' as const,
    };
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const problems = await unreachableEndpoints(stack, 500);
      expect(problems.filter((p) => p.startsWith('MongoDB'))).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const problems = await unreachableEndpoints(stack, 500);
    expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^MongoDB ${path}: ENOENT`)));
  });
});
