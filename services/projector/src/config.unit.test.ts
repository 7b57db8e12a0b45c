import { loadProjectorConfig } from './config';

/** The projector's fetch linger (docs/decisions/0060, 0079): its own settings, checked at start. */
describe('loadProjectorConfig', () => {
  it('lingers by default: a fetch waits for 4 MiB of events or 250 ms', () => {
    expect(loadProjectorConfig({}).projectorFetch).toEqual({ minBytes: 4_194_304, maxWaitTimeInMs: 250 });
  });

  it('takes PROJECTOR_FETCH_* and not the KAFKA_FETCH_* every other service uses', () => {
    const config = loadProjectorConfig({
      KAFKA_FETCH_MIN_BYTES: '1',
      KAFKA_FETCH_MAX_WAIT_MS: '200',
      PROJECTOR_FETCH_MIN_BYTES: '1',
      PROJECTOR_FETCH_MAX_WAIT_MS: '100',
    });
    expect(config.projectorFetch).toEqual({ minBytes: 1, maxWaitTimeInMs: 100 });
  });

  it.each([
    [{ PROJECTOR_FETCH_MIN_BYTES: '0' }, /PROJECTOR_FETCH_MIN_BYTES must be a whole number of at least 1/],
    [{ PROJECTOR_FETCH_MIN_BYTES: '1.5' }, /PROJECTOR_FETCH_MIN_BYTES/],
    [
      { PROJECTOR_FETCH_MAX_WAIT_MS: '0' },
      /PROJECTOR_FETCH_MAX_WAIT_MS must be a whole number from 1 to 10000/,
    ],
    [{ PROJECTOR_FETCH_MAX_WAIT_MS: '60000' }, /PROJECTOR_FETCH_MAX_WAIT_MS/],
    [{ PROJECTOR_FETCH_MAX_WAIT_MS: 'soon' }, /PROJECTOR_FETCH_MAX_WAIT_MS/],
  ])('refuses %j, naming the setting', (env, message) => {
    expect(() => loadProjectorConfig(env)).toThrow(message);
  });
});
