import { admitFor } from './admit-hit';
import { INTERNAL_CUSTOMERS_SOURCE } from './customer-directory';

const internal = (entryId: string) => ({ source: INTERNAL_CUSTOMERS_SOURCE, entryId });

describe('admitFor', () => {
  it('admits every hit of a list file', () => {
    expect(admitFor(['BU1'], 'BU1:C-1')({ source: 'OFAC_SDN', entryId: 'BU1:C-1' })).toBe(true);
  });

  it("admits the internal list of the caller's business units only", () => {
    expect(admitFor(['BU1'])(internal('BU1:C-2'))).toBe(true);
    expect(admitFor(['BU1'])(internal('BU2:C-2'))).toBe(false);
    expect(admitFor('*')(internal('BU2:C-2'))).toBe(true);
  });

  it('never lets a BLACK customer match itself', () => {
    expect(admitFor(['BU1'], 'BU1:C-1')(internal('BU1:C-1'))).toBe(false);
    expect(admitFor('*', 'BU1:C-1')(internal('BU1:C-1'))).toBe(false);
  });
});
