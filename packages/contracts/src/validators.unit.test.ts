import {
  createValidators,
  validateBatchRequest,
  validateCustomer,
  validateSimplifiedCustomer,
  type ValidationResult,
} from './validators';
import { summarizeErrors, type FieldError } from './field-errors';
import { SchemaIds } from './generated/schemas.generated';

const validators = createValidators();

function individual(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    communicationNumber: 'COMM-1',
    requester: 'core-banking',
    businessUnit: 'BU1',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: 'CUST-1',
    firstName: 'Ada',
    lastName: 'Lovelace',
    birthDate: '1815-12-10',
    birthCountry: 'GB',
    citizenshipCountry: 'GB',
    nationalCode: 'X123',
    applicationDate: '2024-02-29',
    initialDepositAmount: '1500.50',
    initialDepositCurrency: 'EUR',
    fieldOfActivity: {
      student: { isStudent: false, higherSchoolCountry: 'FR' },
      employment: { isEmployee: true },
    },
    listContact: [{ contactType: 'EMAIL', contactDetails: 'ada@example.org', useForCommunication: true }],
    listAddress: [{ addressType: 'HOME', country: 'GB', city: 'London' }],
    listPaymentPurpose: [{ paymentPurposeType: 'SALARY', turnoverDirection: 'IN' }],
    listSourceOfWealth: [{ code: '1', amount: 100 }],
    listAdditionalValues: [
      { code: 'VIP', datatype: 'BOOLEAN', value: true },
      { code: 'NOTE', datatype: 'STRING', value: 'text' },
    ],
    listRelatedEntity: [
      { entityType: 'ORGANIZATION', title: 'Acme Ltd', registrationCountry: 'DE', share: 100 },
      {
        entityType: 'INDIVIDUAL',
        firstName: 'Charles',
        lastName: 'Babbage',
        listAddress: [{ addressType: 'HOME', country: 'GB' }],
      },
    ],
    ...overrides,
  };
}

function organization(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    communicationNumber: 'COMM-2',
    businessUnit: 'BU1',
    action: 'UPDATE',
    sourceOfRiskLevel: 'EVALUATE',
    entityType: 'ORGANIZATION',
    customerExtId: 'ORG-1',
    title: 'Acme Ltd',
    registrationCountry: 'DE',
    numberOfEmployees: 12,
    companyAssetValue: 1000000,
    initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
    ...overrides,
  };
}

function errorsOf<T>(result: ValidationResult<T>): FieldError[] {
  if (result.ok) throw new Error('expected a validation failure');
  return result.errors;
}
const codes = <T>(result: ValidationResult<T>) => errorsOf(result).map((error) => error.code);
const paths = <T>(result: ValidationResult<T>) => errorsOf(result).map((error) => error.path);
const without = (record: Record<string, unknown>, ...keys: string[]) => {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
};

describe('validateCustomer: valid records', () => {
  it('accepts a full individual and a full organization', () => {
    expect(validateCustomer(individual(), 'single')).toEqual({ ok: true, value: individual() });
    expect(validateCustomer(organization(), 'single').ok).toBe(true);
  });

  it('fills the batch default sourceOfRiskLevel IMPORT without touching the input', () => {
    const body = without(individual(), 'sourceOfRiskLevel');
    const result = validateCustomer(body, 'batch');
    expect(result).toEqual({ ok: true, value: { ...body, sourceOfRiskLevel: 'IMPORT' } });
    expect(body).not.toHaveProperty('sourceOfRiskLevel');
  });
});

describe('validateCustomer: always required fields', () => {
  it.each([
    'communicationNumber',
    'customerExtId',
    'entityType',
    'action',
    'sourceOfRiskLevel',
    'businessUnit',
  ])('requires %s', (field) => {
    const result = validateCustomer(without(individual(), field), 'single');
    expect(errorsOf(result)).toContainEqual({
      path: field,
      code: `V001.${field}.REQUIRED`,
      message: `${field} is required`,
    });
  });

  it('does not require sourceOfRiskLevel in a batch', () => {
    expect(validateCustomer(without(individual(), 'sourceOfRiskLevel'), 'batch').ok).toBe(true);
  });
});

describe('validateCustomer: conditional rules', () => {
  it('rule 1: INDIVIDUAL requires firstName and lastName', () => {
    const result = validateCustomer(without(individual(), 'firstName', 'lastName'), 'single');
    expect(errorsOf(result)).toEqual([
      {
        path: 'firstName',
        code: 'V001.firstName.REQUIRED',
        message: 'firstName is required for entityType INDIVIDUAL',
      },
      {
        path: 'lastName',
        code: 'V001.lastName.REQUIRED',
        message: 'lastName is required for entityType INDIVIDUAL',
      },
    ]);
  });

  it('rule 2: ORGANIZATION requires title', () => {
    expect(codes(validateCustomer(without(organization(), 'title'), 'single'))).toEqual([
      'V001.title.REQUIRED',
    ]);
    expect(validateCustomer(without(organization(), 'tradingName'), 'single').ok).toBe(true);
  });

  it('rule 3: organization fields are rejected for an individual', () => {
    const result = validateCustomer(
      individual({ title: 'Acme', numberOfEmployees: 3, licenseDescription: 'x' }),
      'single',
    );
    expect(errorsOf(result)).toEqual([
      {
        path: 'title',
        code: 'V001.title.NOT_ALLOWED_FOR_INDIVIDUAL',
        message: 'title is not allowed for entityType INDIVIDUAL',
      },
      {
        path: 'numberOfEmployees',
        code: 'V001.numberOfEmployees.NOT_ALLOWED_FOR_INDIVIDUAL',
        message: 'numberOfEmployees is not allowed for entityType INDIVIDUAL',
      },
      {
        path: 'licenseDescription',
        code: 'V001.licenseDescription.NOT_ALLOWED_FOR_INDIVIDUAL',
        message: 'licenseDescription is not allowed for entityType INDIVIDUAL',
      },
    ]);
  });

  it('rule 3: individual fields are rejected for an organization', () => {
    const result = validateCustomer(
      organization({ firstName: 'A', birthDate: '2000-01-01', fieldOfActivity: {} }),
      'single',
    );
    expect(codes(result)).toEqual([
      'V001.firstName.NOT_ALLOWED_FOR_ORGANIZATION',
      'V001.birthDate.NOT_ALLOWED_FOR_ORGANIZATION',
      'V001.fieldOfActivity.NOT_ALLOWED_FOR_ORGANIZATION',
    ]);
  });

  it('rule 3 applies inside related entities by their own entityType', () => {
    const result = validateCustomer(
      organization({
        listRelatedEntity: [
          { entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B' },
          { entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B', title: 'Dr', legalForm: 'LLC' },
          { entityType: 'ORGANIZATION', title: 'T', birthDate: '2000-01-01' },
        ],
      }),
      'single',
    );
    expect(errorsOf(result)).toEqual([
      {
        path: 'listRelatedEntity[1].title',
        code: 'V001.listRelatedEntity.title.NOT_ALLOWED_FOR_INDIVIDUAL',
        message: 'listRelatedEntity[1].title is not allowed for entityType INDIVIDUAL',
      },
      {
        path: 'listRelatedEntity[1].legalForm',
        code: 'V001.listRelatedEntity.legalForm.NOT_ALLOWED_FOR_INDIVIDUAL',
        message: 'listRelatedEntity[1].legalForm is not allowed for entityType INDIVIDUAL',
      },
      {
        path: 'listRelatedEntity[2].birthDate',
        code: 'V001.listRelatedEntity.birthDate.NOT_ALLOWED_FOR_ORGANIZATION',
        message: 'listRelatedEntity[2].birthDate is not allowed for entityType ORGANIZATION',
      },
    ]);
  });

  it('related entities need entityType and the names of their type', () => {
    const result = validateCustomer(
      organization({
        listRelatedEntity: [
          { share: 5 },
          { entityType: 'INDIVIDUAL', firstName: 'A' },
          { entityType: 'ORGANIZATION' },
        ],
      }),
      'single',
    );
    expect(codes(result)).toEqual([
      'V001.listRelatedEntity.entityType.REQUIRED',
      'V001.listRelatedEntity.lastName.REQUIRED',
      'V001.listRelatedEntity.title.REQUIRED',
    ]);
    expect(paths(result)).toEqual([
      'listRelatedEntity[0].entityType',
      'listRelatedEntity[1].lastName',
      'listRelatedEntity[2].title',
    ]);
  });

  it('rule 4: closingDate is required when CLOSED and rejected otherwise', () => {
    expect(codes(validateCustomer(individual({ customerStatus: 'CLOSED' }), 'single'))).toEqual([
      'V001.closingDate.REQUIRED',
    ]);
    expect(
      validateCustomer(individual({ customerStatus: 'CLOSED', closingDate: '2024-12-31' }), 'single').ok,
    ).toBe(true);
    for (const customerStatus of ['PENDING', 'ACTIVE', 'REJECTED', 'SUSPENDED']) {
      expect(
        codes(validateCustomer(individual({ customerStatus, closingDate: '2024-12-31' }), 'single')),
      ).toEqual(['V001.closingDate.NOT_ALLOWED_UNLESS_CLOSED']);
    }
    expect(codes(validateCustomer(organization({ closingDate: '2024-12-31' }), 'single'))).toEqual([
      'V001.closingDate.NOT_ALLOWED_UNLESS_CLOSED',
    ]);
  });

  it('rule 6: IMPORT requires riskLevel and customerStatus', () => {
    const result = validateCustomer(without(individual(), 'riskLevel', 'customerStatus'), 'single');
    expect(errorsOf(result)).toEqual([
      {
        path: 'riskLevel',
        code: 'V001.riskLevel.REQUIRED',
        message: 'riskLevel is required when sourceOfRiskLevel is IMPORT',
      },
      {
        path: 'customerStatus',
        code: 'V001.customerStatus.REQUIRED',
        message: 'customerStatus is required when sourceOfRiskLevel is IMPORT',
      },
    ]);
  });

  it('rule 6: EVALUATE must not carry riskLevel but may omit customerStatus', () => {
    expect(codes(validateCustomer(organization({ riskLevel: 'HIGH' }), 'single'))).toEqual([
      'V001.riskLevel.NOT_ALLOWED_WITH_EVALUATE',
    ]);
    expect(validateCustomer(organization({ customerStatus: 'PENDING' }), 'single').ok).toBe(true);
  });

  it('batch items default to IMPORT and so need riskLevel and customerStatus', () => {
    const result = validateCustomer(
      without(individual(), 'sourceOfRiskLevel', 'riskLevel', 'customerStatus'),
      'batch',
    );
    expect(codes(result)).toEqual(['V001.riskLevel.REQUIRED', 'V001.customerStatus.REQUIRED']);
  });

  it('batch items reject EVALUATE and initializeScreeningProcesses', () => {
    const result = validateCustomer(
      individual({ sourceOfRiskLevel: 'EVALUATE', initializeScreeningProcesses: ['PEP'] }),
      'batch',
    );
    expect(codes(result)).toEqual([
      'V001.sourceOfRiskLevel.NOT_ALLOWED_IN_BATCH',
      'V001.initializeScreeningProcesses.NOT_ALLOWED_IN_BATCH',
    ]);
  });

  it('additional values: the value type follows datatype', () => {
    const result = validateCustomer(
      individual({
        listAdditionalValues: [
          { code: 'A', datatype: 'BOOLEAN', value: 'true' },
          { code: 'B', datatype: 'STRING', value: false },
          { code: 'C', datatype: 'NUMBER' },
        ],
      }),
      'single',
    );
    expect(codes(result)).toEqual([
      'V001.listAdditionalValues.value.INVALID_TYPE',
      'V001.listAdditionalValues.value.INVALID_TYPE',
      'V001.listAdditionalValues.datatype.INVALID_VALUE',
    ]);
    expect(paths(result)).toEqual([
      'listAdditionalValues[0].value',
      'listAdditionalValues[1].value',
      'listAdditionalValues[2].datatype',
    ]);
  });
});

describe('validateCustomer: enumerations', () => {
  it.each([
    ['action', 'DELETE'],
    ['sourceOfRiskLevel', 'GUESS'],
    ['riskLevel', 'VERY_HIGH'],
    ['customerStatus', 'OPEN'],
    ['entityType', 'TRUST'],
    ['listPurpose', 'GREY'],
  ])('rejects %s %s with the allowed values in the message', (field, value) => {
    const [error] = errorsOf(validateCustomer(individual({ [field]: value }), 'single')).filter(
      (e) => e.path === field,
    );
    expect(error?.code).toBe(`V001.${field}.INVALID_VALUE`);
    expect(error?.message).toMatch(/must be one of/);
    expect(error?.message).not.toContain(value);
  });

  it('checks screening processes, turnover directions and related entity types', () => {
    const result = validateCustomer(
      organization({
        initializeScreeningProcesses: ['SANCTIONS', 'SANCTIONS', 'WATCHLIST'],
        listPaymentCountry: [{ country: 'DE', turnoverDirection: 'BOTH' }],
        listRelatedEntity: [{ entityType: 'TRUST' }],
      }),
      'single',
    );
    expect(paths(result)).toEqual(
      expect.arrayContaining([
        'initializeScreeningProcesses[2]',
        'initializeScreeningProcesses',
        'listPaymentCountry[0].turnoverDirection',
        'listRelatedEntity[0].entityType',
      ]),
    );
    expect(codes(result)).toEqual(
      expect.arrayContaining([
        'V001.initializeScreeningProcesses.DUPLICATE_ITEM',
        'V001.initializeScreeningProcesses.INVALID_VALUE',
      ]),
    );
  });
});

describe('validateCustomer: maximum lengths at the boundary', () => {
  const cases: Array<[string, number, (value: string) => Record<string, unknown>]> = [
    ['communicationNumber', 255, (v) => individual({ communicationNumber: v })],
    ['requester', 100, (v) => individual({ requester: v })],
    ['nationalCode', 100, (v) => individual({ nationalCode: v })],
    ['initialDepositSource', 200, (v) => individual({ initialDepositSource: v })],
    ['initialDepositBank', 200, (v) => individual({ initialDepositBank: v })],
    ['initialDepositAccount', 200, (v) => individual({ initialDepositAccount: v })],
    ['activityDescription', 32768, (v) => individual({ activityDescription: v })],
    [
      'activityInRestrictedRegionDescription',
      32768,
      (v) => individual({ activityInRestrictedRegionDescription: v }),
    ],
    ['regionOfActivityDescription', 32768, (v) => individual({ regionOfActivityDescription: v })],
    ['incomeSourceDescription', 32768, (v) => individual({ incomeSourceDescription: v })],
    ['licenseDescription', 32768, (v) => organization({ licenseDescription: v })],
    [
      'thirdPartyServicesUsedDescription',
      32768,
      (v) => organization({ thirdPartyServicesUsedDescription: v }),
    ],
    [
      'organizationalStructureDescription',
      32768,
      (v) => organization({ organizationalStructureDescription: v }),
    ],
    ['businessUnit', 255, (v) => individual({ businessUnit: v })],
    ['customerExtId', 255, (v) => individual({ customerExtId: v })],
    ['firstName', 255, (v) => individual({ firstName: v })],
    ['title', 255, (v) => organization({ title: v })],
    ['riskManagementCategory', 100, (v) => individual({ riskManagementCategory: v })],
    ['listAddress[0].zipCode', 50, (v) => individual({ listAddress: [{ zipCode: v }] })],
    [
      'listRelatedEntity[0].nationalCode',
      100,
      (v) =>
        organization({ listRelatedEntity: [{ entityType: 'ORGANIZATION', title: 'T', nationalCode: v }] }),
    ],
    [
      'listRelatedEntity[0].activityDescription',
      32768,
      (v) =>
        organization({
          listRelatedEntity: [{ entityType: 'ORGANIZATION', title: 'T', activityDescription: v }],
        }),
    ],
  ];

  it.each(cases)('%s accepts %i characters and rejects one more', (path, limit, build) => {
    expect(validateCustomer(build('a'.repeat(limit)), 'single').ok).toBe(true);
    const errors = errorsOf(validateCustomer(build('a'.repeat(limit + 1)), 'single'));
    expect(errors).toEqual([
      {
        path,
        code: `V001.${path.replace(/\[\d+\]/g, '')}.TOO_LONG`,
        message: `${path} must be at most ${limit} characters long`,
      },
    ]);
  });

  it('limits every list to 100 items', () => {
    const contacts = Array.from({ length: 100 }, () => ({ contactType: 'EMAIL' }));
    expect(validateCustomer(individual({ listContact: contacts }), 'single').ok).toBe(true);
    expect(codes(validateCustomer(individual({ listContact: [...contacts, {}] }), 'single'))).toEqual([
      'V001.listContact.TOO_MANY_ITEMS',
    ]);
  });
});

describe('validateCustomer: dates', () => {
  it.each(['2024-02-29', '2000-02-29', '1999-12-31'])('accepts %s', (date) => {
    expect(validateCustomer(individual({ birthDate: date }), 'single').ok).toBe(true);
  });

  it.each([
    '2023-02-30',
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-04-31',
    '2024-1-01',
    '01.02.2024',
    '2024-01-01T00:00:00Z',
    '',
  ])('rejects %j', (date) => {
    expect(errorsOf(validateCustomer(individual({ birthDate: date }), 'single'))).toEqual([
      {
        path: 'birthDate',
        code: 'V001.birthDate.INVALID_DATE',
        message: 'birthDate must be a calendar date in the form YYYY-MM-DD',
      },
    ]);
  });

  it('checks dates in nested lists', () => {
    const result = validateCustomer(
      individual({ listBusinessEntityDocument: [{}, { documentExpiryDate: '2023-02-30' }] }),
      'single',
    );
    expect(paths(result)).toEqual(['listBusinessEntityDocument[1].documentExpiryDate']);
  });
});

describe('validateCustomer: numbers', () => {
  it('accepts initialDepositAmount as a number or a numeric string only', () => {
    expect(validateCustomer(individual({ initialDepositAmount: 10.5 }), 'single').ok).toBe(true);
    expect(validateCustomer(individual({ initialDepositAmount: '10' }), 'single').ok).toBe(true);
    expect(codes(validateCustomer(individual({ initialDepositAmount: '10,5' }), 'single'))).toEqual([
      'V001.initialDepositAmount.INVALID_NUMBER',
    ]);
    expect(codes(validateCustomer(individual({ initialDepositAmount: -1 }), 'single'))).toEqual([
      'V001.initialDepositAmount.OUT_OF_RANGE',
    ]);
    expect(codes(validateCustomer(individual({ initialDepositAmount: true }), 'single'))).toEqual([
      'V001.initialDepositAmount.INVALID_TYPE',
    ]);
  });

  it('bounds percentages to 0..100 and rejects non-finite amounts', () => {
    const related = (share: number) =>
      organization({ listRelatedEntity: [{ entityType: 'ORGANIZATION', title: 'T', share }] });
    expect(validateCustomer(related(100), 'single').ok).toBe(true);
    expect(codes(validateCustomer(related(100.01), 'single'))).toEqual([
      'V001.listRelatedEntity.share.OUT_OF_RANGE',
    ]);
    expect(
      codes(validateCustomer(individual({ listActivity: [{ incomePercentage: -1 }] }), 'single')),
    ).toEqual(['V001.listActivity.incomePercentage.OUT_OF_RANGE']);
    expect(codes(validateCustomer(organization({ companyAssetValue: 1e16 }), 'single'))).toEqual([
      'V001.companyAssetValue.OUT_OF_RANGE',
    ]);
    // JSON.parse turns 1e400 into Infinity, which is not a JSON number.
    const huge = JSON.parse('{"companyAssetValue": 1e400}') as { companyAssetValue: number };
    expect(codes(validateCustomer(organization(huge), 'single'))).toEqual([
      'V001.companyAssetValue.INVALID_TYPE',
    ]);
  });

  it('requires integers where counts are expected', () => {
    expect(codes(validateCustomer(organization({ numberOfEmployees: 1.5 }), 'single'))).toEqual([
      'V001.numberOfEmployees.INVALID_TYPE',
    ]);
  });
});

describe('validateCustomer: unknown fields and unsafe content', () => {
  it.each(['__proto__', 'constructor', '$where', 'a.b', 'unknownField'])(
    'rejects the top-level key %s',
    (key) => {
      const body = JSON.parse(`{"${key}": {"$ne": 1}}`) as Record<string, unknown>;
      const errors = errorsOf(validateCustomer({ ...individual(), ...body }, 'single'));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.code).toBe('V001.UNKNOWN_FIELD');
      expect(errors[0]?.message).not.toContain('$ne');
    },
  );

  it('rejects an own __proto__ key as parsed from JSON and quotes unusual keys in paths', () => {
    const body = JSON.parse(`{"listAddress":[{"__proto__":{"x":1},"a.b":1}]}`) as Record<string, unknown>;
    const errors = errorsOf(validateCustomer(individual(body), 'single'));
    expect(errors).toEqual([
      {
        path: 'listAddress[0].__proto__',
        code: 'V001.listAddress.UNKNOWN_FIELD',
        message: 'listAddress[0].__proto__ is not a known field',
      },
      {
        path: 'listAddress[0]["a.b"]',
        code: 'V001.listAddress.UNKNOWN_FIELD',
        message: 'listAddress[0]["a.b"] is not a known field',
      },
    ]);
  });

  it('rejects unknown fields deep inside related entities and sub-records', () => {
    const result = validateCustomer(
      individual({
        fieldOfActivity: { pension: { isPensioner: true, pensionAmount: 1 } },
        listRelatedEntity: [
          {
            entityType: 'INDIVIDUAL',
            firstName: 'A',
            lastName: 'B',
            listAddress: [{}, {}, { addressTyp: 'X' }],
          },
        ],
      }),
      'single',
    );
    // Errors come in schema order, which is stable.
    expect(errorsOf(result)).toEqual([
      {
        path: 'listRelatedEntity[0].listAddress[2].addressTyp',
        code: 'V001.listRelatedEntity.listAddress.UNKNOWN_FIELD',
        message: 'listRelatedEntity[0].listAddress[2].addressTyp is not a known field',
      },
      {
        path: 'fieldOfActivity.pension.pensionAmount',
        code: 'V001.fieldOfActivity.pension.UNKNOWN_FIELD',
        message: 'fieldOfActivity.pension.pensionAmount is not a known field',
      },
    ]);
  });

  it('rejects NUL characters without echoing the value', () => {
    const secret = 'Ada\u0000Secret';
    const errors = errorsOf(
      validateCustomer(individual({ firstName: secret, listAddress: [{ city: 'x\u0000' }] }), 'single'),
    );
    expect(errors.map((e) => e.code).sort()).toEqual([
      'V001.firstName.FORBIDDEN_CHARACTER',
      'V001.listAddress.city.FORBIDDEN_CHARACTER',
    ]);
    expect(JSON.stringify(errors)).not.toContain('Secret');
  });

  it('never echoes submitted values in messages', () => {
    const errors = errorsOf(
      validateCustomer(
        individual({ firstName: 42, birthDate: 'PERSONAL-1990', riskLevel: 'PERSONAL' }),
        'single',
      ),
    );
    expect(JSON.stringify(errors)).not.toMatch(/PERSONAL|42/);
  });

  it('reports one error per field, the most specific one', () => {
    // Not CLOSED and not a date: the rule violation is what matters, the date format is noise.
    const errors = errorsOf(validateCustomer(individual({ closingDate: '2023-02-30' }), 'single'));
    expect(errors).toEqual([
      {
        path: 'closingDate',
        code: 'V001.closingDate.NOT_ALLOWED_UNLESS_CLOSED',
        message: 'closingDate is only allowed when customerStatus is CLOSED',
      },
    ]);
  });

  it('rejects bodies that are not objects', () => {
    expect(errorsOf(validateCustomer([], 'single'))).toEqual([
      { path: '', code: 'V001.INVALID_TYPE', message: 'The body must be of type object' },
    ]);
    expect(codes(validateCustomer(null, 'batch'))).toEqual(['V001.INVALID_TYPE']);
  });
});

describe('validateSimplifiedCustomer', () => {
  const simplified = (overrides: Record<string, unknown> = {}) => ({
    communicationNumber: 'C-9',
    requester: 'web',
    businessUnit: 'BU1',
    riskManagementCategory: 'IND_OCCASIONAL',
    entityType: 'INDIVIDUAL',
    customerExtId: 'S-1',
    firstName: 'A',
    lastName: 'B',
    ...overrides,
  });

  it('accepts individuals and organizations', () => {
    expect(validateSimplifiedCustomer(simplified()).ok).toBe(true);
    expect(
      validateSimplifiedCustomer(
        simplified({ entityType: 'ORGANIZATION', firstName: undefined, lastName: undefined, title: 'T' }),
      ).ok,
    ).toBe(true);
  });

  it('applies the entity rules and rejects fields outside the simplified record', () => {
    const result = validateSimplifiedCustomer(
      simplified({ lastName: undefined, title: 'T', action: 'CREATE', riskManagementCategory: undefined }),
    );
    expect(codes(result).sort()).toEqual(
      [
        'V001.riskManagementCategory.REQUIRED',
        'V001.UNKNOWN_FIELD',
        'V001.lastName.REQUIRED',
        'V001.title.NOT_ALLOWED_FOR_INDIVIDUAL',
      ].sort(),
    );
    expect(paths(result)).toContain('action');
  });
});

describe('validateBatchRequest', () => {
  it('accepts an object with an array customers', () => {
    expect(validateBatchRequest({ customers: [1, 2] }, { maxItems: 2 })).toEqual({
      ok: true,
      value: { customers: [1, 2] },
    });
  });

  it('reports the shape problems', () => {
    expect(codes(validateBatchRequest({ customer: [] }, { maxItems: 5 }))).toEqual([
      'V001.UNKNOWN_FIELD',
      'V001.customers.REQUIRED',
    ]);
    expect(codes(validateBatchRequest({ customers: {} }, { maxItems: 5 }))).toEqual([
      'V001.customers.INVALID_TYPE',
    ]);
    expect(codes(validateBatchRequest('x', { maxItems: 5 }))).toEqual(['V001.INVALID_TYPE']);
  });

  it('rejects more items than allowed with BATCH_TOO_LARGE', () => {
    expect(errorsOf(validateBatchRequest({ customers: [1, 2, 3] }, { maxItems: 2 }))).toEqual([
      { path: 'customers', code: 'BATCH_TOO_LARGE', message: 'customers must have at most 2 items' },
    ]);
  });
});

describe('summarizeErrors', () => {
  it('uses the first code and lists the messages with their list indexes', () => {
    const errors = errorsOf(
      validateCustomer(
        individual({ listAddress: [{}, { country: 'x'.repeat(101) }], firstName: undefined }),
        'single',
      ),
    );
    expect(summarizeErrors(errors)).toEqual({
      errorCode: 'V001.firstName.REQUIRED',
      errorDescription:
        'Validation failed: firstName is required for entityType INDIVIDUAL; listAddress[1].country must be at most 100 characters long',
    });
  });

  it('caps the description at ten problems', () => {
    const errors = Array.from({ length: 12 }, (_, i) => ({
      path: `f${i}`,
      code: `V001.f${i}.REQUIRED`,
      message: `f${i} is required`,
    }));
    expect(summarizeErrors(errors).errorDescription).toMatch(/f9 is required; and 2 more$/);
    expect(summarizeErrors([])).toEqual({ errorCode: 'V001', errorDescription: 'Validation failed' });
  });
});

describe('createValidators', () => {
  it('compiles every schema, events included, and looks them up by $id', () => {
    for (const id of Object.values(SchemaIds)) expect(typeof validators.getValidator(id)).toBe('function');
    expect(() => validators.getValidator('https://schemas.crs.local/http/nope.v1.schema.json')).toThrow(
      expect.objectContaining({ code: 'SCHEMA_UNKNOWN' }),
    );
  });

  it('validates 1000 full customers with the compiled schema', () => {
    const batch = Array.from({ length: 1000 }, (_, i) =>
      individual({ customerExtId: `C-${i}`, communicationNumber: `N-${i}` }),
    );
    expect(batch.every((record) => validators.validateCustomer(record, 'single').ok)).toBe(true);
  });
});
