import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet } from 'jose';
import { ensureCallbackKeys, type LocalKeyPair } from '../../keys/ensureLocalKeys';
import { signCallback } from '../callbackSignature';
// The receiver integrators copy from docs/callbacks.md: plain CommonJS, no @crs/* imports.
import {
  CallbackRejected,
  createCrsCallbackReceiver,
  TOLERANCE_SEC,
  verifyCrsCallback,
} from './crs-callback-receiver.cjs';

const exampleFile = join(__dirname, 'crs-callback-receiver.cjs');
const docFile = join(__dirname, '../../../../../docs/callbacks.md');

const data = { businessUnit: 'BU1', eventType: 'RiskAssessed', assessment: { riskLevel: 'HIGH' } };
const body = JSON.stringify(data);
const id = '0b7e4d52-1c0f-4d8e-9f4e-7a3c2d1e0f11';
const now = 1_760_000_000;

let dir: string;
let ours: LocalKeyPair;
let theirs: LocalKeyPair;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crs-receiver-example-'));
  ours = await ensureCallbackKeys(join(dir, 'ours'));
  theirs = await ensureCallbackKeys(join(dir, 'theirs'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The headers the callback service sends (dispatcher.ts): CloudEvents binary mode plus the signature. */
async function deliveryHeaders(
  opts: { timestamp?: number; key?: LocalKeyPair; deliveryId?: string; payload?: string } = {},
): Promise<Record<string, string>> {
  const signature = await signCallback({
    privateJwk: (opts.key ?? ours).privateJwk,
    body: opts.payload ?? body,
    timestamp: opts.timestamp ?? now,
    id: opts.deliveryId ?? id,
  });
  return {
    'content-type': 'application/json',
    'ce-specversion': '1.0',
    'ce-type': 'com.crs.risk-assessment.completed',
    'ce-source': 'COMM-42',
    'ce-subject': 'CUST-7',
    'ce-time': '2025-10-09T08:00:00.000Z',
    ...signature,
  };
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(CallbackRejected);
    return (err as Error).message;
  }
  throw new Error('expected the callback to be rejected');
}

describe('the documented receiver example', () => {
  it('is the code docs/callbacks.md shows, verbatim', () => {
    const doc = readFileSync(docFile, 'utf8');
    const example = readFileSync(exampleFile, 'utf8');
    expect(doc).toContain('```js\n' + example + '```');
  });

  describe('verifyCrsCallback', () => {
    const keys = () => createLocalJWKSet(ours.jwks);

    it('accepts a delivery signed by signCallback', async () => {
      await expect(
        verifyCrsCallback(keys(), await deliveryHeaders(), Buffer.from(body), now + 30),
      ).resolves.toBeUndefined();
    });

    it('rejects a tampered body', async () => {
      const tampered = Buffer.from(body.replace('HIGH', 'LOW'));
      expect(await rejection(verifyCrsCallback(keys(), await deliveryHeaders(), tampered, now))).toBe(
        'bad callback signature',
      );
    });

    it('rejects a stale timestamp, even with a valid signature', async () => {
      const old = await deliveryHeaders({ timestamp: now - TOLERANCE_SEC - 1 });
      expect(await rejection(verifyCrsCallback(keys(), old, Buffer.from(body), now))).toBe('stale callback');
    });

    it('rejects a fresh timestamp pasted onto an old signature', async () => {
      const old = await deliveryHeaders({ timestamp: now - 3600 });
      const refreshed = { ...old, 'x-crs-timestamp': String(now) };
      expect(await rejection(verifyCrsCallback(keys(), refreshed, Buffer.from(body), now))).toBe(
        'bad callback signature',
      );
    });

    it('rejects a signature moved to another ce-id', async () => {
      const moved = { ...(await deliveryHeaders()), 'ce-id': 'another-event' };
      expect(await rejection(verifyCrsCallback(keys(), moved, Buffer.from(body), now))).toBe(
        'bad callback signature',
      );
    });

    it('rejects a key that is not in our JWKS', async () => {
      const forged = await deliveryHeaders({ key: theirs });
      expect(await rejection(verifyCrsCallback(keys(), forged, Buffer.from(body), now))).toBe(
        'bad callback signature',
      );
    });

    it('rejects missing or malformed signature headers', async () => {
      const h = await deliveryHeaders();
      const { 'x-crs-signature': _sig, ...unsigned } = h;
      expect(await rejection(verifyCrsCallback(keys(), unsigned, Buffer.from(body), now))).toBe(
        'malformed callback signature',
      );
      const attached = { ...h, 'x-crs-signature': h['x-crs-signature']!.replace('..', '.e30.') };
      expect(await rejection(verifyCrsCallback(keys(), attached, Buffer.from(body), now))).toBe(
        'malformed callback signature',
      );
    });
  });

  describe('createCrsCallbackReceiver over HTTP', () => {
    let server: Server;
    let url: string;
    let clockNow = now;
    const events: { id: string; type: string; source: string; subject: string; data: unknown }[] = [];
    let failNext = false;

    beforeAll(async () => {
      const handle = createCrsCallbackReceiver({
        jwks: ours.jwks,
        clock: () => clockNow,
        onEvent: async (event: (typeof events)[number]) => {
          if (failNext) {
            failNext = false;
            throw new Error('downstream unavailable');
          }
          events.push(event);
        },
      });
      server = createServer((req, res) => void handle(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    beforeEach(() => {
      events.length = 0;
      clockNow = now;
    });

    const post = async (headers: Record<string, string>, payload = body) =>
      (await fetch(url, { method: 'POST', headers, body: payload })).status;

    it('processes a signed delivery once and acknowledges a replay without processing it again', async () => {
      const headers = await deliveryHeaders({ deliveryId: 'event-once' });
      expect(await post(headers)).toBe(204);
      expect(events).toEqual([
        {
          id: 'event-once',
          type: 'com.crs.risk-assessment.completed',
          source: 'COMM-42',
          subject: 'CUST-7',
          time: '2025-10-09T08:00:00.000Z',
          data,
        },
      ]);
      // The identical request again (a replay, or our retry after a lost answer): 2xx, no second effect.
      expect(await post(headers)).toBe(200);
      // Our retry of the same event, signed later with a fresh timestamp: also not processed again.
      clockNow = now + 600;
      expect(await post(await deliveryHeaders({ deliveryId: 'event-once', timestamp: now + 600 }))).toBe(200);
      expect(events).toHaveLength(1);
    });

    it('refuses a tampered body and a stale timestamp with 401, processing nothing', async () => {
      const headers = await deliveryHeaders({ deliveryId: 'event-tampered' });
      expect(await post(headers, body.replace('HIGH', 'LOW'))).toBe(401);
      clockNow = now + TOLERANCE_SEC + 1;
      expect(await post(headers)).toBe(401);
      expect(events).toEqual([]);
    });

    it('answers 500 when processing fails, so the retry is processed', async () => {
      const headers = await deliveryHeaders({ deliveryId: 'event-retried' });
      failNext = true;
      expect(await post(headers)).toBe(500);
      expect(await post(headers)).toBe(204);
      expect(events.map((e) => e.id)).toEqual(['event-retried']);
    });
  });
});
