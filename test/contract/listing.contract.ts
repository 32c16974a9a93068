/** Contract: admin listings (issue 14): filters, sorting and keyset pagination, identical on both stores. */
import type { AccountQuery, KeyQuery } from '../../gateway/store/listing';
import { accountSortValue } from '../../gateway/store/listing';
import type { Account } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import { account, HOUR, T0, uid } from './helpers';

const N = 1000;

/** Every page of a listing, following the last row of each page as the next page's start. */
async function allPages(h: StoreHolder, base: AccountQuery): Promise<Account[][]> {
  const pages: Account[][] = [];
  let after: AccountQuery['after'];
  for (;;) {
    const page = await h.store.listAccounts({ ...base, ...(after ? { after } : {}) });
    if (page.length === 0) return pages;
    pages.push(page);
    const last = page[page.length - 1] as Account;
    after = { value: accountSortValue(last, base.sort), id: last.id };
  }
}

/** The listing rules. */
export function listingRules(h: StoreHolder): void {
  describe('listing', () => {
    const tag = uid('list').toLowerCase();
    const created: Account[] = [];
    beforeAll(async () => {
      // Many accounts share a creation time (7 distinct times): ties must be broken by id, never dropped or repeated.
      for (let i = 0; i < N; i += 50) {
        const batch = Array.from({ length: Math.min(50, N - i) }, (_, j) =>
          h.store.createAccount(
            { email: `${tag}-${String(i + j).padStart(4, '0')}@Example.org` },
            T0 + ((i + j) % 7),
          ),
        );
        created.push(...(await Promise.all(batch)));
      }
    }, 120_000);
    const base = (o: Partial<AccountQuery> = {}): AccountQuery => ({
      emailPrefix: `${tag}-`,
      sort: 'created',
      order: 'asc',
      limit: 37,
      now: T0,
      ...o,
    });

    it.each([
      ['created', 'asc'],
      ['created', 'desc'],
      ['email', 'asc'],
      ['email', 'desc'],
    ] as const)(
      'pages over %s %s: every one of 1,000 accounts seen exactly once, in a stable order',
      async (sort, order) => {
        const pages = await allPages(h, base({ sort, order }));
        const ids = pages.flat().map((a) => a.id);
        expect(ids).toHaveLength(N);
        expect(new Set(ids).size).toBe(N);
        expect(new Set(ids)).toEqual(new Set(created.map((a) => a.id)));
        expect(pages.slice(0, -1).every((p) => p.length === 37)).toBe(true);
        const keyOf = (a: Account): [string | number, string] => [accountSortValue(a, sort), a.id];
        const sorted = [...pages.flat()].sort((x, y) => {
          const [a, b] = [keyOf(x), keyOf(y)];
          const c = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
          return order === 'asc' ? c : -c;
        });
        expect(ids).toEqual(sorted.map((a) => a.id));
        // The same walk again gives the same sequence.
        expect((await allPages(h, base({ sort, order }))).flat().map((a) => a.id)).toEqual(ids);
      },
      120_000,
    );

    it('filters by e-mail prefix (case-insensitive, wildcards literal), status and created range', async () => {
      const one = created[123] as Account;
      expect((await h.store.listAccounts(base({ emailPrefix: `${tag}-0123@` }))).map((a) => a.id)).toEqual([
        one.id,
      ]);
      expect(await h.store.listAccounts(base({ emailPrefix: `${tag}-01%` }))).toEqual([]);
      expect(await h.store.listAccounts(base({ emailPrefix: `${tag.slice(0, -1)}_` }))).toEqual([]);
      await h.store.setAccountStatus(one.id, 'suspended');
      expect((await h.store.listAccounts(base({ status: 'suspended' }))).map((a) => a.id)).toEqual([one.id]);
      const inRange = await h.store.listAccounts(
        base({ createdFrom: T0 + 2, createdTo: T0 + 3, limit: 1000 }),
      );
      expect(inRange.length).toBeGreaterThan(0);
      expect(inRange.every((a) => a.createdAt === T0 + 2)).toBe(true);
      expect(inRange.length).toBe(created.filter((a) => a.createdAt === T0 + 2).length);
    });

    it('filters by plan: an Unlimited plan (B) or an active Unlimited package key (A) at now', async () => {
      const planned = await account(h.store);
      const packaged = await account(h.store);
      const lapsed = await account(h.store);
      await h.store.setUnlimitedUntil(planned.id, T0 + HOUR);
      await h.store.createKey(
        {
          accountId: packaged.id,
          hash: uid('hash_'),
          prefix: 'gk_u',
          kind: 'unlimited',
          packageUntil: T0 + HOUR,
        },
        T0,
      );
      await h.store.createKey(
        { accountId: lapsed.id, hash: uid('hash_'), prefix: 'gk_l', kind: 'unlimited', packageUntil: T0 - 1 },
        T0 - HOUR,
      );
      const mine = new Set([planned.id, packaged.id, lapsed.id]);
      const q = (unlimited: boolean, now = T0): Promise<Account[]> =>
        h.store.listAccounts({
          sort: 'created',
          order: 'asc',
          limit: 1000,
          now,
          unlimited,
          createdFrom: T0,
          createdTo: T0 + 1,
        });
      expect(
        (await q(true))
          .filter((a) => mine.has(a.id))
          .map((a) => a.id)
          .sort(),
      ).toEqual([planned.id, packaged.id].sort());
      expect((await q(false)).filter((a) => mine.has(a.id)).map((a) => a.id)).toEqual([lapsed.id]);
      expect((await q(true, T0 + HOUR)).filter((a) => mine.has(a.id))).toEqual([]);
    });

    it('lists keys across accounts or of one account, by status and kind at now, paged by creation', async () => {
      const a = await account(h.store);
      const made = [];
      for (let i = 0; i < 5; i++) {
        made.push(
          await h.store.createKey(
            {
              accountId: a.id,
              hash: uid('hash_'),
              prefix: 'gk_p',
              kind: i === 4 ? 'unlimited' : 'payg',
              packageUntil: i === 4 ? T0 + HOUR : null,
            },
            T0 + (i % 2),
          ),
        );
      }
      await h.store.revokeKey((made[0] as { id: string }).id, T0 + 5);
      const q = (o: Partial<KeyQuery>): KeyQuery => ({
        accountId: a.id,
        order: 'asc',
        limit: 2,
        now: T0,
        ...o,
      });
      const seen: string[] = [];
      let after: KeyQuery['after'];
      for (;;) {
        const page = await h.store.listKeyPage(q(after ? { after } : {}));
        if (page.length === 0) break;
        seen.push(...page.map((k) => k.id));
        const last = page[page.length - 1] as { id: string; createdAt: number };
        after = { value: last.createdAt, id: last.id };
      }
      expect(seen.sort()).toEqual(made.map((k) => k.id).sort());
      expect((await h.store.listKeyPage(q({ status: 'revoked', limit: 10 }))).map((k) => k.id)).toEqual([
        made[0]?.id,
      ]);
      expect((await h.store.listKeyPage(q({ kind: 'unlimited', limit: 10 }))).map((k) => k.id)).toEqual([
        made[4]?.id,
      ]);
      expect(await h.store.listKeyPage(q({ kind: 'unlimited', limit: 10, now: T0 + HOUR }))).toEqual([]);
      expect(await h.store.listKeyPage(q({ kind: 'payg', limit: 10, now: T0 + HOUR }))).toHaveLength(5);
    });

    it('an account created during a walk does not shift the pages: the others are still seen exactly once', async () => {
      const seen: string[] = [];
      let after: AccountQuery['after'];
      let inserted = false;
      for (;;) {
        const page = await h.store.listAccounts(base({ ...(after ? { after } : {}), limit: 100 }));
        if (page.length === 0) break;
        seen.push(...page.map((a) => a.id));
        if (!inserted) {
          // Sorts before everything already listed (earliest time) and after (latest): neither may disturb the walk.
          await h.store.createAccount({ email: `${tag}-late-a@example.org` }, T0 - HOUR);
          await h.store.createAccount({ email: `${tag}-late-b@example.org` }, T0 + HOUR);
          inserted = true;
        }
        const last = page[page.length - 1] as Account;
        after = { value: last.createdAt, id: last.id };
      }
      const original = seen.filter((id) => created.some((a) => a.id === id));
      expect(original).toHaveLength(N);
      expect(new Set(original).size).toBe(N);
      expect(seen).toHaveLength(N + 1); // the later one is reached, the earlier one is behind the cursor
    }, 120_000);
  });
}
