import { resolveStackEnv, unreachableEndpoints } from './stack-env';

describe('the stack the integration tests run against', () => {
  it('is handed to the tests through process.env by the global setup, and answers', async () => {
    expect(process.env.KAFKA_BROKERS).toBeTruthy();
    expect(process.env.SCHEMA_REGISTRY_URL).toMatch(/\/apis\/ccompat\/v7$|^http/);
    expect(process.env.MONGODB_URI).toMatch(/^mongodb(\+srv)?:\/\//);
    const stack = await resolveStackEnv({ containers: false });
    expect(stack.source).toBe('env');
    expect(await unreachableEndpoints(stack)).toEqual([]);
  });
});
