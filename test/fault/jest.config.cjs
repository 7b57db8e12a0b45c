// The fault suite's own jest project: the root config's TypeScript transform and module mapping, its
// own file pattern (*.fault.test.ts, never picked up by `npm test`), and no global setup: the stack is
// the fault stack that test/fault/run.sh brings up and names in the environment.
const root = require('../../jest.config.cjs');
const { globalSetup: _unused, ...e2e } = root.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  testTimeout: 3600000,
  projects: [{ ...e2e, displayName: 'fault', testMatch: ['<rootDir>/test/fault/**/*.fault.test.ts'] }],
};
