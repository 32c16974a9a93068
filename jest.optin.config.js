/**
 * Opt-in suites outside `npm test`: `npm run test:nominatim` needs software the setup scripts install;
 * `npm run test:library` installs the packed package with its dependencies into a temporary project;
 * `npm run test:leases` runs the store contract on the shared store with credit leases alone (it is also part of
 * `npm test`, in the integration project).
 */
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
    {
      transform,
      testEnvironment: 'node',
      moduleFileExtensions: ['ts', 'js', 'json'],
      displayName: 'library',
      testMatch: ['<rootDir>/test/optin/library-pack.test.ts'],
    },
    {
      transform,
      testEnvironment: 'node',
      moduleFileExtensions: ['ts', 'js', 'json'],
      displayName: 'leases',
      testMatch: ['<rootDir>/test/integration/shared/leases.contract.test.ts'],
    },
  ],
  testTimeout: 60_000,
};
