/**
 * Callback endpoints are configured per business unit; each may take every event type ('*') or a
 * chosen set of CloudEvent types (prefixes ending in '*' match a family, e.g. 'com.crs.screening.*').
 */
export interface CallbackEndpoint {
  id: string;
  businessUnit: string;
  url: string;
  eventTypes: string[];
}

export interface CallbackRouting {
  endpoints: CallbackEndpoint[];
}

export class CallbackRoutingInvalidError extends Error {
  readonly code = 'CALLBACK_ROUTING_INVALID';
}

export function parseRouting(json: string): CallbackRouting {
  const doc = JSON.parse(json) as { endpoints?: unknown };
  if (!Array.isArray(doc.endpoints))
    throw new CallbackRoutingInvalidError('callback routing needs an endpoints array');
  const endpoints = doc.endpoints.map((e, i) => {
    const x = e as Partial<CallbackEndpoint>;
    if (!x.id || !x.businessUnit || !x.url)
      throw new CallbackRoutingInvalidError(`endpoints[${i}] needs id, businessUnit and url`);
    const url = new URL(x.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CallbackRoutingInvalidError(`endpoints[${i}].url must be http(s)`);
    return {
      id: x.id,
      businessUnit: x.businessUnit,
      url: x.url,
      eventTypes: x.eventTypes?.length ? x.eventTypes : ['*'],
    };
  });
  return { endpoints };
}

function typeMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function endpointsFor(
  routing: CallbackRouting,
  businessUnit: string,
  cloudEventType: string,
): CallbackEndpoint[] {
  return routing.endpoints.filter(
    (e) => e.businessUnit === businessUnit && e.eventTypes.some((p) => typeMatches(p, cloudEventType)),
  );
}

/**
 * The URL an endpoint has now: a delivery queued (or redelivered) before a routing change goes to the
 * endpoint's current URL. Only an endpoint of the delivery's own business unit counts, so an id reused
 * by another unit never redirects a delivery across units. Undefined when the endpoint is gone (the
 * delivery then keeps the URL it was queued with).
 */
export function currentUrlOf(
  routing: CallbackRouting,
  endpointId: string,
  businessUnit: string,
): string | undefined {
  return routing.endpoints.find((e) => e.id === endpointId && e.businessUnit === businessUnit)?.url;
}

/** Exponential backoff with full jitter, capped; `random` in [0, 1) is passed in to keep this pure. */
export function nextDelayMs(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
