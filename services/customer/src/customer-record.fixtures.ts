import type { CustomerData } from '@crs/contracts';

/**
 * Test fixture shared by the customer service's specs: an imported individual (`DEMO:C-1`, risk level LOW
 * from the import, ACTIVE), with what a spec changes in `overrides`.
 */
export function customerRecord(overrides: Partial<CustomerData> = {}): CustomerData {
  return {
    communicationNumber: 'COMM-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-1',
    entityType: 'INDIVIDUAL',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    firstName: 'Ann',
    lastName: 'Example',
    ...overrides,
  } as CustomerData;
}
