import { withLastPage, type PageWithEnd } from './pages-by-id';

async function* source(pages: number[][]): AsyncGenerator<number[]> {
  for (const p of pages) yield p;
}

async function all(pages: number[][]): Promise<PageWithEnd<number>[]> {
  const out: PageWithEnd<number>[] = [];
  for await (const p of withLastPage(source(pages))) out.push(p);
  return out;
}

describe('withLastPage', () => {
  it('marks only the last page as last', async () => {
    expect(await all([[1, 2], [3], [4, 5]])).toEqual([
      { rows: [1, 2], last: false },
      { rows: [3], last: false },
      { rows: [4, 5], last: true },
    ]);
    expect(await all([[1]])).toEqual([{ rows: [1], last: true }]);
  });

  it('gives one empty last page for an empty pass, so that the job still records that it is done', async () => {
    expect(await all([])).toEqual([{ rows: [], last: true }]);
  });

  it('stops reading when the consumer stops', async () => {
    let read = 0;
    async function* counted(): AsyncGenerator<number[]> {
      for (let i = 0; i < 10; i++) {
        read++;
        yield [i];
      }
    }
    for await (const p of withLastPage(counted())) if (p.rows[0] === 1) break;
    // The page handed out and the one read ahead of it.
    expect(read).toBe(3);
  });
});
