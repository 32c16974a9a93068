/**
 * The key-expiry reminder of the notification sweep, on both stores (a temp SQLite file; PostgreSQL + Redis): two
 * "instances" (two Notifications over two store connections) sweep at once, and the owner of a key ending within
 * the reminder's days is told once, by e-mail, with the key and its end; a key ending later, a revoked key and a
 * key with no end are not; a new end date is reminded of again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { Notifications } from '../../../gateway/notify';
import { notificationsConfigSchema } from '../../../gateway/notify/config';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store/index';
import type { Store } from '../../../gateway/store/ports';
import { describeShared, sharedEnv, T0 } from './fixture';

jest.setTimeout(60_000);

const DAY = 86_400_000;

/** Where the notices' e-mails go (the delivery worker's mailer). */
class Outbox {
  readonly sent: { to: string; subject: string; text: string }[] = [];
  async sendNotice(to: string, subject: string, text: string): Promise<void> {
    this.sent.push({ to, subject, text });
  }
}

async function scenario(stores: [Store, Store], clock: ManualClock): Promise<void> {
  const [s1, s2] = stores;
  const outbox = new Outbox();
  const config = notificationsConfigSchema.parse({ keyExpiryReminderDays: 7 });
  const logger = { warn: (o: object, msg?: string) => void console.warn(msg, o) };
  const instances = stores.map(
    (store) => new Notifications({ store, rules: RULE_SET_A, clock, config, mailer: outbox, logger }),
  );
  const a = await s1.createAccount({ email: `owner-${Date.now()}@example.org` }, T0);
  const key = (label: string, expiresAt?: number) =>
    s1.createKey(
      {
        accountId: a.id,
        hash: `hash-${label}-${Math.random()}`,
        prefix: 'gk_remnd',
        label,
        kind: 'payg',
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
      T0,
    );
  const soon = await key('soon', T0 + 3 * DAY);
  await key('later', T0 + 9 * DAY);
  await key('forever');
  const revoked = await key('revoked', T0 + 2 * DAY);
  await s1.revokeKey(revoked.id, T0);
  const revokedNotices = () => outbox.sent.filter((m) => m.subject === 'A key was revoked');

  await Promise.all([...instances.map((n) => n.sweep()), ...instances.map((n) => n.sweep())]);
  await Promise.all(instances.map((n) => n.sweep()));
  for (let i = 0; i < 3; i++) await Promise.all(instances.map((n) => n.worker.tick()));
  const reminders = () => outbox.sent.filter((m) => m.subject === 'A key ends soon');
  expect(reminders()).toHaveLength(1);
  expect(reminders()[0]?.to).toBe(a.email);
  expect(reminders()[0]?.text).toContain(soon.id);
  expect(reminders()[0]?.text).toContain(new Date(T0 + 3 * DAY).toISOString());
  expect(reminders()[0]?.text).not.toContain('later');
  expect((await s2.deliveryLog(a.id, 10)).filter((l) => l.type === 'key.expiring')).toHaveLength(1);
  expect(revokedNotices()).toHaveLength(0); // revoked before notifications existed: nothing else was told

  // Two days on, the later key enters the window: told once too.
  clock.set(T0 + 2 * DAY + 1);
  await Promise.all(instances.map((n) => n.sweep()));
  for (let i = 0; i < 3; i++) await Promise.all(instances.map((n) => n.worker.tick()));
  expect(reminders().map((m) => m.text.includes('"later"'))).toEqual([false, true]);

  // A new end date for the first key is reminded of again, once.
  await s2.setKeyExpiry(soon.id, T0 + 6 * DAY);
  await Promise.all(instances.map((n) => n.sweep()));
  await Promise.all(instances.map((n) => n.sweep()));
  for (let i = 0; i < 3; i++) await Promise.all(instances.map((n) => n.worker.tick()));
  expect(reminders()).toHaveLength(3);
  expect(reminders()[2]?.text).toContain(new Date(T0 + 6 * DAY).toISOString());
  for (const n of instances) await n.stop();
}

describe('key-expiry reminder on the embedded store', () => {
  test('two instances on one SQLite file remind the owner once per key and end date', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geogate-remind-'));
    const clock = new ManualClock(T0);
    const file = join(dir, 'store.sqlite');
    const s1 = await createStore({ kind: 'embedded', path: file }, { clock });
    const s2 = await createStore({ kind: 'embedded', path: file }, { clock });
    try {
      await scenario([s1, s2], clock);
    } finally {
      await s1.close();
      await s2.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeShared('key-expiry reminder on the shared store', () => {
  test('two instances on one PostgreSQL remind the owner once per key and end date', async () => {
    const env = await sharedEnv();
    const clock = new ManualClock(T0);
    try {
      const s1 = await env.open({ clock });
      const s2 = await env.open({ clock });
      await scenario([s1, s2], clock);
    } finally {
      await env.cleanup();
    }
  });
});
