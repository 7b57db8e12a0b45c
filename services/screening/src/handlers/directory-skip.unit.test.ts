import { LIST_PURPOSE_HEADER, listPurposeHeader, type CustomerEvent } from '@crs/contracts';
import { CustomerDirectory } from '../domain/customer-directory';
import { directorySkip } from './customer-event-projector';
import { customerEvent as event } from '../customer-event.fixtures';

/**
 * Which customer events the directory's reader skips unparsed (decision 0073), fed as the reader feeds
 * it: every message of a fetched batch is decided first, then the batch's messages are folded in order.
 * Whatever is skipped, the directory ends as it ends when it folds every event.
 */
const record = (streamId: string, last: string, extra: Record<string, unknown> = {}) =>
  event(extra.action === 'UPDATE' ? 'CustomerUpdated' : 'CustomerCreated', streamId, {
    customer: { entityType: 'INDIVIDUAL', firstName: 'Ann', lastName: last, ...extra },
    sourceOfRiskLevel: 'IMPORT',
    channel: 'SINGLE',
  });
const purpose = (streamId: string, listPurpose: 'BLACK' | 'WHITE') =>
  event('InternalListPurposeRecorded', streamId, { listPurpose });
const screening = (streamId: string) =>
  event('ScreeningRequested', streamId, {
    requestId: `r-${streamId}`,
    lists: ['SANCTIONS'],
    reason: 'IMPORT',
    customer: { entityType: 'INDIVIDUAL', firstName: 'Ann', lastName: streamId },
  });

/** The headers the customer decider writes: the type, and listPurpose on records unless `legacy`. */
function headersOf(e: CustomerEvent, legacy: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = { type: Buffer.from(e.type) };
  if (!legacy && (e.type === 'CustomerCreated' || e.type === 'CustomerUpdated'))
    headers[LIST_PURPOSE_HEADER] = Buffer.from(listPurposeHeader(e.data.customer));
  return headers;
}

/** Folds `batches` as the reader does with the skip; returns the directory and the skipped event ids. */
function readWithSkip(batches: CustomerEvent[][], legacy = false) {
  const directory = new CustomerDirectory();
  const { skip, batchDecided } = directorySkip(directory);
  const skipped: string[] = [];
  for (const batch of batches) {
    const handed = batch.filter((e) => {
      const s = skip(e.streamId, headersOf(e, legacy));
      if (s) skipped.push(e.eventId);
      return !s;
    });
    if (handed.length > 0) batchDecided(handed.map((e) => e.streamId));
    for (const e of handed) directory.apply(e);
  }
  return { directory, skipped };
}

function foldAll(batches: CustomerEvent[][]): CustomerDirectory {
  const directory = new CustomerDirectory();
  for (const e of batches.flat()) directory.apply(e);
  return directory;
}

const stateOf = (d: CustomerDirectory) => ({
  screened: [...d.screened.entries()].sort(),
  internal: d.internalEntries(),
  purposes: ['DEMO:A', 'DEMO:B', 'DEMO:C', 'DEMO:D'].map((id) => d.listPurposeOf(id)),
});

describe('directorySkip', () => {
  it('skips the records of customers without a list purpose, and ends as a fold of every event', () => {
    const plainA = record('DEMO:A', 'Plain');
    const black = record('DEMO:B', 'Black', { listPurpose: 'BLACK' });
    const batches = [
      [plainA, screening('DEMO:A'), black, purpose('DEMO:B', 'BLACK')],
      // B is held BLACK now: its update without listPurpose renames its internal entry and is read.
      [record('DEMO:B', 'Renamed', { action: 'UPDATE' }), record('DEMO:A', 'Again', { action: 'UPDATE' })],
    ];
    const { directory, skipped } = readWithSkip(batches);
    expect(skipped).toEqual([plainA.eventId, batches[1]![1]!.eventId]);
    expect(stateOf(directory)).toEqual(stateOf(foldAll(batches)));
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ann Renamed']]);
  });

  it('reads a record without a purpose when an earlier message of the same batch may give the customer one', () => {
    // Decided before either is folded: without the batch's memory the rename would be skipped and the
    // internal list would keep the old name.
    const batches = [
      [
        record('DEMO:C', 'Black', { listPurpose: 'BLACK' }),
        purpose('DEMO:C', 'BLACK'),
        record('DEMO:C', 'Renamed', { action: 'UPDATE' }),
        purpose('DEMO:D', 'WHITE'),
        record('DEMO:D', 'White', { action: 'UPDATE' }),
      ],
    ];
    const { directory, skipped } = readWithSkip(batches);
    expect(skipped).toEqual([]);
    expect(stateOf(directory)).toEqual(stateOf(foldAll(batches)));
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ann Renamed']]);
    expect(directory.listPurposeOf('DEMO:D')).toEqual({ purpose: 'WHITE' });
  });

  it('forgets a batch once it is decided: a later batch skips what the directory does not hold', () => {
    // A is BLACK, then erased within the batch: the directory holds nothing of it afterwards, so its
    // next record without a purpose, in a later batch, is skipped (it is not, if the batch is never forgotten).
    const batches = [
      [
        record('DEMO:A', 'Black', { listPurpose: 'BLACK' }),
        purpose('DEMO:A', 'BLACK'),
        event('PersonalDataErased', 'DEMO:A', {}),
      ],
      [record('DEMO:B', 'Plain'), screening('DEMO:B')],
      [record('DEMO:A', 'Back', { action: 'UPDATE' }), record('DEMO:B', 'Plain again', { action: 'UPDATE' })],
    ];
    const { directory, skipped } = readWithSkip(batches);
    expect(skipped).toEqual([batches[1]![0]!.eventId, batches[2]![0]!.eventId, batches[2]![1]!.eventId]);
    expect(stateOf(directory)).toEqual(stateOf(foldAll(batches)));
    expect(directory.listPurposeOf('DEMO:A')).toBeUndefined();
  });

  it("another partition's batch decided meanwhile does not forget this batch's customers (partitions read at once)", () => {
    // Partition 0's batch gives C a purpose, then renames it without one; partition 1's batch (D, handed
    // out, so the reader calls its beforeBatch) is decided between the two (the reader awaits between
    // messages). Forgetting every customer there would skip the rename, and the internal list would keep
    // the old name.
    const directory = new CustomerDirectory();
    const { skip, batchDecided } = directorySkip(directory);
    const black = record('DEMO:C', 'Black', { listPurpose: 'BLACK' });
    const renamed = record('DEMO:C', 'Renamed', { action: 'UPDATE' });
    const white = purpose('DEMO:D', 'WHITE');
    const decide = (e: CustomerEvent) => !skip(e.streamId, headersOf(e, false));
    const partition0 = [black].filter(decide);
    const partition1 = [white].filter(decide);
    batchDecided(partition1.map((e) => e.streamId));
    partition0.push(...[renamed].filter(decide));
    batchDecided(partition0.map((e) => e.streamId));
    for (const e of [...partition1, ...partition0]) directory.apply(e);
    expect(partition1).toEqual([white]);
    expect(partition0).toEqual([black, renamed]);
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ann Renamed']]);
  });

  it('keeps reading the records of a WHITE customer in later batches (its purpose stays)', () => {
    const batches = [
      [record('DEMO:D', 'White', { listPurpose: 'WHITE' }), purpose('DEMO:D', 'WHITE')],
      [record('DEMO:D', 'Still white', { action: 'UPDATE' })],
    ];
    const { directory, skipped } = readWithSkip(batches);
    expect(skipped).toEqual([]);
    expect(stateOf(directory)).toEqual(stateOf(foldAll(batches)));
    expect(directory.listPurposeOf('DEMO:D')).toEqual({ purpose: 'WHITE' });
  });

  it('reads a record without the header (written before it existed) and what follows it in the batch', () => {
    // The old record makes B BLACK; a newer record of B without a purpose in the same batch is read too.
    const old = record('DEMO:B', 'Black', { listPurpose: 'BLACK' });
    const directory = new CustomerDirectory();
    const { skip, batchDecided } = directorySkip(directory);
    const renamed = record('DEMO:B', 'Renamed', { action: 'UPDATE' });
    const batch: [CustomerEvent, boolean][] = [
      [old, true],
      [renamed, false],
    ];
    const handed = batch.filter(([e, legacy]) => !skip(e.streamId, headersOf(e, legacy))).map(([e]) => e);
    batchDecided(handed.map((e) => e.streamId));
    for (const e of handed) directory.apply(e);
    expect(handed).toEqual([old, renamed]);
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ann Renamed']]);
  });

  it('reads every record of a log written before the header existed', () => {
    const batches = [[record('DEMO:A', 'Plain'), record('DEMO:B', 'Black', { listPurpose: 'BLACK' })]];
    const { directory, skipped } = readWithSkip(batches, true);
    expect(skipped).toEqual([]);
    expect(stateOf(directory)).toEqual(stateOf(foldAll(batches)));
  });
});
