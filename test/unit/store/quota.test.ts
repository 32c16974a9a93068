/** tightestQuota: the quota an admission reports (types.ts `AdmissionResult.quota`, D5, D21). */
import { tightestQuota } from '../../../gateway/store/quota';

const c = (id: string, limit: number) => ({ id, limit });

describe('tightestQuota', () => {
  it('is null without counters', () => {
    expect(tightestQuota([], [])).toBeNull();
  });

  it('D5: key 10/2,500 and network 2,001/2,500 → the network', () => {
    expect(tightestQuota([c('key:k', 2_500), c('network:n', 2_500)], [10, 2_001])).toEqual({
      used: 2_001,
      limit: 2_500,
    });
  });

  it('compares what is left, not what is used: 4/5 is tighter than 8/100', () => {
    expect(tightestQuota([c('a', 100), c('b', 5)], [8, 4])).toEqual({ used: 4, limit: 5 });
  });

  it('a tie in remaining → the first counter', () => {
    expect(tightestQuota([c('a', 5), c('b', 10)], [4, 9])).toEqual({ used: 4, limit: 5 });
    expect(tightestQuota([c('b', 10), c('a', 5)], [9, 4])).toEqual({ used: 9, limit: 10 });
  });

  it('a counter over its limit (a limit lowered during the day) is the tightest', () => {
    expect(tightestQuota([c('a', 5), c('b', 2)], [5, 3])).toEqual({ used: 3, limit: 2 });
  });
});
