/**
 * Receipts across instances (issue 15 item 3, D31): two shared-store instances on one PostgreSQL and Redis issue
 * receipts for concurrent top-ups of several accounts, and replays of one top-up through both: the numbers form one
 * gapless run without duplicates, and every replay returns the first receipt.
 */
import { randomBytes } from 'node:crypto';
import type { ReceiptInput } from '../../../gateway/store/receipts';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const CRYPTO: ReceiptInput = { method: 'crypto', currency: 'credits', paid: { minor: 100, currency: 'EUR' } };
const seqOf = (n: string): number => Number(n.split('-')[1]);

describeShared('receipts on two shared-store instances', () => {
  const { env } = useSharedEnv('receipts');

  it('numbers 40 concurrent top-ups over two instances gaplessly; 10 replays over both give one receipt', async () => {
    const [a, b] = [await env.open(), await env.open()];
    const accounts = await Promise.all(
      [0, 1, 2].map((i) =>
        a.createAccount({ email: `r${i}${randomBytes(4).toString('hex')}@example.org` }, T0),
      ),
    );
    const before = await a.creditWithReceipt(accounts[0]!.id, 1, null, T0, CRYPTO);
    const start = seqOf(before.receipt.number);
    const replayed = `btcpay:${randomBytes(6).toString('hex')}`;
    const results = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).creditWithReceipt(
          accounts[i % 3]!.id,
          100,
          `btcpay:inv${i}${randomBytes(3).toString('hex')}`,
          T0 + i,
          CRYPTO,
        ),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).creditWithReceipt(accounts[1]!.id, 500, replayed, T0 + 100, CRYPTO),
      ),
    ]);
    const replays = results.slice(40);
    expect(new Set(replays.map((r) => r.receipt.number)).size).toBe(1);
    expect(replays.filter((r) => !r.replayed)).toHaveLength(1);
    const numbers = new Set(results.map((r) => r.receipt.number));
    expect(numbers.size).toBe(41);
    const seqs = [...numbers].map(seqOf).sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: 41 }, (_, i) => start + 1 + i));
    // Each account's balance is its credits once; its receipts are those credits.
    for (const acc of accounts) {
      const receipts = await b.listReceipts(acc.id, 100);
      const sum = receipts.reduce((s, r) => s + r.amount, 0);
      expect((await a.getAccount(acc.id))?.balance).toBe(sum);
    }
  });
});
