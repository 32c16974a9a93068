/**
 * The invalidation bus on a real Redis: every other instance receives a change, the instance that made it does not
 * receive its own message back (it dropped its entries when it made the change, and the echo would discard the
 * identifications it loaded since, for nothing).
 */
import Redis from 'ioredis';
import type { Invalidation } from '../../../gateway/store/shared/cache';
import { InvalidationBus } from '../../../gateway/store/shared/bus';
import { LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';
import { describeShared, msUntil } from './fixture';

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

  it('delivers a change to the other instance and not back to the one that published it', async () => {
    const channel = `${uniquePrefix('bus')}inv`;
    const a = await open(channel);
    const b = await open(channel);
    await a.bus.publish({ k: 'key', hash: 'h1' });
    await a.bus.publish({ k: 'account', id: 'acc-1' });
    // b's message is published after a's two, so when a has it, a's own two would have arrived before it.
    await b.bus.publish({ k: 'whitelist' });
    await msUntil(() => a.got.length >= 1, 'the message on a');
    await msUntil(() => b.got.length >= 2, 'the messages on b');
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
    await msUntil(() => a.got.length >= 2, 'the messages on a');
    expect(a.got).toEqual([{ k: 'key', hash: 'h-old' }, { k: 'all' }]);
  });
});
