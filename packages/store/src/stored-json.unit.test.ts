import { readAssessment, readCustomerRecord, readEventData, storeAssessment } from './stored-json';

describe('stored assessments (decision 0043)', () => {
  const explanation = { matrixId: 'm', factors: [{ id: 'PEP', score: 40 }], floorApplied: { id: 'PEP' } };
  const assessment = { source: 'EVALUATE' as const, level: 'HIGH' as const, score: 41, explanation };

  it('stores the explanation as one JSON string and reads it back', () => {
    const stored = storeAssessment(assessment);
    expect(stored).toEqual({
      source: 'EVALUATE',
      level: 'HIGH',
      score: 41,
      explanation: JSON.stringify(explanation),
    });
    expect(readAssessment(stored)).toEqual(assessment);
  });

  it('reads a document written before, with the explanation as an object, unchanged', () => {
    expect(readAssessment(assessment)).toEqual(assessment);
  });

  it('leaves an assessment without an explanation without one (an import, an override)', () => {
    const imported = { source: 'IMPORT' as const, level: 'LOW' as const };
    expect(storeAssessment(imported)).toEqual(imported);
    expect(readAssessment(imported)).toEqual(imported);
  });

  it('reads the data of an event stored as one JSON string (decision 0046) as the event carried it', () => {
    const data = { requestId: 'r', assessment, previousLevel: null };
    expect(readEventData('RiskAssessed', JSON.stringify(data))).toEqual(data);
    const requested = { requestId: 'q', lists: ['SANCTIONS', 'PEP'], customer: { entityType: 'INDIVIDUAL' } };
    expect(readEventData('ScreeningRequested', JSON.stringify(requested))).toEqual(requested);
  });

  it('reads the assessment of a RiskAssessed event stored before 0046, and leaves other events as they are', () => {
    const data = { requestId: 'r', assessment: storeAssessment(assessment), previousLevel: null };
    expect(readEventData('RiskAssessed', data)).toEqual({ requestId: 'r', assessment, previousLevel: null });
    const screening = { list: 'PEP', matched: false, hits: [], explanation: '{"kept":"as is"}' };
    expect(readEventData('ScreeningCompleted', screening)).toBe(screening);
  });
});

describe('the customer record of a customer document (decision 0049)', () => {
  const record = {
    entityType: 'INDIVIDUAL',
    firstName: 'crs:enc:1:k:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:AAAA',
    citizenshipCountry: 'LT',
    listAddress: [{ addressType: 'RESIDENTIAL', country: 'LT', city: null }],
  };

  it('reads the record stored as one JSON string as it was imported', () => {
    expect(readCustomerRecord(JSON.stringify(record))).toEqual(record);
  });

  it('reads a document written before 0049, with the record as an object, unchanged', () => {
    expect(readCustomerRecord(record)).toBe(record);
  });

  it('reads a document without a record as none', () => {
    expect(readCustomerRecord(undefined)).toBeUndefined();
    expect(readCustomerRecord(null)).toBeUndefined();
  });
});
