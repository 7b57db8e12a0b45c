import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { compareIds, pagesById, type PagesByIdOptions } from './pages-by-id';
import { detectDialect, type StoreDialect } from './mongo';

type Doc = { _id: string; kind: string; n: number };

/**
 * The long jobs page through collections by `_id` and resume after the last one they handled. Both ways
 * of reading the pages (MongoDB's keyset pages, FerretDB's ids-then-`$in` pages) must give every matching
 * document once, in MongoDB's `_id` order (UTF-8 bytes), including ids whose JSON text orders otherwise
 * (a space, `!`, `<`, `\`, characters above U+FFFF). Both run here against the real store.
 */
describe('pagesById', () => {
  let client: MongoClient;
  let db: Db;
  let docs: Collection<Doc>;
  let actual: StoreDialect;
  const tricky = ['b', 'b!', 'b ', 'b<', 'bA', 'b\\x', 'b"q', 'é', '\u{1D4B3}', '\uFFFD', 'a&b', 'a>b', 'B'];
  const all: Doc[] = [
    ...tricky.map((id, n) => ({ _id: id, kind: 'x', n })),
    ...Array.from({ length: 120 }, (_, n) => ({ _id: `BU1:C-${n}`, kind: n % 3 === 0 ? 'y' : 'x', n })),
  ];
  const expected = (after: string | null = null) =>
    all
      .filter((d) => d.kind === 'x' && (after === null || compareIds(d._id, after) > 0))
      .map((d) => d._id)
      .sort(compareIds);

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_pages_${randomUUID().slice(0, 8)}`);
    docs = db.collection<Doc>('docs');
    await docs.insertMany(all);
    actual = await detectDialect(db);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const read = async (opts: Partial<PagesByIdOptions> & { dialect: StoreDialect }) => {
    const pages: Doc[][] = [];
    for await (const page of pagesById(
      docs,
      { kind: 'x' },
      { projection: { _id: 1, n: 1 }, pageSize: 7, after: null, ...opts },
    ))
      pages.push(page);
    return pages;
  };

  it.each(['mongodb', 'ferretdb'] as const)(
    'the %s way gives every matching document once, in UTF-8 order of _id, in pages of at most the size',
    async (dialect) => {
      const pages = await read({ dialect });
      expect(pages.flat().map((d) => d._id)).toEqual(expected());
      expect(pages.every((p) => p.length >= 1 && p.length <= 7)).toBe(true);
      expect(pages.flat()[0]).toEqual({ _id: expected()[0], n: expect.any(Number) });
    },
  );

  it.each(['mongodb', 'ferretdb'] as const)('the %s way resumes after a given _id', async (dialect) => {
    for (const after of ['b', 'b!', 'BU1:C-5', '\uFFFD']) {
      const pages = await read({ dialect, after });
      expect(pages.flat().map((d) => d._id)).toEqual(expected(after));
    }
  });

  it.each(['mongodb', 'ferretdb'] as const)(
    'the %s way leaves out a document that stopped matching while the pages were read',
    async (dialect) => {
      const late = expected().at(-1)!;
      const seen: string[] = [];
      try {
        for await (const page of pagesById(
          docs,
          { kind: 'x' },
          { projection: { _id: 1 }, pageSize: 7, after: null, dialect },
        )) {
          if (seen.length === 0) await docs.updateOne({ _id: late }, { $set: { kind: 'gone' } });
          seen.push(...page.map((d) => d._id));
        }
      } finally {
        await docs.updateOne({ _id: late }, { $set: { kind: 'x' } });
      }
      expect(seen).toEqual(expected().filter((id) => id !== late));
    },
  );

  it('reports the reading of the _ids on the ferretdb way (a job renews its lease there), and never on the mongodb way', async () => {
    for (const dialect of ['ferretdb', 'mongodb'] as const) {
      const reports: number[] = [];
      const pages = pagesById(
        docs,
        { kind: 'x' },
        { pageSize: 7, after: null, dialect, idScanReportEvery: 40, onIdScan: (n) => void reports.push(n) },
      );
      for await (const _ of pages);
      const n = expected().length; // 93: every 40 ids, then the count at the end
      expect(reports).toEqual(dialect === 'ferretdb' ? [40, 80, n] : []);
    }
  });

  it('refuses a filter on _id itself (the pages are the _id condition)', async () => {
    await expect(
      pagesById(docs, { _id: 'b' }, { projection: {}, pageSize: 7, after: null, dialect: actual }).next(),
    ).rejects.toThrow(/must not constrain _id/);
  });
});
