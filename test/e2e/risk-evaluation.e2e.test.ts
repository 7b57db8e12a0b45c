import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Db } from 'mongodb';
import { ProjectionCatalog, communicationEventsOf } from '@crs/store';
import { ROOT, TestCluster, TestReceiver, eventually, localToken, uniqueId } from '@crs/testing';

const run = promisify(execFile);
const SERVICES = ['customer', 'projector', 'evaluation', 'callback', 'ingress'] as const;

interface AssessmentView {
  source: string;
  level: string;
  riskLevel: string;
  score?: number;
  matrixId?: string;
  matrixVersion?: number;
  explanation?: { factors?: Array<Record<string, unknown>>; floorApplied?: { id: string } | null };
  override?: { reason?: string; setBy?: string; computedLevel?: string | null };
}
interface CustomerView {
  riskLevel: string | null;
  latestAssessment: AssessmentView | null;
  override: Record<string, unknown> | null;
}

/**
 * Risk evaluation through the real stack: imports with sourceOfRiskLevel EVALUATE are assessed by the
 * evaluation service with the bundled matrices, a matrix version activated with the CLI re-evaluates the
 * customers it serves, and manual overrides (with and without expiry) take precedence until they expire.
 */
describe('risk evaluation end to end', () => {
  const cluster = new TestCluster('e2e-eval', {
    OVERRIDE_EXPIRY_SCAN_MS: '1000',
    REEVALUATION_CHUNK_SIZE: '2',
    REEVALUATION_CHUNK_PAUSE_MS: '0',
  });
  const receiver = new TestReceiver();
  const work = mkdtempSync(join(tmpdir(), 'crs-eval-'));
  const personsFile = join(ROOT, 'packages/risk-engine/matrices/demo-persons.v1.json');
  let db: Db;
  let token: string;

  /** Every event the communication_events read model holds, each once (decision 0050). */
  const storedEvents = async () =>
    communicationEventsOf(
      (await (await new ProjectionCatalog(db).collection('communication_events'))
        .find({})
        .toArray()) as never[],
    );

  /** Runs the compiled CLI against this namespace, as an operator would. */
  const activate = async (matrix: Record<string, unknown> | string) => {
    const file = typeof matrix === 'string' ? matrix : join(work, `matrix-${String(matrix.version)}.json`);
    if (typeof matrix !== 'string') writeFileSync(file, JSON.stringify(matrix));
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'services/evaluation/dist/cli/activate-matrix.js'), file, '--by', 'e2e'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          TOPIC_PREFIX: `${cluster.namespace}.`,
          MONGODB_DB: cluster.dbName,
          TOPIC_PARTITIONS: '3',
          TOPIC_REPLICATION_FACTOR: '1',
        },
      },
    );
    return JSON.parse(stdout) as { activated: boolean; matrixId: string; version: number; topic: string };
  };

  /** demo-persons with lower thresholds: a person with almost no risk indicators becomes MEDIUM. */
  const strictPersons = (version: number) => ({
    ...(JSON.parse(readFileSync(personsFile, 'utf8')) as Record<string, unknown>),
    version,
    description: `e2e: demo-persons with lowered thresholds (v${version})`,
    thresholds: { LOW: 0.1, MEDIUM: 0.2, HIGH: 35, EXTREME: 60 },
  });

  beforeAll(async () => {
    await cluster.dropDatabase();
    // Earlier runs left activations on this namespace's matrix topic: the bundled version is activated
    // again so that every run starts from it.
    expect(await activate(personsFile)).toMatchObject({
      activated: true,
      matrixId: 'demo-persons',
      version: 1,
    });
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/callbacks` });
    await cluster.start(SERVICES);
    db = await cluster.db();
    token = await localToken();
  });

  afterAll(async () => {
    await cluster.stop([...SERVICES]);
    await receiver.stop();
  });

  const post = (path: string, body: unknown) =>
    cluster.fetch(path, { method: 'POST', token, body: JSON.stringify(body) });
  const view = async (extId: string): Promise<CustomerView | undefined> => {
    const r = await cluster.fetch(`/api/customers/DEMO/${extId}`, { token });
    return r.status === 200 ? ((await r.json()) as CustomerView) : undefined;
  };
  const assessed = (extId: string, accept: (a: AssessmentView) => boolean, what: string) =>
    eventually(
      async () => {
        const v = await view(extId);
        return v?.latestAssessment && accept(v.latestAssessment) ? v : undefined;
      },
      60000,
      what,
    );

  const person = (extId: string, comm: string, extra: Record<string, unknown> = {}) => ({
    communicationNumber: comm,
    requester: 'e2e',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'EVALUATE',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: extId,
    firstName: 'Ann',
    lastName: 'Example',
    citizenshipCountry: 'LT',
    ...extra,
  });
  const organization = (extId: string, comm: string) => ({
    communicationNumber: comm,
    requester: 'e2e',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'EVALUATE',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'ORG',
    entityType: 'ORGANIZATION',
    customerExtId: extId,
    title: 'Example Trading UAB',
    registrationCountry: 'LT',
    legalForm: 'PRIVATE_LIMITED_COMPANY',
  });

  // Shared by the matrix and override tests: a person the bundled matrix rates NONE.
  const plain = uniqueId('plain');

  it('evaluates a PEP with a grey-list citizenship to at least HIGH, visible in the read API and by callback', async () => {
    const extId = uniqueId('pep');
    const comm = uniqueId('comm');
    const res = await post(
      '/core-ws-rest/customer',
      person(extId, comm, { isPEP: true, citizenshipCountry: 'BG' }),
    );
    expect(res.status).toBe(200);

    const v = await assessed(extId, (a) => a.source === 'EVALUATE', 'evaluated assessment');
    const a = v.latestAssessment!;
    expect(['HIGH', 'EXTREME']).toContain(a.level);
    expect(v.riskLevel).toBe(a.level);
    expect(a).toMatchObject({
      matrixId: 'demo-persons',
      matrixVersion: 1,
      explanation: { floorApplied: { id: 'PEP' } },
    });
    const nationality = a.explanation!.factors!.find((f) => f.id === 'NATIONALITY_COUNTRY');
    expect(nationality).toMatchObject({
      applicable: true,
      inputValue: expect.anything(),
      score: 60,
      weight: expect.any(Number),
      contribution: expect.any(Number),
    });

    const callback = await eventually(
      async () =>
        receiver.acceptedFor(comm).find((c) => c.headers['ce-type'] === 'com.crs.risk-assessment.completed'),
      60000,
      'risk assessment callback',
    );
    const body = JSON.parse(callback.body.toString()) as { assessment: AssessmentView };
    expect(body.assessment).toMatchObject({ source: 'EVALUATE', level: a.level, matrixVersion: 1 });
    expect(body.assessment.explanation!.factors!.length).toBe(a.explanation!.factors!.length);
    expect(body.assessment.explanation!.floorApplied).toMatchObject({ id: 'PEP' });

    // The read models keep the explanation as one JSON string (decision 0043); the API shows the object.
    const stored = await (
      await new ProjectionCatalog(db).collection('assessments')
    ).findOne({
      customerExtId: extId,
      source: 'EVALUATE',
    });
    expect(typeof stored!.explanation).toBe('string');
    expect(JSON.parse(stored!.explanation as string)).toEqual(a.explanation);
    // communication_events folds a communication's events into documents holding them as one JSON string
    // (decisions 0046, 0050).
    const storedDocs = await (await new ProjectionCatalog(db).collection('communication_events'))
      .find({ communicationNumber: comm })
      .toArray();
    expect(storedDocs.length).toBeGreaterThan(0);
    for (const d of storedDocs) expect(typeof d.events).toBe('string');
    const storedEvent = communicationEventsOf(storedDocs as never[]).find((e) => e.type === 'RiskAssessed');
    expect((storedEvent!.data as { assessment: AssessmentView }).assessment).toMatchObject({
      level: a.level,
      explanation: a.explanation,
    });
    const pulled = (await (
      await cluster.fetch(`/api/integration-services/v1/communications-events/${comm}`, { token })
    ).json()) as { events: { type: string; data: { assessment?: AssessmentView } }[] };
    const event = pulled.events.find((e) => e.type === 'com.crs.risk-assessment.completed');
    expect(event!.data.assessment!.explanation).toEqual(a.explanation);
  });

  it('evaluates an organization with the organizations matrix', async () => {
    const extId = uniqueId('org');
    expect((await post('/core-ws-rest/customer', organization(extId, uniqueId('comm')))).status).toBe(200);
    const v = await assessed(extId, (a) => a.source === 'EVALUATE', 'organization assessment');
    expect(v.latestAssessment).toMatchObject({ matrixId: 'demo-organizations', matrixVersion: 1 });
    expect(
      v.latestAssessment!.explanation!.factors!.some(
        (f) => f.id === 'REGISTRATION_COUNTRY' && f.applicable === true,
      ),
    ).toBe(true);
  });

  it('re-evaluates the customers a newly activated matrix version serves', async () => {
    expect((await post('/core-ws-rest/customer', person(plain, uniqueId('comm')))).status).toBe(200);
    const before = await assessed(plain, (a) => a.source === 'EVALUATE', 'first assessment');
    expect(before.latestAssessment).toMatchObject({ level: 'NONE', matrixVersion: 1 });
    // An organization is served by another matrix: untouched by a persons matrix.
    const org = uniqueId('org');
    expect((await post('/core-ws-rest/customer', organization(org, uniqueId('comm')))).status).toBe(200);
    await assessed(org, (a) => a.source === 'EVALUATE', 'organization assessment');

    expect(await activate(strictPersons(2))).toMatchObject({
      activated: true,
      matrixId: 'demo-persons',
      version: 2,
      topic: 'e2e-eval.crs.risk.matrix.v1',
    });
    const after = await assessed(plain, (a) => a.matrixVersion === 2, 'assessment with version 2');
    expect(after.latestAssessment).toMatchObject({
      source: 'EVALUATE',
      level: 'MEDIUM',
      matrixId: 'demo-persons',
    });
    expect(after.riskLevel).toBe('MEDIUM');
    const reasons = (await storedEvents()).filter(
      (e) => e.customerExtId === plain && e.type === 'RiskEvaluationRequested',
    );
    expect(reasons.map((r) => r.data.reason)).toContain('MATRIX_ACTIVATED');
    expect((await view(org))!.latestAssessment).toMatchObject({
      matrixId: 'demo-organizations',
      matrixVersion: 1,
    });
  });

  it('records a manual override as an assessment and keeps it through the next re-evaluation', async () => {
    const res = await post('/api/risk/overrides', {
      businessUnit: 'DEMO',
      customerExtId: plain,
      level: 'LOW',
      reason: 'Known customer, analyst review 42',
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { commandId: string; communicationNumber: string };
    expect(accepted.communicationNumber).toMatch(/^override-/);

    const overridden = await assessed(plain, (a) => a.source === 'OVERRIDE', 'override assessment');
    expect(overridden).toMatchObject({
      riskLevel: 'LOW',
      override: { level: 'LOW', reason: 'Known customer, analyst review 42', setBy: 'e2e-test' },
    });
    expect(overridden.latestAssessment!.override).toMatchObject({
      reason: 'Known customer, analyst review 42',
      computedLevel: 'MEDIUM',
    });
    const history = await (await new ProjectionCatalog(db).collection('assessments'))
      .find({ customerExtId: plain })
      .sort({ streamVersion: 1 })
      .toArray();
    expect(history.map((h) => h.source)).toEqual(['EVALUATE', 'EVALUATE', 'OVERRIDE']);
    expect(history[2]).toMatchObject({ level: 'LOW', communicationNumber: accepted.communicationNumber });

    // Version 3 re-evaluates the customer; the override stays in force and the computed level is kept beside it.
    await activate(strictPersons(3));
    const kept = await assessed(plain, (a) => a.matrixVersion === 3, 'assessment with version 3');
    expect(kept.riskLevel).toBe('LOW');
    expect(kept.latestAssessment).toMatchObject({
      source: 'EVALUATE',
      level: 'LOW',
      override: { reason: 'Known customer, analyst review 42', computedLevel: 'MEDIUM' },
    });
  });

  it('re-evaluates when an override expires', async () => {
    const extId = uniqueId('org');
    expect((await post('/core-ws-rest/customer', organization(extId, uniqueId('comm')))).status).toBe(200);
    const computed = (await assessed(extId, (a) => a.source === 'EVALUATE', 'organization assessment'))
      .latestAssessment!.level;
    const expiresAt = new Date(Date.now() + 4000).toISOString();
    const res = await post('/api/risk/overrides', {
      businessUnit: 'DEMO',
      customerExtId: extId,
      level: 'EXTREME',
      reason: 'Temporary: pending investigation',
      expiresAt,
    });
    expect(res.status).toBe(202);
    await assessed(extId, (a) => a.source === 'OVERRIDE' && a.level === 'EXTREME', 'override assessment');

    const after = await assessed(
      extId,
      (a) => a.source === 'EVALUATE' && !a.override,
      'assessment after expiry',
    );
    expect(after.riskLevel).toBe(computed);
    const requested = (await storedEvents()).filter(
      (e) => e.customerExtId === extId && e.type === 'RiskEvaluationRequested',
    );
    expect(requested.map((r) => r.data.reason)).toContain('OVERRIDE_EXPIRED');
  });

  it('validates override requests and answers 404 for an unknown customer', async () => {
    const bad = await post('/api/risk/overrides', {
      businessUnit: 'DEMO',
      customerExtId: plain,
      level: 'SEVERE',
      reason: '',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errorCode: expect.stringMatching(/^V001/) });
    const past = await post('/api/risk/overrides', {
      businessUnit: 'DEMO',
      customerExtId: plain,
      level: 'LOW',
      reason: 'r',
      expiresAt: '2020-01-01',
    });
    expect(past.status).toBe(400);
    const missing = await post('/api/risk/overrides', {
      businessUnit: 'DEMO',
      customerExtId: uniqueId('missing'),
      level: 'LOW',
      reason: 'r',
    });
    expect(missing.status).toBe(404);
    const readOnly = await localToken({ scopes: ['customers:read'] });
    const forbidden = await cluster.fetch('/api/risk/overrides', {
      method: 'POST',
      token: readOnly,
      body: JSON.stringify({ businessUnit: 'DEMO', customerExtId: plain, level: 'LOW', reason: 'r' }),
    });
    expect(forbidden.status).toBe(403);
    const otherUnit = await post('/api/risk/overrides', {
      businessUnit: 'OTHER',
      customerExtId: plain,
      level: 'LOW',
      reason: 'r',
    });
    expect(otherUnit.status).toBe(403);
  });
});
