import { QueuedLanes } from './queued-lanes';

const entry = (id: string, streamId: string, endpointId = 'ep') => ({ _id: id, streamId, endpointId });

describe('QueuedLanes', () => {
  it('knows which lanes have queued deliveries, by entry', () => {
    const lanes = new QueuedLanes();
    lanes.add(entry('e1|ep', 'S1'));
    lanes.add(entry('e2|ep', 'S1'));
    expect(lanes.has('S1|ep')).toBe(true);
    lanes.remove('e1|ep');
    expect(lanes.has('S1|ep')).toBe(true);
    lanes.remove('e2|ep');
    expect(lanes.has('S1|ep')).toBe(false);
    expect(lanes.size).toBe(0);
  });

  it('a refresh takes what the queue holds, without forgetting changes made while it read', () => {
    const lanes = new QueuedLanes();
    lanes.add(entry('gone|ep', 'S0'));
    lanes.add(entry('kept|ep', 'S4'));
    const started = lanes.beginRefresh();
    // While the queue is read: one entry is written, one removed.
    lanes.add(entry('new|ep', 'S1'));
    lanes.remove('kept|ep');
    lanes.replace(started, [entry('kept|ep', 'S4'), entry('other|ep', 'S2')]);
    expect(['S0', 'S1', 'S2', 'S4'].filter((s) => lanes.has(`${s}|ep`))).toEqual(['S1', 'S2']);
  });
});
