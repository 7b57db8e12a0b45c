import { nextDelayMs } from './domain/routing';
import { loadCallbackConfig } from './config';

/** The time between the first attempt and the dead letter, at the extremes of the jitter. */
function retrySpanSec(maxAttempts: number, baseMs: number, maxMs: number, random: number): number {
  let ms = 0;
  for (let attempt = 1; attempt < maxAttempts; attempt++) ms += nextDelayMs(attempt, baseMs, maxMs, random);
  return ms / 1000;
}

describe('callback retry defaults', () => {
  const config = loadCallbackConfig({ CALLBACK_SIGNING_KEY_FILE: '/dev/null', AUTH_JWKS_FILE: '/dev/null' });

  it('outlast a receiver that is down for an hour, even with the shortest jitter (docs/callbacks.md)', () => {
    const { CALLBACK_MAX_ATTEMPTS: n, CALLBACK_BACKOFF_BASE_MS: base, CALLBACK_BACKOFF_MAX_MS: cap } = config;
    expect(retrySpanSec(n, base, cap, 0)).toBeGreaterThan(3600);
    // The documented span: 24 attempts, 1.75 to 3.5 hours between the first attempt and the dead letter.
    expect(n).toBe(24);
    expect(Math.floor(retrySpanSec(n, base, cap, 0) / 360) / 10).toBe(1.7);
    expect(Math.floor(retrySpanSec(n, base, cap, 0.999999) / 360) / 10).toBe(3.5);
  });
});
