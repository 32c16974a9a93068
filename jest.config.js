/** Jest projects: unit (pure, fast), integration (real PostgreSQL/Redis/processes), e2e (real processes and clients), faults. */
// ts-jest in isolatedModules mode transpiles without type-checking (fast); `npm run lint` type-checks.
const transform = {
  '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: false }],
};
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // Faults against real processes (private redis-server, a freezing proxy to PostgreSQL, kill -9): issue 13.
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.test.ts'] },
  ],
};
