/** Jest projects: unit (pure, fast), integration (real PostgreSQL/Redis/processes), e2e (real processes and clients), faults. */
// ts-jest in isolatedModules mode transpiles without type-checking (fast); `npm run lint` type-checks.
const transform = {
  '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: false }],
};
// The node environment plus a record of which file left a handle open (test/jest/environment.js); after the run a
// file that left a child process, server or socket open is named and its handle stopped (report-handles.js). Jest
// runs each global hook once however many projects name it.
const common = {
  transform,
  testEnvironment: '<rootDir>/test/jest/environment.js',
  globalSetup: '<rootDir>/test/jest/setup-handles.js',
  globalTeardown: '<rootDir>/test/jest/report-handles.js',
  moduleFileExtensions: ['ts', 'js', 'json'],
};
module.exports = {
  // forceExit: the last resort after test/jest/report-handles.js, so a leak can never hold a CI run to its timeout.
  forceExit: true,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // Faults against real processes (private redis-server, a freezing proxy to PostgreSQL, kill -9): issue 13.
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.test.ts'] },
  ],
};
