import {
  communicationEventsOf,
  communicationKey,
  groupCommunicationEvents,
  readAssessment,
  readCustomerRecord,
  type ProjectedCommunicationEvent,
} from '@crs/store';
import { projectCustomerEvent } from './customer-projection';
import { StreamVersions } from './stream-versions';

describe('StreamVersions', () => {
  it('forgets everything on clear, and what was learnt under an older generation', () => {
    const v = new StreamVersions();
    const g = v.generation();
    v.set('customers', new Map([['A', 3]]), g);
    expect(v.get('customers', 'A')).toBe(3);
    v.clear();
    v.set('customers', new Map([['B', 1]]), g);
    expect(v.get('customers', 'A')).toBeUndefined();
    expect(v.get('customers', 'B')).toBeUndefined();
  });

  it('drops the previous collection when the live one switches, and the oldest entries beyond its size', () => {
    const v = new StreamVersions(2);
    v.set('customers', new Map([['A', 1]]), v.generation());
    v.set('customers_r1', new Map([['B', 2]]), v.generation());
    expect(v.get('customers', 'A')).toBeUndefined();
    v.set('customers_r1', new Map([['C', 3]]), v.generation());
    v.set('customers_r1', new Map([['B', 4]]), v.generation());
    v.set('customers_r1', new Map([['D', 5]]), v.generation());
    expect([v.get('customers_r1', 'B'), v.get('customers_r1', 'C'), v.get('customers_r1', 'D')]).toEqual([
      4,
      undefined,
      5,
    ]);
    v.forget('customers_r1', ['B']);
    expect(v.size()).toBe(1);
  });
});

describe('projectCustomerEvent: personal data erased (docs/privacy.md)', () => {
  const base = {
    eventId: 'e-9',
    streamId: 'DEMO:C-9',
    streamVersion: 9,
    occurredAt: '2026-03-01T10:00:00.000Z',
    correlationId: 'erasure-1',
    causationId: 'cmd-9',
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
  };

  it('marks the customer erased with who and how, keeping the ciphertext it holds as it is', () => {
    const effect = projectCustomerEvent({
      ...base,
      type: 'PersonalDataErased',
      data: {
        reason: 'DSR',
        erasedBy: 'dpo',
        override: false,
        retentionYears: 5,
        source: 'API',
        keyId: 'k1',
        relationshipEndedAt: '2019-01-01',
        holdUntil: null,
      },
    });
    expect(effect.customer.set).toMatchObject({
      personalDataErased: true,
      erasure: { erasedAt: base.occurredAt, erasedBy: 'dpo', source: 'API', override: false, keyId: 'k1' },
      version: 9,
    });
    expect(effect.customer.set).not.toHaveProperty('data');
    // The reason stays in the log and the pull endpoint, as any event's data does.
    expect(effect.inserts).toEqual([
      expect.objectContaining({
        projection: 'communication_events',
        doc: expect.objectContaining({ type: 'PersonalDataErased' }),
      }),
    ]);
  });

  it('a record imported afterwards is a new relationship: no longer erased', () => {
    const effect = projectCustomerEvent({
      ...base,
      type: 'CustomerUpdated',
      data: {
        customer: {
          communicationNumber: 'c',
          businessUnit: 'DEMO',
          customerExtId: 'C-9',
          entityType: 'INDIVIDUAL',
        },
        sourceOfRiskLevel: 'IMPORT',
        channel: 'SINGLE',
      },
    });
    expect(effect.customer.set).toMatchObject({ personalDataErased: false });
  });
});

describe('projectCustomerEvent: a risk assessment (decision 0043)', () => {
  const explanation = {
    matrixId: 'demo-persons',
    factors: [{ id: 'PEP', score: 0, inputValue: { flag: false } }],
    floorApplied: null,
  };
  const effect = projectCustomerEvent({
    eventId: 'e-3',
    streamId: 'DEMO:C-3',
    streamVersion: 3,
    occurredAt: '2026-03-01T10:00:00.000Z',
    correlationId: 'comm-3',
    causationId: 'cmd-3',
    businessUnit: 'DEMO',
    customerExtId: 'C-3',
    type: 'RiskAssessed',
    data: {
      requestId: 'r-3',
      assessment: { source: 'EVALUATE', level: 'LOW', score: 12, matrixId: 'demo-persons', explanation },
      previousLevel: null,
    },
  });

  it("stores the explanation as one JSON string in the assessment and the customer document; the event goes into its communication's document as one string", () => {
    const stored = JSON.stringify(explanation);
    expect(effect.customer.set).toMatchObject({
      riskLevel: 'LOW',
      latestAssessment: { level: 'LOW', score: 12, explanation: stored, eventId: 'e-3' },
    });
    const byName = Object.fromEntries(effect.inserts.map((i) => [i.projection, i.doc]));
    expect(byName.assessments).toMatchObject({ _id: 'e-3', level: 'LOW', explanation: stored });
    expect(byName.communication_events).toMatchObject({ type: 'RiskAssessed', streamVersion: 3 });
    const [doc, ...more] = groupCommunicationEvents([
      byName.communication_events as ProjectedCommunicationEvent,
    ]);
    expect(more).toEqual([]);
    expect(doc).toMatchObject({
      _id: `${communicationKey('comm-3')}e-3`,
      businessUnit: 'DEMO',
      communicationNumber: 'comm-3',
      count: 1,
    });
    expect(typeof doc!.events).toBe('string');
    expect(JSON.parse(doc!.events)).toEqual([
      expect.objectContaining({
        eventId: 'e-3',
        customerExtId: 'C-3',
        data: {
          requestId: 'r-3',
          assessment: expect.objectContaining({ level: 'LOW', explanation }),
          previousLevel: null,
        },
      }),
    ]);
  });

  it('reads back as the event carried it', () => {
    const byName = Object.fromEntries(effect.inserts.map((i) => [i.projection, i.doc]));
    const [event] = communicationEventsOf(
      groupCommunicationEvents([byName.communication_events as ProjectedCommunicationEvent]),
    );
    expect(event).toMatchObject({ eventId: 'e-3', type: 'RiskAssessed', communicationNumber: 'comm-3' });
    expect(event!.data).toEqual({
      requestId: 'r-3',
      assessment: { source: 'EVALUATE', level: 'LOW', score: 12, matrixId: 'demo-persons', explanation },
      previousLevel: null,
    });
    expect(readAssessment(effect.customer.set.latestAssessment!)).toMatchObject({ explanation });
  });
});

describe('projectCustomerEvent: the customer record (decision 0049)', () => {
  const customer = {
    communicationNumber: 'comm-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    entityType: 'INDIVIDUAL',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    firstName: 'crs:enc:1:k:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:AAAA',
    citizenshipCountry: 'LT',
  };
  const effect = projectCustomerEvent({
    eventId: 'e-9',
    streamId: 'DEMO:C-9',
    streamVersion: 1,
    occurredAt: '2026-03-01T10:00:00.000Z',
    correlationId: 'comm-1',
    causationId: 'cmd-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    type: 'CustomerCreated',
    data: { customer: customer as never, sourceOfRiskLevel: 'IMPORT', channel: 'BATCH', simplified: false },
  });

  it('stores the record as one JSON string that reads back as imported', () => {
    const { data } = effect.customer.set;
    expect(typeof data).toBe('string');
    expect(readCustomerRecord(data)).toEqual(customer);
  });

  it('keeps the fields the system queries as fields of the document', () => {
    expect(effect.customer.set).toMatchObject({
      businessUnit: 'DEMO',
      customerExtId: 'C-9',
      entityType: 'INDIVIDUAL',
      status: 'ACTIVE',
      riskManagementCategory: 'IND',
      sourceOfRiskLevel: 'IMPORT',
    });
  });
});
