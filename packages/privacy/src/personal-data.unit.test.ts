import { FieldPathInvalidError } from './errors';
import { MemoryDataKeySource } from './memory-data-key-source';
import { PersonalDataCipher, containsEncrypted, encryptFieldsWith } from './personal-data';
import { streamKey } from '@crs/contracts';
import { CustomerPersonalFields, ScreeningHitPersonalFields } from './personal-fields';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getValidator } from '@crs/contracts';
import {
  ENCRYPTED_VALUE_PATTERN,
  SEALED_FIELD,
  SEALED_PLACEHOLDER_PATTERN,
  parseEncryptedValue,
} from './encrypted-value';
import { keyIdOf } from './key-id';

const STREAM = streamKey('BU1', 'C-1');

function customer() {
  return {
    businessUnit: 'BU1',
    customerExtId: 'C-1',
    entityType: 'INDIVIDUAL',
    firstName: 'Anna',
    lastName: 'Kowalczyk',
    birthDate: '1980-02-29',
    placeOfBirth: 'Gdańsk',
    nationalCode: '80022912345',
    citizenshipCountry: 'PL',
    isPEP: false,
    listContact: [{ contactType: 'EMAIL', contactDetails: 'anna@example.org', useForCommunication: true }],
    listAddress: [
      { addressType: 'ACTUAL', country: 'PL', city: 'Gdańsk', streetAddress: 'Długa 1', zipCode: '80-001' },
    ],
    listRelatedEntity: [
      {
        entityType: 'INDIVIDUAL',
        relationType: 'DIRECTOR',
        extId: 'R-1',
        firstName: 'Jan',
        lastName: 'Nowak',
        birthDate: '1975-05-05',
        nationalCode: '75050554321',
        country: 'PL',
      },
      { entityType: 'ORGANIZATION', relationType: 'HOST', extId: 'R-2', title: 'Holding SA' },
    ],
  };
}

describe('encryptFields / decryptFields', () => {
  it('never changes its input: the containers on the way to a personal value are copies', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const plain = customer();
    const before = structuredClone(plain);
    const encrypted = await cipher.encryptFields(STREAM, plain, CustomerPersonalFields);
    expect(plain).toEqual(before);
    expect(encrypted.listAddress).not.toBe(plain.listAddress);
    expect(encrypted.listAddress[0]).not.toBe(plain.listAddress[0]);
    expect(encrypted.listRelatedEntity[0]).not.toBe(plain.listRelatedEntity[0]);
    // Parts without personal values are shared with the input, unchanged.
    expect(encrypted.listAddress[0]!.country).toBe('PL');
    expect(encrypted.listRelatedEntity[1]).toEqual(plain.listRelatedEntity[1]);
    const decrypted = await cipher.decryptFields(STREAM, encrypted);
    expect(decrypted.record).toEqual(before);
  });

  it('encrypts every personal field and nothing else, and decrypts back to the same record', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const plain = customer();
    const encrypted = await cipher.encryptFields(STREAM, plain, CustomerPersonalFields);
    // Quoted: a whole JSON string value cannot occur inside a base64url ciphertext by chance.
    const text = JSON.stringify(encrypted);
    for (const secret of ['Anna', 'Kowalczyk', '1980-02-29', '80022912345', 'anna@example.org', 'Długa 1']) {
      expect(text).not.toContain(JSON.stringify(secret));
    }
    for (const secret of ['Jan', 'Nowak', '1975-05-05', '75050554321']) {
      expect(text).not.toContain(JSON.stringify(secret));
    }
    // Routing keys, country codes, flags and organisations stay readable.
    expect(encrypted).toMatchObject({
      customerExtId: 'C-1',
      citizenshipCountry: 'PL',
      isPEP: false,
      listRelatedEntity: [
        { extId: 'R-1', country: 'PL' },
        { extId: 'R-2', title: 'Holding SA' },
      ],
    });
    expect(plain).toEqual(customer());

    const decrypted = await cipher.decryptFields(STREAM, encrypted);
    expect(decrypted).toEqual({ record: plain, erased: false, erasedPaths: [], invalidPaths: [] });
  });

  it('leaves values that are already encrypted alone, so encrypting twice changes nothing', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const once = await cipher.encryptFields(STREAM, customer(), CustomerPersonalFields);
    const twice = await cipher.encryptFields(STREAM, once, CustomerPersonalFields);
    expect(twice).toEqual(once);
    expect((await cipher.decryptFields(STREAM, twice)).record).toEqual(customer());
  });

  it('shows erased fields as null with erased: true once the key is erased, never garbage or an exception', async () => {
    const keys = new MemoryDataKeySource();
    const cipher = new PersonalDataCipher(keys);
    const encrypted = await cipher.encryptFields(STREAM, customer(), CustomerPersonalFields);
    await keys.erase(STREAM);

    const result = await cipher.decryptFields(STREAM, encrypted);
    expect(result.erased).toBe(true);
    expect(result.invalidPaths).toEqual([]);
    expect(result.record).toMatchObject({
      customerExtId: 'C-1',
      firstName: null,
      lastName: null,
      birthDate: null,
      nationalCode: null,
      citizenshipCountry: 'PL',
      listContact: [{ contactType: 'EMAIL', contactDetails: null }],
      listRelatedEntity: [{ extId: 'R-1', firstName: null, nationalCode: null }, { title: 'Holding SA' }],
    });
    expect(result.erasedPaths).toEqual(
      expect.arrayContaining(['firstName', 'listAddress[].city', 'listRelatedEntity[].nationalCode']),
    );

    // A new relationship after the erasure gets a new key; the old values stay erased.
    const again = await cipher.encryptFields(STREAM, { firstName: 'Anna' }, ['firstName']);
    expect((await cipher.decryptFields(STREAM, again)).record).toEqual({ firstName: 'Anna' });
    expect((await cipher.decryptFields(STREAM, encrypted)).record.firstName).toBeNull();
  });

  it('refuses a value moved to another field or another customer: null, reported, no plaintext', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const encrypted = await cipher.encryptFields(STREAM, customer(), CustomerPersonalFields);
    const swapped = { ...encrypted, lastName: encrypted.nationalCode };
    const result = await cipher.decryptFields(STREAM, swapped);
    expect(result.record.lastName).toBeNull();
    expect(result.invalidPaths).toEqual(['lastName']);

    const other = streamKey('BU1', 'C-2');
    await cipher.encryptFields(other, { firstName: 'Eve' }, ['firstName']);
    const stolen = await cipher.decryptFields(other, { firstName: encrypted.firstName });
    expect(stolen.record.firstName).toBeNull();
    expect(JSON.stringify(stolen)).not.toContain('Anna');
  });

  it('encrypts whole values at a path (arrays, objects) and each element with []', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const hit = {
      list: 'SANCTIONS',
      entryId: 'E-1',
      matchedName: 'Anna Kowalczyk',
      names: ['Anna Kowalczyk', 'Anna Kovalchuk'],
      explanation: {
        matchedName: 'Anna Kowalczyk',
        queryTokens: ['anna', 'kowalczyk'],
        candidateTokens: ['anna', 'kowalczyk'],
        tokenPairs: [{ query: 'kowalczyk', candidate: 'kowalczyk', similarity: 1 }],
        nameScore: 1,
        qualifiers: [
          { kind: 'BIRTH_DATE', outcome: 'MATCH', delta: 0.05, detail: '1980-02-03 = 1980-02-03' },
        ],
      },
      score: 0.97,
    };
    const encrypted = await cipher.encryptFields(
      STREAM,
      { hits: [hit] },
      ScreeningHitPersonalFields.map((f) => `hits[].${f}`),
    );
    expect(JSON.stringify(encrypted)).not.toMatch(/kowalczyk|Anna Kov|1980/i);
    expect(encrypted.hits[0]).toMatchObject({ list: 'SANCTIONS', entryId: 'E-1', score: 0.97 });
    // Every field keeps its registered type: strings stay strings, arrays of strings stay arrays.
    expect(encrypted.hits[0]!.names).toHaveLength(2);
    expect(encrypted.hits[0]!.explanation.tokenPairs[0]).toMatchObject({ similarity: 1 });
    expect(encrypted.hits[0]!.explanation.qualifiers[0]).toMatchObject({ kind: 'BIRTH_DATE', delta: 0.05 });
    expect((await cipher.decryptFields(STREAM, encrypted)).record).toEqual({ hits: [hit] });

    const each = await cipher.encryptFields(STREAM, { names: ['a', 'b'] }, ['names[]']);
    expect(each.names).toHaveLength(2);
    expect(containsEncrypted(each.names[0])).toBe(true);
    expect((await cipher.decryptFields(STREAM, each)).record).toEqual({ names: ['a', 'b'] });
  });

  it('passes records without encrypted values (written before encryption) through without a key look-up', async () => {
    const keys = new MemoryDataKeySource();
    const lookups = jest.spyOn(keys, 'currentKey');
    const cipher = new PersonalDataCipher(keys);
    const plain = customer();
    expect(await cipher.decryptFields(STREAM, plain)).toEqual({
      record: plain,
      erased: false,
      erasedPaths: [],
      invalidPaths: [],
    });
    expect(lookups).not.toHaveBeenCalled();
  });

  it('keeps Dates, ids and binary values of a stored document as they are', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    class ObjectIdLike {
      constructor(readonly id: string) {}
    }
    // Paths are relative to the record root, so the value is encrypted where the document holds it.
    const encrypted = await cipher.encryptFields(STREAM, { data: { firstName: 'Anna' } }, ['data.firstName']);
    const stored = {
      _id: new ObjectIdLike('65f0'),
      updatedAt: new Date('2026-11-25T00:00:00Z'),
      blob: Buffer.from('x'),
      data: encrypted.data,
    };
    const { record } = await cipher.decryptFields(STREAM, stored);
    expect(record._id).toBe(stored._id);
    expect(record.updatedAt).toBe(stored.updatedAt);
    expect(record.blob).toBe(stored.blob);
    expect(record.data).toEqual({ firstName: 'Anna' });
  });

  it('skips absent and null values and refuses malformed path patterns', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    expect(await cipher.encryptFields(STREAM, { a: null, list: [] }, ['a', 'b', 'list[].x', 'c.d'])).toEqual({
      a: null,
      list: [],
    });
    const key = await new MemoryDataKeySource().keyFor(STREAM);
    for (const bad of ['', 'a..b', 'a[0].b', '.a', 'a[]]']) {
      expect(() => encryptFieldsWith(key, STREAM, {}, [bad])).toThrow(FieldPathInvalidError);
    }
  });
});

describe('sealFields: every personal value of a record in one ciphertext (decision 0054)', () => {
  const sealedOf = (record: object) => (record as Record<string, unknown>)[SEALED_FIELD] as string;

  it('replaces each personal value by a placeholder, seals them in one value, and decrypts back to the same record', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const plain = customer();
    const sealed = await cipher.sealFields(STREAM, plain, CustomerPersonalFields);
    expect(plain).toEqual(customer());
    const text = JSON.stringify(sealed);
    for (const secret of ['Anna', 'Kowalczyk', '1980-02-29', '80022912345', 'anna@example.org', 'Długa 1']) {
      expect(text).not.toContain(secret);
    }
    for (const secret of ['Jan', 'Nowak', '1975-05-05', '75050554321']) expect(text).not.toContain(secret);
    // One ciphertext in the whole record; which fields are present stays readable.
    expect(text.match(/crs:enc:1:/g)).toHaveLength(1);
    expect(sealedOf(sealed)).toMatch(ENCRYPTED_VALUE_PATTERN);
    expect(sealed).toMatchObject({
      customerExtId: 'C-1',
      citizenshipCountry: 'PL',
      firstName: 'crs:sealed:0',
      lastName: 'crs:sealed:0',
      listAddress: [{ country: 'PL', city: 'crs:sealed:0', zipCode: 'crs:sealed:0' }],
      listRelatedEntity: [
        { extId: 'R-1', firstName: 'crs:sealed:0', nationalCode: 'crs:sealed:0' },
        { extId: 'R-2', title: 'Holding SA' },
      ],
    });
    expect(keyIdOf(sealed)).toBe(parseEncryptedValue(sealedOf(sealed))!.keyId);
    // The documented form: schemas/privacy/sealed-personal-data.v1 (its placeholder pattern is the code's).
    const schema = JSON.parse(
      readFileSync(join(__dirname, '../../../schemas/privacy/sealed-personal-data.v1.schema.json'), 'utf8'),
    ) as { $id: string; $defs: { placeholder: { pattern: string } } };
    expect(schema.$defs.placeholder.pattern).toBe(SEALED_PLACEHOLDER_PATTERN.source);
    expect(getValidator(schema.$id)(sealed)).toBe(true);
    expect(getValidator(schema.$id)(customer())).toBe(false);
    expect(containsEncrypted(sealed)).toBe(true);
    expect(await cipher.decryptFields(STREAM, sealed)).toEqual({
      record: plain,
      erased: false,
      erasedPaths: [],
      invalidPaths: [],
    });
  });

  it('numbers the values of one path pattern in order: every element of an array comes back in its place', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const plain = {
      ...customer(),
      listAddress: ['Vilnius', 'Kaunas', 'Riga'].map((city) => ({ country: 'LT', city })),
    };
    const sealed = await cipher.sealFields(STREAM, plain, CustomerPersonalFields);
    expect(sealed.listAddress.map((a) => a.city)).toEqual(['crs:sealed:0', 'crs:sealed:1', 'crs:sealed:2']);
    // A projection may reorder the array: each placeholder still names its own value.
    const reordered = { ...sealed, listAddress: [...sealed.listAddress].reverse() };
    const back = await cipher.decryptFields(STREAM, reordered);
    expect(back.record.listAddress.map((a) => a.city)).toEqual(['Riga', 'Kaunas', 'Vilnius']);
  });

  it('leaves a sealed record alone when sealed again, and encrypts on its own a plain value added to it', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const once = await cipher.sealFields(STREAM, customer(), CustomerPersonalFields);
    expect(await cipher.sealFields(STREAM, once, CustomerPersonalFields)).toEqual(once);
    const added = await cipher.sealFields(STREAM, { ...once, placeOfBirth: 'Sopot' }, CustomerPersonalFields);
    expect(added.placeOfBirth).toMatch(ENCRYPTED_VALUE_PATTERN);
    expect(sealedOf(added)).toBe(sealedOf(once));
    expect((await cipher.decryptFields(STREAM, added)).record).toEqual({
      ...customer(),
      placeOfBirth: 'Sopot',
    });
    // A record without a personal value gets no sealed field.
    const none = await cipher.sealFields(
      STREAM,
      { customerExtId: 'C-1', isPEP: false },
      CustomerPersonalFields,
    );
    expect(none).toEqual({ customerExtId: 'C-1', isPEP: false });
  });

  it('shows every present personal field as null, erased, once the key is erased', async () => {
    const keys = new MemoryDataKeySource();
    const cipher = new PersonalDataCipher(keys);
    const sealed = await cipher.sealFields(STREAM, customer(), CustomerPersonalFields);
    await keys.erase(STREAM);
    const result = await cipher.decryptFields(STREAM, sealed);
    expect(result.erased).toBe(true);
    expect(result.invalidPaths).toEqual([]);
    expect(result.record).toMatchObject({
      customerExtId: 'C-1',
      firstName: null,
      nationalCode: null,
      citizenshipCountry: 'PL',
      listContact: [{ contactType: 'EMAIL', contactDetails: null }],
      listRelatedEntity: [{ extId: 'R-1', firstName: null }, { title: 'Holding SA' }],
    });
    expect(result.record).not.toHaveProperty(SEALED_FIELD);
    expect(result.erasedPaths).toEqual(
      expect.arrayContaining(['firstName', 'listAddress[].city', 'listRelatedEntity[].nationalCode']),
    );
  });

  it('refuses a placeholder moved to another field, a sealed value moved to another customer, and placeholders without their sealed value', async () => {
    const cipher = new PersonalDataCipher(new MemoryDataKeySource());
    const sealed = await cipher.sealFields(STREAM, customer(), CustomerPersonalFields);
    // lastName has one value: index 1 names none; `region` was never sealed.
    const moved = {
      ...sealed,
      lastName: 'crs:sealed:1',
      listAddress: [{ ...sealed.listAddress[0]!, region: 'crs:sealed:0' }],
    };
    const result = await cipher.decryptFields(STREAM, moved);
    expect(result.record).toMatchObject({
      firstName: 'Anna',
      lastName: null,
      listAddress: [{ region: null }],
    });
    expect(result.invalidPaths.sort()).toEqual(['lastName', 'listAddress[].region']);

    const other = streamKey('BU1', 'C-2');
    await cipher.sealFields(other, { firstName: 'Eve' }, ['firstName']);
    const stolen = await cipher.decryptFields(other, sealed);
    expect(stolen.record.firstName).toBeNull();
    // Another key id: it reads as that customer's erased value, never as plaintext.
    expect([...stolen.invalidPaths, ...stolen.erasedPaths]).toContain('firstName');
    expect(JSON.stringify(stolen)).not.toContain('Anna');

    const { [SEALED_FIELD]: _dropped, ...orphan } = sealed as Record<string, unknown>;
    const orphaned = await cipher.decryptFields(STREAM, orphan);
    expect(orphaned.record.firstName).toBeNull();
    expect(orphaned.invalidPaths).toContain('firstName');
  });
});
