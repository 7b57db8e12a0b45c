import { DeliverySlots } from './delivery-slots';

describe('DeliverySlots', () => {
  it('bounds attempts overall, per endpoint and to one per lane', () => {
    const slots = new DeliverySlots(3, 2);
    expect(slots.tryTake('c1|a', 'a')).toBe(true);
    expect(slots.tryTake('c1|a', 'a')).toBe(false); // same lane: order per customer and endpoint
    expect(slots.tryTake('c2|a', 'a')).toBe(true);
    expect(slots.tryTake('c3|a', 'a')).toBe(false); // endpoint a is full
    expect(slots.tryTake('c1|b', 'b')).toBe(true);
    expect(slots.tryTake('c2|b', 'b')).toBe(false); // all three slots taken
    slots.release('c1|a', 'a');
    expect(slots.laneBusy('c1|a')).toBe(false);
    expect(slots.tryTake('c2|b', 'b')).toBe(true);
    expect(slots.inFlight).toBe(3);
  });

  it('grants waiting lanes first come, first served, and a waiter gives up when its signal aborts', async () => {
    const slots = new DeliverySlots(1, 1);
    expect(slots.tryTake('c1|a', 'a')).toBe(true);
    const gaveUp = new AbortController();
    const first = slots.take('c2|a', 'a', new AbortController().signal);
    const second = slots.take('c3|a', 'a', gaveUp.signal);
    gaveUp.abort();
    await expect(second).resolves.toBe(false);
    slots.release('c1|a', 'a');
    await expect(first).resolves.toBe(true);
    expect(slots.laneBusy('c2|a')).toBe(true);
  });

  it('an endpoint marked slow stays slow until its time is up', () => {
    const slots = new DeliverySlots(4, 2);
    slots.markSlow('a', 1000);
    expect(slots.isSlow('a', 999)).toBe(true);
    expect(slots.isSlow('b', 999)).toBe(false);
    expect(slots.isSlow('a', 1000)).toBe(false);
  });
});
