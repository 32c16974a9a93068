/**
 * GNOME geocode-glib 3.26 (Debian gir1.2-geocodeglib-2.0, driven from python3-gi), unmodified, against the Nominatim
 * drop-in host (issue 16 item 6). Its Nominatim backend takes the server as a constructor argument
 * (geocode_nominatim_new(base_url, maintainer_email)) and requests `<base_url>/reverse?…`. It has no way to send a
 * key (no parameter, no header), so it is served by the anonymous allowance; the keyed cases are listed as not
 * expressible in docs/adapters.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PARIS, PYTHON, runScript, startClientEnv, type ClientEnv, type ScriptOutput } from './env';

let env: ClientEnv;
jest.setTimeout(60_000);

beforeAll(async () => {
  env = await startClientEnv(['nominatim']);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

beforeEach(() => env.nextDay());

/**
 * One run with its own empty XDG cache: geocode-glib caches answers under the user cache directory ("Saving cache file")
 * and would otherwise answer the second request of a case from the first one's cache without sending it.
 */
async function reverse(anonymous: boolean): Promise<ScriptOutput> {
  const cache = mkdtempSync(join(tmpdir(), 'geocode-glib-'));
  try {
    const args = { base_url: env.url('B', 'nominatim', anonymous), lat: PARIS.lat, lon: PARIS.lon };
    return await runScript(PYTHON, 'geocodeglib_reverse.py', [JSON.stringify(args)], {
      XDG_CACHE_HOME: cache,
    });
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/**
 * How geocode-glib reports a refused request: a GIOError G_IO_ERROR_FAILED (code 0) whose message is the HTTP reason
 * phrase (observed with 3.26.3; the body is not read, so the provider's error text never reaches the caller).
 */
const ioFailed = (reason: string) => ({ ok: false, domain: 'g-io-error-quark', code: 0, message: reason });

describe('geocode-glib Nominatim backend → nominatim', () => {
  it('success (anonymous host)', async () => {
    expect(await reverse(true)).toMatchObject({ ok: true, country: 'France', country_code: 'FR' });
  });

  it('no key (a host that requires one): G_IO_ERROR_FAILED with the reason phrase of the 401', async () => {
    expect(await reverse(false)).toEqual(ioFailed('Unauthorized'));
  });

  it('allowance used (anonymous host, second request of the day)', async () => {
    expect(await reverse(true)).toMatchObject({ ok: true });
    expect(await reverse(true)).toEqual(ioFailed('Too Many Requests'));
  });
});
