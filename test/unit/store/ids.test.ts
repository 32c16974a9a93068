/** Store ids: opaque, unique; the per-request ones (ledger rows, admission plans) sort by creation time. */
import { newId, newOrderedId } from '../../../gateway/store/ids';

describe('store ids', () => {
  it('gives a prefix and 80 random bits, never twice', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('acc'));
    expect(ids.every((id) => /^acc_[0-9a-f]{20}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('orders ledger and plan ids by creation time (newest leaf of an index), unique within one millisecond', async () => {
    const first = Array.from({ length: 2_000 }, () => newOrderedId('led'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newOrderedId('led');
    expect(first.every((id) => /^led_[0-9a-f]{32}$/.test(id) && id.length <= 40)).toBe(true);
    expect(new Set(first).size).toBe(first.length);
    expect(first.every((id) => id < later)).toBe(true);
    expect(newOrderedId('adm')).toMatch(/^adm_[0-9a-f]{32}$/);
    const ms = Number.parseInt(later.slice(4, 16), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(1_000);
  });
});
