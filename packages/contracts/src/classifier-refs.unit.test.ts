import { collectClassifierRefs, unknownClassifierError } from './classifier-refs';
import { validateCustomer } from './validators';

describe('collectClassifierRefs', () => {
  const record = {
    communicationNumber: 'N-1',
    businessUnit: 'BU1',
    action: 'CREATE',
    sourceOfRiskLevel: 'EVALUATE',
    entityType: 'INDIVIDUAL',
    customerExtId: 'C-1',
    riskManagementCategory: 'IND',
    firstName: 'A',
    lastName: 'B',
    birthCountry: 'LT',
    citizenshipCountry: 'LV',
    secondCitizenshipCountry: 'EE',
    permanentResidenceCountry: 'PL',
    initialDepositCurrency: 'EUR',
    fieldOfActivity: { student: { higherSchoolCountry: 'DE' }, pension: { pensionCountry: 'FR' } },
    listAddress: [{ addressType: 'HOME', country: 'LT' }, { city: 'no codes here' }],
    listBusinessEntityDocument: [{ documentIssueCountry: 'LT' }],
    listPaymentPurpose: [{ paymentPurposeType: 'SALARY', turnoverDirection: 'IN' }],
    listSourceOfWealth: [{ code: '7' }],
    listPaymentCountry: [{ country: 'US' }],
    listCountryOfActivity: [{ country: 'GB' }],
    listCountryOfTaxPayment: [{ country: 'SE', taxpayerNumber: '1' }],
    listRelatedEntity: [
      {
        entityType: 'ORGANIZATION',
        title: 'T',
        country: 'CY',
        registrationCountry: 'MT',
        listAddress: [{}, { addressType: 'REG', country: 'NL' }],
      },
      {
        entityType: 'INDIVIDUAL',
        firstName: 'X',
        lastName: 'Y',
        birthCountry: 'UA',
        listCountryOfActivity: [{ country: 'MD' }],
        listBusinessEntityDocument: [{ documentIssueCountry: 'RO' }],
      },
    ],
  };

  it('lists every classifier-backed value with its path', () => {
    expect(validateCustomer(record, 'single').ok).toBe(true);
    const refs = collectClassifierRefs(record);
    expect(refs).toEqual(
      expect.arrayContaining([
        { path: 'riskManagementCategory', classifier: 'riskManagementCategory', code: 'IND' },
        { path: 'initialDepositCurrency', classifier: 'currency', code: 'EUR' },
        { path: 'birthCountry', classifier: 'country', code: 'LT' },
        { path: 'citizenshipCountry', classifier: 'country', code: 'LV' },
        { path: 'secondCitizenshipCountry', classifier: 'country', code: 'EE' },
        { path: 'permanentResidenceCountry', classifier: 'country', code: 'PL' },
        { path: 'fieldOfActivity.student.higherSchoolCountry', classifier: 'country', code: 'DE' },
        { path: 'fieldOfActivity.pension.pensionCountry', classifier: 'country', code: 'FR' },
        { path: 'listAddress[0].addressType', classifier: 'addressType', code: 'HOME' },
        { path: 'listAddress[0].country', classifier: 'country', code: 'LT' },
        { path: 'listBusinessEntityDocument[0].documentIssueCountry', classifier: 'country', code: 'LT' },
        {
          path: 'listPaymentPurpose[0].paymentPurposeType',
          classifier: 'paymentPurposeType',
          code: 'SALARY',
        },
        { path: 'listSourceOfWealth[0].code', classifier: 'sourceOfWealth', code: '7' },
        { path: 'listPaymentCountry[0].country', classifier: 'country', code: 'US' },
        { path: 'listCountryOfActivity[0].country', classifier: 'country', code: 'GB' },
        { path: 'listCountryOfTaxPayment[0].country', classifier: 'country', code: 'SE' },
        { path: 'listRelatedEntity[0].country', classifier: 'country', code: 'CY' },
        { path: 'listRelatedEntity[0].registrationCountry', classifier: 'country', code: 'MT' },
        { path: 'listRelatedEntity[0].listAddress[1].addressType', classifier: 'addressType', code: 'REG' },
        { path: 'listRelatedEntity[0].listAddress[1].country', classifier: 'country', code: 'NL' },
        { path: 'listRelatedEntity[1].birthCountry', classifier: 'country', code: 'UA' },
        { path: 'listRelatedEntity[1].listCountryOfActivity[0].country', classifier: 'country', code: 'MD' },
        {
          path: 'listRelatedEntity[1].listBusinessEntityDocument[0].documentIssueCountry',
          classifier: 'country',
          code: 'RO',
        },
      ]),
    );
    expect(refs).toHaveLength(23);
  });

  it('covers organization fields and simplified records', () => {
    expect(
      collectClassifierRefs({
        entityType: 'ORGANIZATION',
        registrationCountry: 'LT',
        riskManagementCategory: 'ORG',
      }),
    ).toEqual([
      { path: 'riskManagementCategory', classifier: 'riskManagementCategory', code: 'ORG' },
      { path: 'registrationCountry', classifier: 'country', code: 'LT' },
    ]);
    expect(collectClassifierRefs({})).toEqual([]);
  });

  it('builds a field-locating K-code for an unknown value', () => {
    expect(
      unknownClassifierError({
        path: 'listRelatedEntity[0].listAddress[1].addressType',
        classifier: 'addressType',
        code: 'NOPE',
      }),
    ).toEqual({
      path: 'listRelatedEntity[0].listAddress[1].addressType',
      code: 'K003.listRelatedEntity.listAddress.addressType.UNKNOWN_CODE',
      message:
        'listRelatedEntity[0].listAddress[1].addressType is not a known addressType code for this business unit',
    });
    expect(
      unknownClassifierError({ path: 'initialDepositCurrency', classifier: 'currency', code: 'XXX' }).code,
    ).toBe('K002.initialDepositCurrency.UNKNOWN_CODE');
  });
});
