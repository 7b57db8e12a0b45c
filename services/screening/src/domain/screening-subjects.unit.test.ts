import { randomBytes } from 'node:crypto';
import { buildIndex, loadRecordList } from '@crs/screening-core';
import { CustomerPersonalFields, decryptFieldsWith, sealFieldsWith } from '@crs/privacy';
import { screenedFields, screeningSubjects, subjectQueries } from './screening-subjects';
import { screenSubjects } from './screen-customer';

const LOADED = '2026-01-01T00:00:00.000Z';

const PERSON_RECORD = {
  communicationNumber: 'c',
  businessUnit: 'DEMO',
  customerExtId: 'C-1',
  entityType: 'INDIVIDUAL',
  firstName: 'Ann',
  lastName: 'Example',
  birthDate: '1980-02-03',
  citizenshipCountry: 'LT',
  nationalCode: '38002030000',
  listRelatedEntity: [
    {
      entityType: 'INDIVIDUAL',
      relationType: 'DIRECTOR',
      firstName: 'Bob',
      lastName: 'Boss',
      birthDate: '1970',
      country: 'LV',
    },
    { entityType: 'ORGANIZATION', relationType: 'HOST', extId: 'x' },
    {
      entityType: 'ORGANIZATION',
      relationType: 'HOST',
      title: 'Acme Trading LLC',
      registrationCountry: 'EE',
      nationalCode: '123456',
    },
  ],
};

describe('screenedFields', () => {
  const related = PERSON_RECORD.listRelatedEntity;
  const record = {
    ...PERSON_RECORD,
    placeOfBirth: 'Vilnius',
    secondCitizenshipCountry: 'PL',
    birthCountry: 'LV',
    permanentResidenceCountry: 'EE',
    listAddress: [{ addressType: 'RESIDENTIAL', city: 'Vilnius', streetAddress: 'Main 1', country: 'LT' }],
    listContact: [{ contactType: 'EMAIL', contactDetails: 'ann@example.com' }],
    listRelatedEntity: [
      { ...related[0], listContact: [{ contactType: 'PHONE', contactDetails: '+370' }] },
      related[1],
      { ...related[2], tradingName: 'Acme', lei: '5493001KJTIIGC8Y1R12' },
    ],
  };

  it('keeps everything screeningSubjects reads: the same subjects from the part as from the record', () => {
    expect(screeningSubjects(screenedFields(record))).toEqual(screeningSubjects(record));
    expect(screeningSubjects(screenedFields(record)).map((s) => s.key)).toEqual([
      'CUSTOMER',
      'listRelatedEntity[0]',
      'listRelatedEntity[2]',
    ]);
  });

  it('leaves out the personal data screening does not read (addresses, contacts, place of birth)', () => {
    const part = screenedFields(record);
    expect(part).not.toHaveProperty('listAddress');
    expect(part).not.toHaveProperty('listContact');
    expect(part).not.toHaveProperty('placeOfBirth');
    expect((part.listRelatedEntity as Record<string, unknown>[])[0]).not.toHaveProperty('listContact');
  });

  it("carries a sealed record's sealed values along: the part decrypts to the same subjects, and only to the picked fields", () => {
    const key = { keyId: 'k1', key: randomBytes(32) };
    const sealed = sealFieldsWith(key, 'DEMO:C-1', record, CustomerPersonalFields);
    const part = decryptFieldsWith(key, 'DEMO:C-1', screenedFields(sealed));
    expect(part.invalidPaths).toEqual([]);
    expect(screeningSubjects(part.record)).toEqual(screeningSubjects(record));
    expect(part.record).not.toHaveProperty('placeOfBirth');
    expect(JSON.stringify(part.record)).not.toMatch(/Vilnius|Main 1|ann@example.com/);
  });
});

describe('screeningSubjects', () => {
  it('takes the person by first and last name and each related entity by position, with qualifiers', () => {
    const subjects = screeningSubjects(PERSON_RECORD);
    expect(subjects).toEqual([
      {
        key: 'CUSTOMER',
        entityType: 'INDIVIDUAL',
        names: ['Ann Example'],
        birthDate: '1980-02-03',
        countries: ['LT'],
        identifiers: [{ type: 'NATIONAL_ID', value: '38002030000' }],
      },
      {
        key: 'listRelatedEntity[0]',
        entityType: 'INDIVIDUAL',
        names: ['Bob Boss'],
        birthDate: '1970',
        countries: ['LV'],
      },
      // The nameless related entity [1] is skipped; the next one keeps its own position.
      {
        key: 'listRelatedEntity[2]',
        entityType: 'ORGANIZATION',
        names: ['Acme Trading LLC'],
        countries: ['EE'],
        identifiers: [{ type: 'REGISTRATION', value: '123456' }],
      },
    ]);
  });

  it('screens an organisation by title and trading name, with its LEI, and never by a birth date', () => {
    const [org] = screeningSubjects({
      entityType: 'ORGANIZATION',
      title: 'Acme',
      tradingName: 'Acme Shop',
      lei: '5493001KJTIIGC8Y1R12',
      birthDate: '1999',
    });
    expect(org).toEqual({
      key: 'CUSTOMER',
      entityType: 'ORGANIZATION',
      names: ['Acme', 'Acme Shop'],
      identifiers: [{ type: 'LEI', value: '5493001KJTIIGC8Y1R12' }],
    });
    expect(subjectQueries(org!).map((q) => q.name)).toEqual(['Acme', 'Acme Shop']);
  });

  it('reports a sanctioned related entity under its own subject key, and the clean customer without hits', () => {
    const snapshot = loadRecordList(
      Buffer.from(JSON.stringify([{ id: 'S-1', name: 'Viktor Sanctionov', entityType: 'INDIVIDUAL' }])),
      LOADED,
      { list: 'SANCTIONS', source: 'TEST' },
    );
    const subjects = screeningSubjects({
      entityType: 'INDIVIDUAL',
      firstName: 'Ann',
      lastName: 'Example',
      listRelatedEntity: [{ entityType: 'INDIVIDUAL', firstName: 'Viktor', lastName: 'Sanctionov' }],
    });
    const result = screenSubjects([buildIndex([snapshot])], subjects, ['SANCTIONS', 'PEP'], {
      SANCTIONS: 0.86,
      PEP: 0.86,
      ADVERSE_MEDIA: 0.86,
      INTERNAL_LIST: 0.86,
    });
    expect(result.PEP).toEqual([]);
    expect(result.SANCTIONS).toEqual([
      expect.objectContaining({ entryId: 'S-1', source: 'TEST', subject: 'listRelatedEntity[0]', score: 1 }),
    ]);
  });
});
