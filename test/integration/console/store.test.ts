/**
 * The console port on both stores (embedded SQLite; shared PostgreSQL + Redis): the overview's figures equal the
 * store's own sums (usage and ledger read through the ports) over seeded traffic; recent refusals are bounded (per
 * account and by age); operators are unique by name, case-insensitively.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, utcDay } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { AUDIT_KEEP_MS, AUDIT_MAX_DETAILS, REFUSALS_PER_ACCOUNT } from '../../../gateway/store/console-store';
import type { Store } from '../../../gateway/store/ports';
import type { AdmissionPlan, ApiKey, LedgerEntry } from '../../../gateway/store/types';
import { StoreConflict } from '../../../gateway/store/types';
import { describeShared, sharedEnv, type SharedEnv } from '../shared/harness';

jest.setTimeout(120_000);

const DAY = 86_400_000;
const ANON = 'network:198.51.100.0/24';
const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
let seq = 0;

/** A request of `key` on `accountId` at `now`: 2 free per day on the key's counter, then billed `price`. */
function request(key: ApiKey, now: number, price: number): AdmissionPlan {
  seq += 1;
  return {
    id: `adm_console_${seq}_${now}`,
    now,
    day: utcDay(now),
    slots: [],
    free: [{ id: `key:${key.id}`, limit: 2 }],
    overflow: { kind: 'bill', accountId: key.accountId, price, refuse: 'no_credits' },
    usage: [`key:${key.id}`],
    keyId: key.id,
  };
}

/** Seed three accounts over three days: sign-ups, top-ups, free, billed and refused requests, a package. */
async function seed(store: Store, clock: ManualClock): Promise<{ accounts: string[]; keys: ApiKey[] }> {
  const key = async (accountId: string, n: string) =>
    store.createKey(
      { accountId, hash: `hash-${n}-${accountId}`, prefix: `gk_${n}`, kind: 'payg' },
      clock.now(),
    );
  const a1 = await store.createAccount({ email: 'one@example.org', name: 'One' }, T0 - DAY);
  const a2 = await store.createAccount({ email: 'two@example.org' }, T0);
  const a3 = await store.createAccount({ email: 'three@example.org' }, T0 + DAY);
  const keys = [await key(a1.id, 'Aaaa1'), await key(a1.id, 'Bbbb2'), await key(a2.id, 'Cccc3')];
  await store.credit(a1.id, 5_000, 'seed-1', T0 - DAY + 1000);
  await store.credit(a2.id, 25, 'seed-2', T0 + 1000);
  await store.credit(a1.id, 700, 'seed-3', T0 + DAY + 5000);
  const traffic: [ApiKey, number, number][] = [
    [keys[0] as ApiKey, T0 - DAY + 3_600_000, 7],
    [keys[1] as ApiKey, T0 + 60_000, 4],
    [keys[0] as ApiKey, T0 + DAY + 7_200_000, 3],
    [keys[2] as ApiKey, T0 + 120_000, 6], // 2 free, 2 billed (25 credits at 10), then 2 refused
  ];
  for (const [k, at, n] of traffic) {
    clock.set(at);
    for (let i = 0; i < n; i++) {
      const p = request(k, at + i, 10);
      const r = await store.admit(p);
      if (r.admitted) await store.keep(r.ticket);
      else await store.recordRefusal(p.usage, p.day);
    }
  }
  // Anonymous traffic on a network's counter (1 free a day): 1 served, 2 refused.
  clock.set(T0 + 30_000);
  for (let i = 0; i < 3; i++) {
    seq += 1;
    const p: AdmissionPlan = {
      id: `adm_console_anon_${seq}`,
      now: T0 + 30_000 + i,
      day: utcDay(T0),
      slots: [],
      free: [{ id: ANON, limit: 1 }],
      overflow: { kind: 'refuse', code: 'quota_exceeded' },
      usage: [ANON],
      keyId: null,
    };
    const r = await store.admit(p);
    if (r.admitted) await store.keep(r.ticket);
    else await store.recordRefusal(p.usage, p.day);
  }
  clock.set(T0 + DAY + 8 * 3_600_000);
  await store.buyPackage(
    a1.id,
    1_000,
    {
      accountId: a1.id,
      hash: `hash-pkg-${a1.id}`,
      prefix: 'gk_Pkg01',
      kind: 'unlimited',
      packageUntil: T0 + 40 * DAY,
    },
    clock.now(),
  );
  return { accounts: [a1.id, a2.id, a3.id], keys };
}

function storeRules(
  name: string,
  open: (clock: ManualClock) => Promise<{ store: Store; close(): Promise<void> }>,
) {
  describe(name, () => {
    const clock = new ManualClock(T0);
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open(clock));
    });
    afterAll(async () => close());

    it("the overview equals the store's own sums of usage and ledger over seeded traffic", async () => {
      const { accounts, keys } = await seed(store, clock);
      const from = utcDay(T0 - 2 * DAY);
      const to = utcDay(T0 + 2 * DAY);
      const o = await store.overview(from, to, 10);

      // The store's own reads: usage per key subject, every ledger row of every account.
      const usage = await store.usage(
        keys.map((k) => `key:${k.id}`),
        from,
        to,
      );
      const anon = await store.usage([ANON], from, to);
      const ledger: LedgerEntry[] = [];
      for (const id of accounts) ledger.push(...(await store.ledger(id, 1000)));
      const created = await Promise.all(accounts.map((id) => store.getAccount(id)));

      expect(o.days.map((d) => d.day)).toEqual([0, 1, 2, 3, 4].map((i) => utcDay(T0 + (i - 2) * DAY)));
      for (const d of o.days) {
        const rows = usage.filter((u) => u.day === d.day);
        const lines = ledger.filter((e) => utcDay(e.createdAt) === d.day);
        expect(d).toEqual({
          day: d.day,
          signups: created.filter((a) => a && utcDay(a.createdAt) === d.day).length,
          topups: lines.filter((e) => e.kind === 'topup').length,
          toppedUp: lines.filter((e) => e.kind === 'topup').reduce((s, e) => s + e.amount, 0),
          revenue:
            0 -
            lines
              .filter((e) => e.kind === 'charge' || e.kind === 'package')
              .reduce((s, e) => s + e.amount, 0),
          requests: rows.reduce((s, u) => s + u.free + u.billed, 0),
          refused: rows.reduce((s, u) => s + u.refused, 0),
          anonymous: anon.filter((u) => u.day === d.day).reduce((s, u) => s + u.free + u.billed, 0),
          anonymousRefused: anon.filter((u) => u.day === d.day).reduce((s, u) => s + u.refused, 0),
        });
      }
      // Seeded so the sums are not trivially zero: 20 served requests, 2 refused, three top-ups, a package.
      expect(o.days.reduce((s, d) => s + d.requests, 0)).toBe(18);
      expect(o.days.reduce((s, d) => s + d.refused, 0)).toBe(2);
      expect(o.days.reduce((s, d) => s + d.anonymous, 0)).toBe(1);
      expect(o.days.reduce((s, d) => s + d.anonymousRefused, 0)).toBe(2);
      expect(o.days.reduce((s, d) => s + d.toppedUp, 0)).toBe(5_725);
      const charged = ledger.filter((e) => e.kind === 'charge').reduce((s, e) => s - e.amount, 0);
      expect(charged).toBe((5 + 2 + 1 + 2) * 10);
      expect(o.days.reduce((s, d) => s + d.revenue, 0)).toBe(charged + 1_000);

      expect(o.accounts).toBe(3);
      expect(o.activeAccounts).toBe(3);
      expect(o.usingAccounts).toBe(2);
      expect(o.payingAccounts).toBe(2);
      const perKey = new Map<string, number>();
      for (const u of usage)
        perKey.set(u.subject.slice(4), (perKey.get(u.subject.slice(4)) ?? 0) + u.free + u.billed);
      expect(o.topKeys.map((k) => [k.keyId, k.requests])).toEqual(
        [...perKey].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
      );
      expect(o.topKeys[0]).toMatchObject({ accountId: accounts[0], prefix: 'gk_Aaaa1' });

      await store.setAccountStatus(accounts[2] as string, 'suspended');
      expect((await store.overview(from, to, 1)).activeAccounts).toBe(2);
      expect((await store.overview(from, to, 1)).topKeys).toHaveLength(1);
    });

    it('refuses a malformed or over-long overview period with invalid_input', async () => {
      for (const [a, b] of [
        ['2026-11-20', '2026-11-19'],
        ['2026-1-20', '2026-11-20'],
        ['2024-01-01', '2026-01-01'],
      ] as const) {
        await expect(store.overview(a, b, 10)).rejects.toMatchObject({ reason: 'invalid_input' });
      }
      await expect(store.overview('2026-11-20', '2026-11-20', 0)).rejects.toBeInstanceOf(StoreConflict);
    });

    it('keeps recent refusals bounded: a day old ones pruned, the newest per account kept, counted by code', async () => {
      const now = T0 + 10 * DAY;
      const acc = await store.createAccount({ email: `refusals-${name.length}@example.org` }, now);
      const row = (i: number, at: number, code = 'no_credits') => ({
        accountId: acc.id,
        keyId: null,
        code,
        address: `198.51.100.${i % 250}`,
        host: 'main',
        at,
      });
      await store.recordRefusals([row(0, now - DAY - 1, 'key_ip_limit')], now - 10);
      const batch = Array.from({ length: REFUSALS_PER_ACCOUNT + 30 }, (_, i) =>
        row(i + 1, now - 1000 + i, i % 2 ? 'no_credits' : 'quota_exceeded'),
      );
      await store.recordRefusals(batch, now);
      const kept = await store.recentRefusals(acc.id, now - 2 * DAY, 1000);
      expect(kept).toHaveLength(REFUSALS_PER_ACCOUNT);
      expect(kept[0]).toEqual(
        row(REFUSALS_PER_ACCOUNT + 30, now - 1000 + REFUSALS_PER_ACCOUNT + 29, 'no_credits'),
      );
      expect(kept.some((r) => r.code === 'key_ip_limit')).toBe(false);
      const byCode = await store.refusalsByCode(now - DAY);
      expect(byCode).toEqual({
        no_credits: REFUSALS_PER_ACCOUNT / 2,
        quota_exceeded: REFUSALS_PER_ACCOUNT / 2,
      });
      await expect(store.recentRefusals(acc.id, 0, 0)).rejects.toMatchObject({ reason: 'invalid_input' });
    });

    it('creates operators unique by name (case-insensitive) and finds them', async () => {
      const op = await store.createOperator(
        { name: 'Ada.Ops', role: 'support', passwordHash: 'scrypt$x' },
        T0,
      );
      expect(op).toMatchObject({ name: 'ada.ops', role: 'support', disabledAt: null });
      expect(await store.findOperator('ADA.OPS')).toEqual(op);
      expect(await store.getOperator(op.id)).toEqual(op);
      await expect(
        store.createOperator({ name: 'ada.OPS', role: 'admin', passwordHash: null }, T0),
      ).rejects.toMatchObject({ reason: 'email_taken' });
      await expect(
        store.createOperator({ name: 'no spaces', role: 'admin', passwordHash: null }, T0),
      ).rejects.toMatchObject({ reason: 'invalid_input' });
      expect((await store.listOperators()).map((o) => o.name)).toEqual(['ada.ops']);
      expect(await store.findOperator('x'.repeat(300))).toBeNull();
    });

    it('stores audit lines: newest first, by account, paged by cursor, old ones pruned, bad limits refused', async () => {
      const now = T0 + 200 * DAY;
      const line = (i: number, accountId: string | null, at = now + i) => ({
        at,
        actor: 'operator' as const,
        operator: i % 2 ? 'alex' : null,
        action: i % 2 ? 'account.topped_up' : 'key.revoked',
        accountId,
        object: `obj_${i}`,
        details: { reason: `because ${i}`, units: i * 100, address: '127.0.0.1' },
      });
      // A line older than the retention is pruned by the next write.
      const old = await store.recordAudit(
        line(0, 'acc_auditOld', now - AUDIT_KEEP_MS - 1),
        now - AUDIT_KEEP_MS - 1,
      );
      expect(old.seq).toBeGreaterThan(0);
      const written = [];
      for (let i = 1; i <= 7; i++)
        written.push(await store.recordAudit(line(i, i <= 4 ? 'acc_auditA' : 'acc_auditB'), now + i));
      written.push(await store.recordAudit(line(8, null), now + 8));
      expect(written.map((w) => w.seq)).toEqual([...written.map((w) => w.seq)].sort((a, b) => a - b));
      expect(new Set(written.map((w) => w.seq)).size).toBe(8);

      const all = await store.auditLog({ limit: 200 });
      expect(all.some((e) => e.accountId === 'acc_auditOld')).toBe(false);
      expect(all.slice(0, 8)).toEqual([...written].reverse());
      expect(all[0]).toEqual({ ...line(8, null), seq: written[7]?.seq });

      const a = await store.auditLog({ accountId: 'acc_auditA', limit: 3 });
      expect(a.map((e) => e.object)).toEqual(['obj_4', 'obj_3', 'obj_2']);
      expect(a[1]).toMatchObject({ operator: 'alex', details: { reason: 'because 3', units: 300 } });
      const rest = await store.auditLog({ accountId: 'acc_auditA', limit: 3, before: a[2]?.seq as number });
      expect(rest.map((e) => e.object)).toEqual(['obj_1']);
      expect(await store.auditLog({ accountId: 'acc_nobody', limit: 10 })).toEqual([]);
      expect(await store.auditLog({ accountId: 'acc_' + 'x'.repeat(60), limit: 10 })).toEqual([]);

      // Over-long texts are cut to their columns; over-long details are replaced by a note.
      const long = await store.recordAudit(
        {
          ...line(9, 'acc_auditC'),
          operator: 'o'.repeat(100),
          details: { reason: 'r'.repeat(AUDIT_MAX_DETAILS) },
        },
        now + 9,
      );
      const [stored] = await store.auditLog({ accountId: 'acc_auditC', limit: 1 });
      expect(stored).toEqual(long);
      expect(stored?.operator).toBe('o'.repeat(64));
      expect(stored?.details).toEqual({ truncated: expect.any(Number) });

      for (const q of [{ limit: 0 }, { limit: 201 }, { limit: 10, before: 0 }, { limit: 10, before: 1.5 }])
        await expect(store.auditLog(q)).rejects.toMatchObject({ reason: 'invalid_input' });
    });

    it('finds keys by display prefix and the account of a receipt', async () => {
      const acc = await store.createAccount({ email: 'prefix@example.org' }, T0);
      const k = await store.createKey(
        { accountId: acc.id, hash: `hash-prefix-${acc.id}`, prefix: 'gk_Zq_9x', kind: 'payg' },
        T0,
      );
      expect((await store.findKeysByPrefix('gk_Zq', 10)).map((x) => x.id)).toEqual([k.id]);
      // "_" is no wildcard: gk_Zq_9x is not found by gk_Zq-9.
      expect(await store.findKeysByPrefix('gk_Zq-9', 10)).toEqual([]);
      expect(await store.findKeysByPrefix("gk_'%", 10)).toEqual([]);
      const paid = await store.creditWithReceipt(acc.id, 500, 'receipt-1', T0, {
        method: 'test',
        currency: 'EUR',
      });
      expect(await store.receiptAccount(paid.receipt.number)).toBe(acc.id);
      expect(await store.receiptAccount('2026-999999')).toBeNull();
    });
  });
}

storeRules('console port: embedded store', async (clock) => {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-console-'));
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeShared('console port: shared store', () => {
  storeRules('shared (PostgreSQL + Redis)', async (clock) => {
    const env: SharedEnv = await sharedEnv();
    const store = await env.open({ clock });
    return { store, close: () => env.cleanup() };
  });
});
