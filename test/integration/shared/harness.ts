/** Kept for imports of the old path: test/integration/shared/fixture.ts is canonical. */
export {
  describeShared,
  servicesReachable,
  sharedEnv,
  useSharedEnv,
  type RedisKind,
  type SharedEnv,
  type SharedFixture,
} from './fixture';
