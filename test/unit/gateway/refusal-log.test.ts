/** The recent-refusals buffer: bounded, written in one batch per flush, a failed write dropped and counted. */
import pino from 'pino';
import { ManualClock } from '../../../gateway/core/clock';
import { REFUSAL_BUFFER, RefusalLog } from '../../../gateway/http/refusal-log';
import type { RefusalRecord } from '../../../gateway/store/ports/console';

const row = (i: number): RefusalRecord => ({
  accountId: 'acc_1',
  keyId: null,
  code: 'no_credits',
  address: `192.0.2.${i % 250}`,
  host: 'main',
  at: i,
});

describe('RefusalLog', () => {
  it('writes what was noted in one batch with the clock time, then nothing more', async () => {
    const batches: [RefusalRecord[], number][] = [];
    const log = new RefusalLog(
      { recordRefusals: async (rows, now) => void batches.push([[...rows], now]) },
      new ManualClock(42),
      pino({ level: 'silent' }),
    );
    log.note(row(1));
    log.note(row(2));
    await log.flush();
    await log.flush();
    expect(batches).toEqual([[[row(1), row(2)], 42]]);
  });

  it(`holds at most ${REFUSAL_BUFFER} between writes and counts what it drops`, async () => {
    let written = 0;
    const log = new RefusalLog(
      { recordRefusals: async (rows) => void (written += rows.length) },
      new ManualClock(0),
      pino({ level: 'silent' }),
    );
    for (let i = 0; i < REFUSAL_BUFFER + 7; i++) log.note(row(i));
    await log.stop();
    expect([written, log.dropped]).toEqual([REFUSAL_BUFFER, 7]);
  });

  it('drops a batch the store refuses and counts it; later batches are written', async () => {
    let fail = true;
    const seen: number[] = [];
    const log = new RefusalLog(
      {
        recordRefusals: async (rows) => {
          if (fail) throw new Error('store down');
          seen.push(rows.length);
        },
      },
      new ManualClock(0),
      pino({ level: 'silent' }),
    );
    log.note(row(1));
    log.note(row(2));
    await log.flush();
    fail = false;
    log.note(row(3));
    await log.flush();
    expect([log.dropped, seen]).toEqual([2, [1]]);
  });
});
