import { buildIndex, loadRecordList } from '@crs/screening-core';
import { screeningSubjects, subjectQueries } from './screening-subjects';
import { screenSubjects } from './screen-customer';

const LOADED = '2026-01-01T00:00:00.000Z';

describe('screeningSubjects', () => {
  it('takes the person by first and last name and each related entity by position, with qualifiers', () => {
    const subjects = screeningSubjects({
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
    });
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
