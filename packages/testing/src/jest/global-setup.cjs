'use strict';
// Global setup of the integration and e2e jest projects (root jest.config.cjs): find the stack the
// tests run against (packages/testing/src/stack-env.ts: env vars, else the local stack started by
// `npm run stack:up`, else testcontainers where a container runtime exists), fail at once with a clear
// message when there is none, and hand the settings to every test file through process.env (jest
// starts its workers after this, so they inherit it).

function loadStackEnv() {
  // Jest transpiles what a global setup module requires with the project's transform, so the
  // TypeScript source needs no build; the compiled copy serves any other runner.
  try {
    return require('../stack-env.ts');
  } catch (err) {
    if (err && err.code !== 'MODULE_NOT_FOUND' && !(err instanceof SyntaxError)) throw err;
    return require('../../dist/stack-env.js');
  }
}

module.exports = async function globalSetup() {
  const { resolveStackEnv, toProcessEnv } = loadStackEnv();
  let stack;
  try {
    stack = await resolveStackEnv();
  } catch (err) {
    if (err && err.code === 'STACK_UNAVAILABLE') {
      const message = `Integration and e2e tests need Kafka, the schema registry and MongoDB.\n${err.message}\n(run npm run stack:up)`;
      const clean = new Error(message);
      // The message is the whole story; jest would otherwise print this file's stack under it.
      clean.stack = message;
      throw clean;
    }
    throw err;
  }
  Object.assign(process.env, toProcessEnv(stack), { CRS_STACK_SOURCE: stack.source });
  // Containers are removed by testcontainers' reaper when jest exits; a global teardown may stop them sooner.
  if (stack.stop) globalThis.__CRS_STACK__ = stack;
};
