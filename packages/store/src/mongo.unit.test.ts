import { ownerDbName, storeDbNames } from './mongo';

describe('owner databases', () => {
  const settings = { MONGODB_URI: 'mongodb://x', MONGODB_DB: 'crs' };

  it('names each owner its own database by default, and every database of the namespace', () => {
    expect(ownerDbName(settings, 'ingress')).toBe('crs_ingress');
    expect(ownerDbName(settings, 'callback')).toBe('crs_callback');
    expect(ownerDbName(settings, 'keys')).toBe('crs_keys');
    expect(storeDbNames(settings)).toEqual(['crs', 'crs_ingress', 'crs_callback', 'crs_keys']);
  });

  it('keeps everything in MONGODB_DB when owner databases are off', () => {
    const single = { ...settings, MONGODB_OWNER_DATABASES: false };
    expect(ownerDbName(single, 'ingress')).toBe('crs');
    expect(storeDbNames(single)).toEqual(['crs']);
  });
});
