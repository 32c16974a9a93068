/**
 * Contract: receipts (issue 15 item 3, D31). Every credit and package bought through the receipt-issuing calls has
 * exactly one receipt; numbers are gapless and unique per series (UTC year) under concurrency; a replay returns the
 * first receipt and takes no number; a refused operation takes none; the billing details are a snapshot.
 */
import type { Receipt, ReceiptInput } from '../../gateway/store/receipts';
import type { NewKey } from '../../gateway/store/types';
import type { Store } from '../../gateway/store/ports';
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

const CARD: ReceiptInput = { method: 'card', currency: 'credits', paid: { minor: 1000, currency: 'EUR' } };
const TEST: ReceiptInput = { method: 'test', currency: 'EUR' };

const seqOf = (r: Receipt): number => Number(r.number.split('-')[1]);

/** The next number the series of T0 gives, read by issuing one receipt on a throwaway account. */
async function probe(store: Store): Promise<number> {
  const a = await account(store);
  const r = await store.creditWithReceipt(a.id, 1, null, T0, TEST);
  return seqOf(r.receipt);
}

function packageKey(accountId: string): NewKey {
  return {
    accountId,
    hash: uid('hash_'),
    prefix: 'gk_pkg',
    kind: 'unlimited',
    packageUntil: T0 + 30 * 86_400_000,
  };
}

/** Billing details and receipts. */
export function receiptRules(h: StoreHolder): void {
  describe('receipts', () => {
    it('keeps billing details trimmed, empty as null, and refuses one too long (invalid_input)', async () => {
      const a = await account(h.store);
      expect(await h.store.getBilling(a.id)).toEqual({ name: null, address: null, vatId: null });
      const set = await h.store.setBilling(
        a.id,
        { name: ' Ada Ltd ', address: '1 Road\nTown', vatId: '' },
        T0,
      );
      expect(set).toEqual({ name: 'Ada Ltd', address: '1 Road\nTown', vatId: null });
      expect(await h.store.getBilling(a.id)).toEqual(set);
      await expectConflict(
        h.store.setBilling(a.id, { name: 'x'.repeat(201), address: null, vatId: null }, T0),
        'invalid_input',
      );
      expect(await h.store.getBilling(a.id)).toEqual(set);
      await expectConflict(h.store.getBilling('acc_nope'), 'not_found');
      await expectConflict(h.store.setBilling('acc_nope', set, T0), 'not_found');
    });

    it('issues a numbered receipt with a credit: year-sequence number, amount, method, paid, billing snapshot', async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Ada Ltd', address: '1 Road', vatId: 'DE123456789' }, T0);
      const r = await h.store.creditWithReceipt(a.id, 1000, uid('stripe:'), T0, CARD);
      expect(r.replayed).toBe(false);
      expect(r.balance).toBe(1000);
      expect(r.receipt).toMatchObject({
        accountId: a.id,
        kind: 'topup',
        method: 'card',
        amount: 1000,
        currency: 'credits',
        paid: { minor: 1000, currency: 'EUR' },
        billing: { name: 'Ada Ltd', address: '1 Road', vatId: 'DE123456789' },
        issuedAt: T0,
        sourceId: r.entry.id,
      });
      expect(r.receipt.number).toMatch(/^2026-\d{6}$/);
      // The snapshot: later edits do not change an issued receipt.
      await h.store.setBilling(a.id, { name: 'Other GmbH', address: null, vatId: null }, T0 + 1);
      expect(await h.store.getReceipt(a.id, r.receipt.number)).toEqual(r.receipt);
      const next = await h.store.creditWithReceipt(a.id, 5, null, T0 + 2, TEST);
      expect(next.receipt.billing).toEqual({ name: 'Other GmbH', address: null, vatId: null });
      expect(await h.store.listReceipts(a.id, 10)).toEqual([next.receipt, r.receipt]);
    });

    it('a replay returns the same receipt and takes no number; a mismatched replay takes none either', async () => {
      const a = await account(h.store);
      const ref = uid('btcpay:');
      const first = await h.store.creditWithReceipt(a.id, 700, ref, T0, {
        method: 'crypto',
        currency: 'credits',
      });
      const again = await Promise.all(
        Array.from({ length: 5 }, () =>
          h.store.creditWithReceipt(a.id, 700, ref, T0 + 5, { method: 'crypto', currency: 'credits' }),
        ),
      );
      for (const r of again) {
        expect(r.replayed).toBe(true);
        expect(r.receipt).toEqual(first.receipt);
        expect(r.balance).toBe(700);
      }
      await expectConflict(h.store.creditWithReceipt(a.id, 701, ref, T0, TEST), 'idempotency_mismatch');
      await expectConflict(h.store.creditWithReceipt('acc_nope', 1, null, T0, TEST), 'not_found');
      await expectConflict(h.store.creditWithReceipt(a.id, 0, null, T0, TEST), 'invalid_input');
      expect(await h.store.listReceipts(a.id, 10)).toEqual([first.receipt]);
      // No number was burnt by the replays or the refusals.
      expect(await probe(h.store)).toBe(seqOf(first.receipt) + 1);
    });

    it('numbers concurrent credits of several accounts gaplessly and uniquely', async () => {
      const start = await probe(h.store);
      const accounts = await Promise.all([1, 2, 3, 4].map(() => account(h.store)));
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          h.store.creditWithReceipt(accounts[i % 4]!.id, 10 + i, uid('test:'), T0 + i, TEST),
        ),
      );
      const seqs = results.map((r) => seqOf(r.receipt)).sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 24 }, (_, i) => start + 1 + i));
      for (const r of results) expect(r.receipt.amount).toBe(r.entry.amount);
      const listed = (await Promise.all(accounts.map((x) => h.store.listReceipts(x.id, 100)))).flat();
      expect(listed).toHaveLength(24);
      expect(new Set(listed.map((r) => r.number)).size).toBe(24);
    });

    it('issues a receipt with a package (method balance); an unaffordable package takes no number', async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Pkg Buyer', address: null, vatId: null }, T0);
      await h.store.creditWithReceipt(a.id, 500_000, null, T0, TEST);
      const bal = { method: 'balance', currency: 'EUR' } as const;
      const bought = await h.store.buyPackageWithReceipt(a.id, 490_000, packageKey(a.id), T0 + 1, bal);
      expect(bought.balance).toBe(10_000);
      expect(bought.receipt).toMatchObject({
        kind: 'package',
        method: 'balance',
        amount: 490_000,
        currency: 'EUR',
        paid: null,
        sourceId: bought.key.id,
        billing: { name: 'Pkg Buyer' },
      });
      await expectConflict(
        h.store.buyPackageWithReceipt(a.id, 490_000, packageKey(a.id), T0 + 2, bal),
        'insufficient_balance',
      );
      expect(await probe(h.store)).toBe(seqOf(bought.receipt) + 1);
      expect((await h.store.listReceipts(a.id, 10)).map((r) => r.kind)).toEqual(['package', 'topup']);
    });

    it('numbers each UTC year as its own series; a later receipt of an earlier year continues that series', async () => {
      const a = await account(h.store);
      const in2026 = await probe(h.store);
      const newYear = Date.UTC(2027, 0, 1, 0, 0, 0);
      const first = await h.store.creditWithReceipt(a.id, 1, null, newYear, TEST);
      const second = await h.store.creditWithReceipt(a.id, 1, null, newYear + 1, TEST);
      expect(first.receipt.number).toMatch(/^2027-\d{6}$/);
      expect(seqOf(second.receipt)).toBe(seqOf(first.receipt) + 1);
      const lastOf2026 = await h.store.creditWithReceipt(a.id, 1, null, newYear - 1, TEST);
      expect(lastOf2026.receipt.number).toMatch(/^2026-/);
      expect(seqOf(lastOf2026.receipt)).toBe(in2026 + 1);
    });

    it('pages the receipts newest first after a given receipt, each once, same-millisecond ones included', async () => {
      const a = await account(h.store);
      const b = await account(h.store);
      const made = [];
      // Two pairs share a millisecond: the page boundary orders them by their number within the series.
      for (const at of [T0, T0 + 10, T0 + 10, T0 + 20, T0 + 30, T0 + 30, T0 + 40]) {
        made.push((await h.store.creditWithReceipt(a.id, 1, null, at, TEST)).receipt);
      }
      await h.store.creditWithReceipt(b.id, 1, null, T0 + 25, TEST); // another account's, never listed
      const newest = [...made].reverse();
      expect(await h.store.listReceipts(a.id, 1000)).toEqual(newest);
      const seen = [];
      for (let before: string | undefined; ;) {
        const page = await h.store.listReceipts(a.id, 3, before);
        seen.push(...page);
        if (page.length < 3) break;
        before = page[page.length - 1]?.number;
      }
      expect(seen).toEqual(newest);
      expect(await h.store.listReceipts(a.id, 3, made[0]?.number)).toEqual([]); // the oldest has nothing after it
      const other = (await h.store.listReceipts(b.id, 1))[0]?.number as string;
      await expectConflict(h.store.listReceipts(a.id, 3, other), 'not_found'); // not this account's
      await expectConflict(h.store.listReceipts(a.id, 3, '1999-000001'), 'not_found');
    });

    it("answers null for another account's receipt number and for an unknown one", async () => {
      const a = await account(h.store);
      const b = await account(h.store);
      const r = await h.store.creditWithReceipt(a.id, 3, null, T0, TEST);
      expect(await h.store.getReceipt(b.id, r.receipt.number)).toBeNull();
      expect(await h.store.getReceipt(a.id, '1999-000001')).toBeNull();
      expect(await h.store.getReceipt(a.id, r.receipt.number)).toEqual(r.receipt);
      await expectConflict(h.store.listReceipts('acc_nope', 10), 'not_found');
    });
  });
}
