/**
 * The invalidation bus on a real Redis: every other instance receives a change, the instance that made it does not
 * receive its own message back (it dropped its entries when it made the change, and the echo would discard the
 * identifications it loaded since, for nothing).
 */
import Redis from 'ioredis';
import type { Invalidation } from '../../../gateway/store/shared/cache';
import { InvalidationBus } from '../../../gateway/store/shared/bus';
import { LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';
import { describeShared } from './fixture';

jest.setTimeout(20_000);

describeShared('invalidation bus', () => {
  const clients: Redis[] = [];
  const buses: InvalidationBus[] = [];
  afterAll(async () => {
    for (const b of buses) await b.stop();
    for (const c of clients) c.disconnect();
  });

  /** A bus on `channel` and the messages it delivers. */
  async function open(channel: string): Promise<{ bus: InvalidationBus; got: Invalidation[] }> {
    const client = new Redis(LOCAL_REDIS_URL);
    clients.push(client);
    const got: Invalidation[] = [];
    const errors: unknown[] = [];
    const bus = new InvalidationBus(
      client,
      channel,
      (m) => got.push(m),
      (e) => errors.push(e),
    );
    buses.push(bus);
    await bus.start();
    expect(errors).toEqual([]);
    return { bus, got };
  }

  /** Resolve once `got` holds `n` messages (Redis delivers one channel's messages to a subscriber in order). */
  async function until(got: Invalidation[], n: number): Promise<void> {
    const start = Date.now();
    while (got.length < n) {
      if (Date.now() - start > 5_000) throw new Error(`only ${got.length} of ${n} messages arrived`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it('delivers a change to the other instance and not back to the one that published it', async () => {
    const channel = `${uniquePrefix('bus')}inv`;
    const a = await open(channel);
    const b = await open(channel);
    await a.bus.publish({ k: 'key', hash: 'h1' });
    await a.bus.publish({ k: 'account', id: 'acc-1' });
    // b's message is published after a's two, so when a has it, a's own two would have arrived before it.
    await b.bus.publish({ k: 'whitelist' });
    await until(a.got, 1);
    await until(b.got, 2);
    expect(a.got.map((m) => m.k)).toEqual(['whitelist']);
    expect(b.got.map((m) => m.k)).toEqual(['key', 'account']);
    expect(b.got[0]).toMatchObject({ k: 'key', hash: 'h1' });
    expect(b.got[1]).toMatchObject({ k: 'account', id: 'acc-1' });
  });

  it('applies messages from older builds (no sender named) and turns an unreadable one into "drop everything"', async () => {
    const channel = `${uniquePrefix('bus')}inv`;
    const a = await open(channel);
    const raw = new Redis(LOCAL_REDIS_URL);
    clients.push(raw);
    await raw.publish(channel, JSON.stringify({ k: 'key', hash: 'h-old' }));
    await raw.publish(channel, 'not json');
    await until(a.got, 2);
    expect(a.got).toEqual([{ k: 'key', hash: 'h-old' }, { k: 'all' }]);
  });
});
