/**
 * The lifecycle primitive every per-folder fixture is built on: `useFixture` registers the hooks that start a
 * resource and stop it, and returns a live handle that reads through to the running instance, so a test file
 * declares `const env = useX(...)` once instead of copying a `let` + beforeAll + afterAll block.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** When a fixture starts: once per describe block (`all`, the default) or once per test (`each`). */
export type FixtureScope = 'all' | 'each';

/** Options of `useFixture`. */
export interface FixtureOptions {
  scope?: FixtureScope;
  /** Timeout of the start hook in ms (default 60 s: real processes and databases start slowly). */
  timeoutMs?: number;
}

/**
 * A handle that forwards every property read to `current()`; methods are bound to the running instance. Throws a
 * clear error when read before the fixture started (a test that reads a fixture at module load).
 */
export function live<T extends object>(current: () => T | undefined, what: string): T {
  const target = (): T => {
    const t = current();
    if (t === undefined) throw new Error(`${what} is not running: read it inside a test or hook`);
    return t;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const t = target();
      const v: unknown = Reflect.get(t, prop, t);
      // Prototype methods are bound to the instance; own function values (an Express app, closures) stay as they are.
      const method = typeof v === 'function' && !Object.prototype.hasOwnProperty.call(t, prop);
      return method ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
    set(_, prop, value) {
      return Reflect.set(target(), prop, value);
    },
    has(_, prop) {
      return Reflect.has(target(), prop);
    },
    ownKeys() {
      return Reflect.ownKeys(target());
    },
    getOwnPropertyDescriptor(_, prop) {
      const d = Reflect.getOwnPropertyDescriptor(target(), prop);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
}

/**
 * Registers `start` in beforeAll (or beforeEach) and `stop` in the matching after-hook of the enclosing describe
 * block; returns a live handle on what `start` resolved to. `stop` is skipped when `start` failed.
 */
export function useFixture<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (t: T) => Promise<void> | void,
  opts: FixtureOptions = {},
): T {
  let current: T | undefined;
  const before = opts.scope === 'each' ? beforeEach : beforeAll;
  const after = opts.scope === 'each' ? afterEach : afterAll;
  before(async () => {
    current = await start();
  }, opts.timeoutMs ?? 60_000);
  after(async () => {
    const t = current;
    current = undefined;
    if (t !== undefined) await stop(t);
  });
  return live(() => current, what);
}

/** A temp folder made in beforeAll and removed in afterAll; `onReady` receives its path. */
export function useTempDir(
  prefix: string,
  onReady: (dir: string) => void = () => undefined,
): { path: string } {
  return useFixture(
    `temp dir ${prefix}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      onReady(dir);
      return { path: dir };
    },
    (d) => rmSync(d.path, { recursive: true, force: true }),
  );
}

/** Anything a test starts and must close. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Wraps `start` so that what it starts closes itself: started inside a test (or its beforeEach), it closes after
 * that test; started in a beforeAll, after the file. One the test closed itself is not closed twice.
 */
export function selfClosing<A extends unknown[], T extends Closable>(
  start: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  const perTest = new Set<T>();
  const perFile = new Set<T>();
  let inTest = false;
  const closeAll = async (set: Set<T>): Promise<void> => {
    const open = [...set];
    set.clear();
    for (const t of open) await t.close();
  };
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await closeAll(perTest);
  });
  afterAll(() => closeAll(perFile));
  return async (...args) => {
    const t = await start(...args);
    const set = inTest ? perTest : perFile;
    const close = t.close.bind(t) as (...a: unknown[]) => Promise<void>;
    t.close = (...a: unknown[]) => {
      set.delete(t);
      return close(...a);
    };
    set.add(t);
    return t;
  };
}
