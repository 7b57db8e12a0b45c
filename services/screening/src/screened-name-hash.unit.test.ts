import { screenedNameHash } from './screened-name-hash';

describe('screenedNameHash', () => {
  it('is the sha256 of the sorted words: recorded decisions keep matching the names they were made on', () => {
    // sha256('ann example'): a change here would end every recorded FALSE_POSITIVE suppression.
    const annExample = 'b1b813968634e0de2d9d7cdf5d602ddbeafbb836b0341bb4849188e846dd362e';
    expect(screenedNameHash(['example', 'ann'])).toBe(screenedNameHash(['ann', 'example']));
    expect(screenedNameHash(['ann', 'example'])).toBe(annExample);
  });
});
