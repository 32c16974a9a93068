/** Opt-in suites outside `npm test` (`npm run test:nominatim`): they need software the setup scripts install. */
const transform = {
  '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: false }],
};
module.exports = {
  projects: [
    {
      transform,
      testEnvironment: 'node',
      moduleFileExtensions: ['ts', 'js', 'json'],
      displayName: 'nominatim',
      testMatch: ['<rootDir>/test/optin/nominatim.test.ts'],
    },
  ],
  testTimeout: 60_000,
};
