import {
  MAX_COMMUNICATION_DOC_CHARS,
  communicationEventsOf,
  groupCommunicationEvents,
} from './communication-events';
import { communicationKey } from './communication-keys';
import type { CommunicationEventDoc, ProjectedCommunicationEvent } from './read-models';

function event(id: string, over: Partial<ProjectedCommunicationEvent> = {}): ProjectedCommunicationEvent {
  return {
    _id: id,
    businessUnit: 'BU1',
    customerExtId: `C-${id}`,
    communicationNumber: 'comm-1',
    type: 'CustomerCreated',
    occurredAt: '2026-03-01T10:00:00.000Z',
    streamVersion: 1,
    data: { channel: 'BATCH' },
    ...over,
  };
}

describe('communication_events documents (decision 0050)', () => {
  it('folds the events of one communication and business unit into one document, in the order given', () => {
    const docs = groupCommunicationEvents([
      event('a'),
      event('x', { communicationNumber: 'comm-2' }),
      event('b', { streamVersion: 2, type: 'RiskAssessed' }),
      event('y', { businessUnit: 'BU2' }),
    ]);
    expect(docs.map((d) => [d.businessUnit, d.communicationNumber, d.count])).toEqual([
      ['BU1', 'comm-1', 2],
      ['BU1', 'comm-2', 1],
      ['BU2', 'comm-1', 1],
    ]);
    expect(JSON.parse(docs[0]!.events)).toEqual([
      {
        eventId: 'a',
        customerExtId: 'C-a',
        type: 'CustomerCreated',
        occurredAt: '2026-03-01T10:00:00.000Z',
        streamVersion: 1,
        data: { channel: 'BATCH' },
      },
      {
        eventId: 'b',
        customerExtId: 'C-b',
        type: 'RiskAssessed',
        occurredAt: '2026-03-01T10:00:00.000Z',
        streamVersion: 2,
        data: { channel: 'BATCH' },
      },
    ]);
    // Every _id starts with its communication's key (decision 0065); a group of one then the event id.
    expect(docs[1]!._id).toBe(`${communicationKey('comm-2')}x`);
    expect(docs[0]!._id.startsWith(communicationKey('comm-1'))).toBe(true);
    expect(docs[2]!._id.startsWith(communicationKey('comm-1'))).toBe(true);
  });

  it('gives the same events the same _id (a repeated write collides), other cuts other ids', () => {
    const once = groupCommunicationEvents([event('a'), event('b'), event('c')]);
    const again = groupCommunicationEvents([event('a'), event('b'), event('c')]);
    const longer = groupCommunicationEvents([event('a'), event('b'), event('c'), event('d')]);
    const middle = groupCommunicationEvents([event('a'), event('x'), event('c')]);
    expect(again.map((d) => d._id)).toEqual(once.map((d) => d._id));
    expect(longer[0]!._id).not.toBe(once[0]!._id);
    expect(middle[0]!._id).not.toBe(once[0]!._id);
  });

  it('counts an event given twice once, and slices a long communication', () => {
    const events = Array.from({ length: 7 }, (_, i) => event(`e${i}`));
    const docs = groupCommunicationEvents([...events, events[2]!], 3);
    expect(docs.map((d) => d.count)).toEqual([3, 3, 1]);
    expect(new Set(docs.map((d) => d._id)).size).toBe(3);
  });

  it('slices by size too: a document stays far below the 16 MB document limit', () => {
    const big = { explanation: 'x'.repeat(300 * 1024) };
    const docs = groupCommunicationEvents(Array.from({ length: 8 }, (_, i) => event(`e${i}`, { data: big })));
    expect(docs.length).toBeGreaterThan(1);
    for (const d of docs) expect(d.events.length).toBeLessThanOrEqual(MAX_COMMUNICATION_DOC_CHARS + 1);
    expect(docs.reduce((n, d) => n + d.count, 0)).toBe(8);
  });

  it('reads folded documents and the one-event documents written before, each event once', () => {
    const first = groupCommunicationEvents([event('a'), event('b')]);
    // A later fetch cut differently: b and c together (b is in both documents).
    const second = groupCommunicationEvents([event('b'), event('c', { type: 'RiskAssessed' })]);
    const older: CommunicationEventDoc[] = [
      { ...event('d', { type: 'ScreeningCompleted' }), data: JSON.stringify({ list: 'PEP' }) },
      event('e', { type: 'CustomerCommandRejected', data: { errorCode: 'V001' } }),
    ];
    const read = communicationEventsOf([...first, ...second, ...older]);
    expect(read.map((e) => e.eventId)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(read[3]).toEqual({
      eventId: 'd',
      businessUnit: 'BU1',
      communicationNumber: 'comm-1',
      customerExtId: 'C-d',
      type: 'ScreeningCompleted',
      occurredAt: '2026-03-01T10:00:00.000Z',
      streamVersion: 1,
      data: { list: 'PEP' },
    });
    expect(read[4]!.data).toEqual({ errorCode: 'V001' });
    expect(read[2]).toMatchObject({
      businessUnit: 'BU1',
      communicationNumber: 'comm-1',
      customerExtId: 'C-c',
    });
  });
});
