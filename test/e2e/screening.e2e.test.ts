import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from 'mongodb';
import { commonConfigSpec, createLogger, loadConfig } from '@crs/runtime';
import { StreamReader, setUpMessaging } from '@crs/messaging';
import { ProjectionCatalog, readAssessment, type AssessmentDoc } from '@crs/store';
import {
  TestCluster,
  TestReceiver,
  eventually,
  eventuallyNonEmpty,
  localToken,
  uniqueId,
} from '@crs/testing';

interface SdnPerson {
  entryId: string;
  firstName: string;
  lastName: string;
}

/**
 * Real OFAC SDN individuals, read from the shared list file at test time: simple "LAST, First" names
 * (one word each, 4+ letters) so the customer record carries exactly the listed name.
 */
function sdnIndividuals(count: number): SdnPerson[] {
  const dir = process.env.CRS_SHARED_DATA ?? path.resolve(__dirname, '../../../shared/data');
  const text = readFileSync(path.join(dir, 'lists', 'sdn.csv'), 'latin1');
  const out: SdnPerson[] = [];
  const seen = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\d+),"([A-Z]{4,}), ([A-Z][a-z]{3,})","individual",/.exec(line);
    if (!m || seen.has(m[2]!)) continue;
    seen.add(m[2]!);
    out.push({ entryId: m[1]!, lastName: m[2]!, firstName: m[3]! });
    if (out.length === count) break;
  }
  if (out.length < count) throw new Error('not enough simple SDN individuals in sdn.csv');
  return out;
}

interface Hit {
  list: string;
  source: string;
  entryId: string;
  subject?: string;
  score: number;
  suppressed?: boolean;
}

interface ScreeningDoc {
  communicationNumber: string;
  list: string;
  matched: boolean;
  hits: Hit[];
}

/**
 * Black-box screening through the real stack: ingress -> decider -> ScreeningRequested -> screening service
 * (real OFAC/UN/PEP lists) -> RecordScreeningResult -> decider -> ScreeningCompleted -> projector and callback.
 */
describe('screening end to end', () => {
  const cluster = new TestCluster('e2e-screen');
  const receiver = new TestReceiver();
  const [person, director, evaluated] = sdnIndividuals(3) as [SdnPerson, SdnPerson, SdnPerson];
  let db: Db;
  let token: string;
  let screeningUrl: string;

  beforeAll(async () => {
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/callbacks` });
    await cluster.start(['customer', 'projector', 'callback', 'evaluation', 'screening', 'ingress']);
    db = await cluster.db();
    token = await localToken();
    screeningUrl = `http://127.0.0.1:${cluster.portOf('screening')}`;
  });

  afterAll(async () => {
    await cluster.stop();
    await receiver.stop();
  });

  const post = (p: string, body: unknown) =>
    cluster.fetch(p, { method: 'POST', token, body: JSON.stringify(body) });
  const screeningApi = (p: string, init: RequestInit = {}, auth = token) =>
    fetch(`${screeningUrl}${p}`, {
      ...init,
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    });

  const customer = (extId: string, comm: string, extra: Record<string, unknown> = {}) => ({
    communicationNumber: comm,
    requester: 'e2e',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: extId,
    firstName: person.firstName,
    lastName: person.lastName,
    initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
    listRelatedEntity: [
      {
        entityType: 'INDIVIDUAL',
        relationType: 'DIRECTOR',
        firstName: director.firstName,
        lastName: director.lastName,
      },
    ],
    ...extra,
  });

  const screeningOf = async (comm: string, list: string) => {
    const screenings = await (await new ProjectionCatalog(db).collection<ScreeningDoc>('screenings'))
      .find({ communicationNumber: comm, list })
      .toArray();
    return screenings[0];
  };

  it('a sanctioned customer and director match SANCTIONS, not PEP; projection and callback show it; a FALSE_POSITIVE decision suppresses the hit next time', async () => {
    const extId = uniqueId('cust');
    const comm = uniqueId('comm');
    expect((await post('/core-ws-rest/customer', customer(extId, comm))).status).toBe(200);

    const sanctions = await eventually(() => screeningOf(comm, 'SANCTIONS'), 90000, 'SANCTIONS screening');
    expect(sanctions.matched).toBe(true);
    const own = sanctions.hits.find((h) => h.entryId === person.entryId && h.subject === 'CUSTOMER');
    expect(own).toMatchObject({ list: 'SANCTIONS', source: 'OFAC_SDN' });
    expect(own!.score).toBeGreaterThanOrEqual(0.86);
    const directorHit = sanctions.hits.find((h) => h.entryId === director.entryId);
    expect(directorHit).toMatchObject({ subject: 'listRelatedEntity[0]', source: 'OFAC_SDN' });
    expect(sanctions.hits.every((h) => !h.suppressed)).toBe(true);

    const pep = await eventually(() => screeningOf(comm, 'PEP'), 60000, 'PEP screening');
    expect(pep).toMatchObject({ matched: false, hits: [] });

    const doc = await eventually(
      async () => {
        const c = await (
          await new ProjectionCatalog(db).collection('customers')
        ).findOne({ businessUnit: 'DEMO', customerExtId: extId });
        return c?.screening?.SANCTIONS && c.screening.PEP ? c : undefined;
      },
      60000,
      'customer screening state',
    );
    expect(doc.screening.SANCTIONS.matched).toBe(true);
    expect(doc.screening.PEP.matched).toBe(false);

    const callback = await eventually(
      async () =>
        receiver
          .acceptedFor(comm)
          .find((c) => c.headers['ce-type'] === 'com.crs.screening.sanctions.completed'),
      60000,
      'sanctions callback',
    );
    expect(callback.headers['ce-subject']).toBe(extId);
    expect(JSON.parse(callback.body.toString())).toMatchObject({ matched: true });
    await eventually(
      async () =>
        receiver.acceptedFor(comm).some((c) => c.headers['ce-type'] === 'com.crs.screening.pep.completed'),
      60000,
      'pep callback',
    );

    // A reviewer declares the customer's own hit a false positive (the service may still be folding the result in).
    const decided = await eventually(
      async () => {
        const res = await screeningApi('/api/screening/decisions', {
          method: 'POST',
          body: JSON.stringify({
            businessUnit: 'DEMO',
            customerExtId: extId,
            list: 'SANCTIONS',
            entryId: person.entryId,
            decision: 'FALSE_POSITIVE',
            reason: 'different person: checked the passport',
          }),
        });
        return res.status === 202 ? res.json() : undefined;
      },
      30000,
      'decision accepted',
    );
    expect(decided).toMatchObject({ resultType: 'REQUEST_ACCEPTED', commandId: expect.any(String) });

    // The next screening of the same customer (an UPDATE asking for screening again) suppresses that hit only.
    const comm2 = uniqueId('comm');
    expect((await post('/core-ws-rest/customer', customer(extId, comm2, { action: 'UPDATE' }))).status).toBe(
      200,
    );
    const again = await eventually(
      () => screeningOf(comm2, 'SANCTIONS'),
      60000,
      'second SANCTIONS screening',
    );
    expect(again.hits.find((h) => h.entryId === person.entryId && h.subject === 'CUSTOMER')).toMatchObject({
      suppressed: true,
    });
    expect(again.hits.find((h) => h.entryId === director.entryId)?.suppressed).toBeUndefined();
    // The director is still sanctioned, so the customer still matches.
    expect(again.matched).toBe(true);
  });

  it('an EVALUATE import of a sanctioned name is re-assessed by its first screening match; a CONFIRMED decision makes it EXTREME', async () => {
    interface Assessment {
      level: string;
      score?: number;
      explanation?: {
        floorApplied?: { id: string } | null;
        factors?: { id: string; inputValue: { screening: string | null } | null }[];
      };
    }
    const RANK = ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'EXTREME'];
    const sanctionsInput = (a: Assessment) =>
      a.explanation?.factors?.find((f) => f.id === 'SANCTIONS')?.inputValue?.screening ?? null;
    const extId = uniqueId('cust');
    const comm = uniqueId('comm');
    const record = {
      ...customer(extId, comm),
      sourceOfRiskLevel: 'EVALUATE',
      riskLevel: undefined,
      firstName: evaluated.firstName,
      lastName: evaluated.lastName,
      citizenshipCountry: 'LT',
      // A little risk of its own, so that a potential sanctions match crosses a threshold of the demo matrix.
      doesCashDominate: true,
      initializeScreeningProcesses: ['SANCTIONS'],
      listRelatedEntity: undefined,
    };
    expect((await post('/core-ws-rest/customer', record)).status).toBe(200);
    const sanctions = await eventually(() => screeningOf(comm, 'SANCTIONS'), 90000, 'SANCTIONS screening');
    expect(sanctions.hits.find((h) => h.entryId === evaluated.entryId)).toMatchObject({ source: 'OFAC_SDN' });

    const assessments = async () =>
      (
        await (await new ProjectionCatalog(db).collection<AssessmentDoc>('assessments'))
          .find({ customerExtId: extId })
          .sort({ streamVersion: 1 })
          .toArray()
      )
        // The read model keeps the explanation as a JSON string (decision 0043).
        .map((d) => readAssessment(d) as Assessment);
    // The import's own evaluation saw no screening; the first match asks for another, which sees it.
    const [before, after] = await eventually(
      async () => {
        const all = await assessments();
        return all.length >= 2 ? all : undefined;
      },
      90000,
      'the assessment after the first screening match',
    );
    expect(sanctionsInput(before!)).toBeNull();
    expect(sanctionsInput(after!)).toBe('POTENTIAL');
    expect(RANK.indexOf(after!.level)).toBeGreaterThan(RANK.indexOf(before!.level));
    expect(after!.score!).toBeGreaterThan(before!.score!);

    // An analyst confirms the hit: the customer stream learns it and the SANCTIONS_CONFIRMED floor applies.
    const confirmed = await eventually(
      async () => {
        const res = await screeningApi('/api/screening/decisions', {
          method: 'POST',
          body: JSON.stringify({
            businessUnit: 'DEMO',
            customerExtId: extId,
            list: 'SANCTIONS',
            entryId: evaluated.entryId,
            decision: 'CONFIRMED',
            reason: 'same person: date of birth and passport agree',
          }),
        });
        return res.status === 202 ? res.json() : undefined;
      },
      30000,
      'decision accepted',
    );
    expect(confirmed).toMatchObject({ resultType: 'REQUEST_ACCEPTED' });
    const extreme = await eventually(
      async () => (await assessments()).find((a) => a.level === 'EXTREME'),
      60000,
      'the EXTREME assessment after the confirmation',
    );
    expect(extreme.explanation?.floorApplied).toMatchObject({ id: 'SANCTIONS_CONFIRMED' });
    expect(sanctionsInput(extreme)).toBe('CONFIRMED');
    const doc = await (
      await new ProjectionCatalog(db).collection('customers')
    ).findOne({ businessUnit: 'DEMO', customerExtId: extId });
    expect(doc?.lastScreeningDecision).toMatchObject({
      list: 'SANCTIONS',
      source: 'OFAC_SDN',
      entryId: evaluated.entryId,
      decision: 'CONFIRMED',
    });
  });

  it('a customer marked BLACK is on the internal list (encrypted record): another customer of that name matches INTERNAL_LIST, until it is marked WHITE', async () => {
    // A name on no public list: letters from a fresh id.
    const letters = (seed: string) =>
      createHash('sha256')
        .update(seed)
        .digest()
        .subarray(0, 7)
        .reduce((name, b, i) => name + String.fromCharCode((i === 0 ? 65 : 97) + (b % 26)), '');
    const firstName = letters(uniqueId('first'));
    const lastName = letters(uniqueId('last'));
    const black = uniqueId('black');
    const blackRecord = (listPurpose: 'BLACK' | 'WHITE', action: 'CREATE' | 'UPDATE') =>
      customer(black, uniqueId('comm'), {
        action,
        firstName,
        lastName,
        birthDate: '1975-04-12',
        citizenshipCountry: 'LT',
        listPurpose,
        initializeScreeningProcesses: [],
        listRelatedEntity: [],
        listAddress: [
          { addressType: 'RESIDENTIAL', city: 'Vilnius', country: 'LT', streetAddress: 'Main 1' },
        ],
      });
    expect((await post('/core-ws-rest/customer', blackRecord('BLACK', 'CREATE'))).status).toBe(200);

    const internalHits = async () => {
      const res = await screeningApi(
        `/api/screening/search?name=${encodeURIComponent(`${firstName} ${lastName}`)}&entityType=INDIVIDUAL&lists=INTERNAL_LIST`,
      );
      expect(res.status).toBe(200);
      return (
        (await res.json()) as { hits: { source: string; entryId: string; name: string }[] }
      ).hits.filter((h) => h.source === 'INTERNAL_CUSTOMERS');
    };
    // The screening service folds the mark from the customer log (its own reader): the name is searchable.
    const listed = await eventuallyNonEmpty(internalHits, 60000, 'BLACK customer on the internal list');
    expect(listed).toEqual([
      expect.objectContaining({ entryId: `DEMO:${black}`, name: `${firstName} ${lastName}` }),
    ]);

    // Another customer of that name, screened against INTERNAL_LIST, matches the BLACK customer.
    const other = uniqueId('cust');
    const comm = uniqueId('comm');
    expect(
      (
        await post(
          '/core-ws-rest/customer',
          customer(other, comm, {
            firstName,
            lastName,
            birthDate: '1975-04-12',
            initializeScreeningProcesses: ['INTERNAL_LIST'],
            listRelatedEntity: [],
          }),
        )
      ).status,
    ).toBe(200);
    const internal = await eventually(
      () => screeningOf(comm, 'INTERNAL_LIST'),
      60000,
      'INTERNAL_LIST screening',
    );
    expect(internal.matched).toBe(true);
    expect(internal.hits).toEqual([
      expect.objectContaining({
        list: 'INTERNAL_LIST',
        source: 'INTERNAL_CUSTOMERS',
        entryId: `DEMO:${black}`,
        subject: 'CUSTOMER',
      }),
    ]);

    // Marked WHITE: off the internal list.
    expect((await post('/core-ws-rest/customer', blackRecord('WHITE', 'UPDATE'))).status).toBe(200);
    await eventually(
      async () => ((await internalHits()).length === 0 ? true : undefined),
      60000,
      'WHITE customer off the internal list',
    );
  });

  it('a decision on a hit the customer never had is refused, and decisions need the screening:decide scope', async () => {
    const body = JSON.stringify({
      businessUnit: 'DEMO',
      customerExtId: uniqueId('nobody'),
      list: 'SANCTIONS',
      entryId: '1',
      decision: 'FALSE_POSITIVE',
      reason: 'r',
    });
    const missing = await screeningApi('/api/screening/decisions', { method: 'POST', body });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ errorCode: 'SCREENING_HIT_NOT_FOUND' });
    const searchOnly = await localToken({ scopes: ['screening:search'] });
    expect(
      (await screeningApi('/api/screening/decisions', { method: 'POST', body }, searchOnly)).status,
    ).toBe(403);
    const invalid = await screeningApi('/api/screening/decisions', {
      method: 'POST',
      body: JSON.stringify({ businessUnit: 'DEMO', decision: 'MAYBE' }),
    });
    expect(invalid.status).toBe(400);
    const paths = ((await invalid.json()) as { errors: { path: string }[] }).errors.map((e) => e.path).sort();
    expect(paths).toEqual(['customerExtId', 'decision', 'entryId', 'list', 'reason']);
  });

  it('search finds the SDN name with a score and an explanation, and a name in Chinese characters by its Korean reading; rejects a missing name with a located 400', async () => {
    const res = await screeningApi(
      `/api/screening/search?name=${encodeURIComponent(`${person.firstName} ${person.lastName}`)}&entityType=INDIVIDUAL&lists=SANCTIONS`,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      hits: {
        list: string;
        source: string;
        entryId: string;
        name: string;
        score: number;
        explanation: { nameScore: number };
      }[];
    };
    const hit = body.hits.find((h) => h.source === 'OFAC_SDN' && h.entryId === person.entryId);
    expect(hit).toMatchObject({
      list: 'SANCTIONS',
      score: expect.any(Number),
      explanation: { nameScore: expect.any(Number) },
    });
    expect(body.hits.every((h) => h.list === 'SANCTIONS')).toBe(true);
    expect(body.hits.map((h) => h.score)).toEqual([...body.hits.map((h) => h.score)].sort((a, b) => b - a));

    // A name in Chinese characters, read as Korean: 金正恩 -> 김정은 -> "kim jong un" (the OFAC spelling).
    const han = await screeningApi(
      `/api/screening/search?name=${encodeURIComponent('金正恩')}&entityType=INDIVIDUAL&lists=SANCTIONS`,
    );
    expect(han.status).toBe(200);
    const hanHits = (
      (await han.json()) as {
        hits: { source: string; entryId: string; score: number; explanation: { reading?: unknown } }[];
      }
    ).hits;
    expect(hanHits.find((h) => h.source === 'OFAC_SDN' && h.entryId === '20157')).toMatchObject({
      score: expect.any(Number),
      explanation: { reading: { system: 'korean', name: 'kim jong un' } },
    });

    // The POST form: the same search, the name in the body instead of the URL.
    const posted = await screeningApi('/api/screening/search', {
      method: 'POST',
      body: JSON.stringify({ name: '金正恩', entityType: 'INDIVIDUAL', lists: ['SANCTIONS'], limit: 20 }),
    });
    expect(posted.status).toBe(200);
    expect(((await posted.json()) as { hits: unknown[] }).hits).toEqual(hanHits);

    const bad = await screeningApi('/api/screening/search?limit=0');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      errorCode: 'V001',
      errors: expect.arrayContaining([
        { path: 'name', code: 'V001.name.REQUIRED', message: expect.any(String) },
        { path: 'limit', code: 'V001.limit.OUT_OF_RANGE', message: expect.any(String) },
      ]),
    });
    expect((await fetch(`${screeningUrl}/api/screening/search?name=x`)).status).toBe(401);
  });
});

/**
 * Ongoing screening and a failed refresh, against a list file this test owns (LISTS_CONFIG_FILE, refreshed
 * every second): a name added to the list reaches an already screened customer as a new ScreeningCompleted;
 * a corrupt file afterwards leaves the last good snapshot serving.
 */
describe('ongoing screening end to end', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'crs-e2e-lists-'));
  const listFile = path.join(dir, 'watch.json');
  const configFile = path.join(dir, 'lists.json');
  const cluster = new TestCluster('e2e-rescreen', {
    LISTS_CONFIG_FILE: configFile,
    LIST_REFRESH_INTERVAL_SEC: '1',
  });
  const suffix = Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 6);
  const listed = { firstName: 'Zebulon', lastName: `Quortimer${suffix}` };
  const records = (extra: { id: string; name: string }[]) =>
    JSON.stringify([
      { id: 'W-1', name: 'Unrelated Person', entityType: 'INDIVIDUAL' },
      ...extra.map((e) => ({ ...e, entityType: 'INDIVIDUAL' })),
    ]);
  let db: Db;
  let token: string;
  let screeningUrl: string;
  const suiteStart = new Date().toISOString();

  beforeAll(async () => {
    writeFileSync(listFile, records([]));
    writeFileSync(
      configFile,
      JSON.stringify({
        sources: [{ format: 'RECORDS', list: 'SANCTIONS', source: 'WATCH', file: listFile }],
      }),
    );
    await cluster.start(['customer', 'projector', 'screening', 'ingress']);
    db = await cluster.db();
    token = await localToken();
    screeningUrl = `http://127.0.0.1:${cluster.portOf('screening')}`;
  });

  afterAll(async () => {
    await cluster.stop();
  });

  const screenings = async (extId: string) =>
    (await new ProjectionCatalog(db).collection<ScreeningDoc & { requestId: string }>('screenings'))
      .find({ customerExtId: extId, list: 'SANCTIONS' })
      .toArray();

  it('publishes a ListSnapshotLoaded with the content hash and entry count of each load', async () => {
    const config = loadConfig(commonConfigSpec, {
      ...process.env,
      TOPIC_PREFIX: `${cluster.namespace}.`,
      TOPIC_PARTITIONS: '3',
    });
    const messaging = await setUpMessaging(
      config,
      'e2e-rescreen-lists',
      createLogger('e2e-rescreen-lists', 'warn'),
    );
    const seen: { type: string; eventId: string; data: Record<string, unknown> }[] = [];
    const reader = new StreamReader<{ type: string; eventId: string; data: Record<string, unknown> }>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger: createLogger('e2e-rescreen-lists', 'warn'),
      topic: messaging.topics.screeningLists,
      groupPrefix: `${cluster.namespace}.e2e-lists-probe`,
      onMessage: (m) => {
        seen.push(m.value);
      },
    });
    await reader.start();
    try {
      const version = createHash('sha256').update(readFileSync(listFile)).digest('hex');
      const loaded = await eventually(
        async () =>
          seen.find(
            (m) =>
              m.type === 'ListSnapshotLoaded' &&
              m.data.source === 'WATCH' &&
              m.data.version === version &&
              String(m.data.loadedAt) >= suiteStart,
          ),
        30000,
        'ListSnapshotLoaded of the WATCH list',
      );
      expect(loaded).toMatchObject({
        eventId: `WATCH:${version}`,
        data: { list: 'SANCTIONS', source: 'WATCH', version, entryCount: 1, loadedAt: expect.any(String) },
      });
    } finally {
      await reader.stop();
    }
  });

  it('re-screens a known customer when the list gains its name, and keeps serving through a corrupt file', async () => {
    const extId = uniqueId('cust');
    const res = await cluster.fetch('/core-ws-rest/customer', {
      method: 'POST',
      token,
      body: JSON.stringify({
        communicationNumber: uniqueId('comm'),
        requester: 'e2e',
        businessUnit: 'DEMO',
        action: 'CREATE',
        sourceOfRiskLevel: 'IMPORT',
        riskLevel: 'LOW',
        customerStatus: 'ACTIVE',
        riskManagementCategory: 'IND',
        entityType: 'INDIVIDUAL',
        customerExtId: extId,
        ...listed,
        initializeScreeningProcesses: ['SANCTIONS'],
      }),
    });
    expect(res.status).toBe(200);
    const [first] = await eventuallyNonEmpty(() => screenings(extId), 90000, 'first screening');
    expect(first).toMatchObject({ matched: false, hits: [] });

    writeFileSync(listFile, records([{ id: 'W-2', name: `${listed.firstName} ${listed.lastName}` }]));
    const rescreened = await eventually(
      async () => (await screenings(extId)).find((s) => s.matched),
      60000,
      're-screening result',
    );
    expect(rescreened.requestId).toMatch(/:rescreen$/);
    expect(rescreened.hits).toEqual([
      expect.objectContaining({ source: 'WATCH', entryId: 'W-2', subject: 'CUSTOMER' }),
    ]);

    writeFileSync(listFile, '[{"id": "W-1", "name": ');
    await eventually(
      async () => {
        const metrics = await (await fetch(`${screeningUrl}/metrics`)).text();
        return /screening_list_refresh_failures_total\{source="SANCTIONS\/WATCH"[^}]*\} [1-9]/.test(metrics);
      },
      30000,
      'a counted refresh failure',
    );
    const search = await fetch(
      `${screeningUrl}/api/screening/search?name=${encodeURIComponent(`${listed.firstName} ${listed.lastName}`)}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(search.status).toBe(200);
    expect(((await search.json()) as { hits: { entryId: string }[] }).hits.map((h) => h.entryId)).toEqual([
      'W-2',
    ]);
    // Nothing else changed for the customer: one first result, one re-screening result.
    expect(await screenings(extId)).toHaveLength(2);
  });
});
