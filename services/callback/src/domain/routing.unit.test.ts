import {
  currentUrlOf,
  endpointsFor,
  nextDelayMs,
  parseRouting,
  CallbackRoutingInvalidError,
} from './routing';

describe('callback routing', () => {
  const routing = parseRouting(
    JSON.stringify({
      endpoints: [
        { id: 'a', businessUnit: 'BU1', url: 'https://a.example/cb' },
        {
          id: 'b',
          businessUnit: 'BU1',
          url: 'https://b.example/screening',
          eventTypes: ['com.crs.screening.*'],
        },
        {
          id: 'c',
          businessUnit: 'BU2',
          url: 'https://c.example/cb',
          eventTypes: ['com.crs.risk-assessment.completed'],
        },
      ],
    }),
  );

  it('routes by business unit and event type', () => {
    expect(endpointsFor(routing, 'BU1', 'com.crs.risk-assessment.completed').map((e) => e.id)).toEqual(['a']);
    expect(endpointsFor(routing, 'BU1', 'com.crs.screening.sanctions.completed').map((e) => e.id)).toEqual([
      'a',
      'b',
    ]);
    expect(endpointsFor(routing, 'BU2', 'com.crs.screening.pep.completed')).toEqual([]);
    expect(endpointsFor(routing, 'BU3', 'com.crs.risk-assessment.completed')).toEqual([]);
  });

  it("sends a queued delivery to its endpoint's current URL, never to another unit's endpoint of the same id", () => {
    const changed = parseRouting(
      JSON.stringify({
        endpoints: [
          { id: 'a', businessUnit: 'BU1', url: 'https://a2.example/cb' },
          { id: 'a', businessUnit: 'BU2', url: 'https://other-unit.example/cb' },
        ],
      }),
    );
    expect(currentUrlOf(changed, 'a', 'BU1')).toBe('https://a2.example/cb');
    expect(currentUrlOf(changed, 'a', 'BU3')).toBeUndefined();
    expect(currentUrlOf(changed, 'b', 'BU1')).toBeUndefined();
    expect(currentUrlOf(routing, 'c', 'BU2')).toBe('https://c.example/cb');
  });

  it('rejects endpoints without url or with a non-http scheme', () => {
    expect(() => parseRouting('{"endpoints":[{"id":"x","businessUnit":"B"}]}')).toThrow(
      CallbackRoutingInvalidError,
    );
    expect(() =>
      parseRouting('{"endpoints":[{"id":"x","businessUnit":"B","url":"file:///etc/passwd"}]}'),
    ).toThrow(CallbackRoutingInvalidError);
  });

  it('backs off exponentially with jitter and a cap', () => {
    expect(nextDelayMs(1, 1000, 60000, 0)).toBe(500);
    expect(nextDelayMs(1, 1000, 60000, 0.999)).toBeLessThanOrEqual(1000);
    expect(nextDelayMs(4, 1000, 60000, 0)).toBe(4000);
    expect(nextDelayMs(30, 1000, 60000, 0.5)).toBeLessThanOrEqual(60000);
    expect(nextDelayMs(30, 1000, 60000, 0)).toBe(30000);
  });
});
