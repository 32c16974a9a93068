/**
 * Rule set B's Unlimited plan bought through another process on the same SQLite file (the dashboard, or another
 * gateway worker): a gateway process that has the account's identity cached sees the new plan end within the key
 * cache's lifetime (D19: under 1 s), and a gateway that decides admission in memory sees it at once when the purchase
 * goes through its own store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { EmbeddedStore } from '../../../gateway/store';
import type { ReceiptInput } from '../../../gateway/store/receipts';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const DAY = 86_400_000;
const CARD: ReceiptInput = { method: 'card', currency: 'credits', paid: { minor: 19_900, currency: 'EUR' } };

let dir: string;
const clock = new ManualClock(T0);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gg-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a period bought through another process on the file is seen by the gateway within 1 s', async () => {
  const gateway = new EmbeddedStore(join(dir, 'g.db'), undefined, { clock, reservationTimeoutMs: 60_000 });
  await gateway.migrate();
  const dashboard = new EmbeddedStore(join(dir, 'g.db'), undefined, { clock });
  await dashboard.migrate();
  try {
    const acc = await gateway.createAccount({ email: 'plan-file@example.org' }, T0);
    await gateway.createKey({ accountId: acc.id, hash: 'h-plan', prefix: 'gk_plan1', kind: 'payg' }, T0);
    expect((await gateway.findKeyByHash('h-plan'))?.account.unlimitedUntil).toBeNull(); // now cached
    await dashboard.buyPlanPeriod(acc.id, { ref: 'stripe:cs_file', days: 30, receipt: CARD }, T0);
    const t0 = performance.now();
    let until = (await gateway.findKeyByHash('h-plan'))?.account.unlimitedUntil;
    while (until !== T0 + 30 * DAY && performance.now() - t0 < 2_000) {
      await new Promise((r) => setTimeout(r, 20));
      until = (await gateway.findKeyByHash('h-plan'))?.account.unlimitedUntil;
    }
    expect(until).toBe(T0 + 30 * DAY);
    expect(performance.now() - t0).toBeLessThan(1_000);
  } finally {
    await dashboard.close();
    await gateway.close();
  }
});

test("a period bought through the gateway's own store shows in its identity at once", async () => {
  const store = new EmbeddedStore(join(dir, 'g.db'), undefined, { clock });
  await store.migrate();
  try {
    const acc = await store.createAccount({ email: 'plan-own@example.org' }, T0);
    await store.createKey({ accountId: acc.id, hash: 'h-own', prefix: 'gk_plan2', kind: 'payg' }, T0);
    expect((await store.findKeyByHash('h-own'))?.account.unlimitedUntil).toBeNull();
    await store.buyPlanPeriod(acc.id, { ref: 'test:own', days: 30, receipt: CARD }, T0);
    expect((await store.findKeyByHash('h-own'))?.account.unlimitedUntil).toBe(T0 + 30 * DAY);
  } finally {
    await store.close();
  }
});
