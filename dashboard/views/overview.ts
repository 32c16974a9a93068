/** The overview: balance, plan, keys at a glance, today's usage. */
import type { UsageReport } from '../services/usage';
import type { KeyJson } from '../services/views';
import { balanceText, priceText } from './credit';
import { html, time } from './html';
import { page, type PageContext } from './layout';

/** The signed-in home page. */
export function overviewPage(
  ctx: PageContext,
  v: {
    balance: number;
    keys: KeyJson[];
    usage: UsageReport;
    unlimitedUntil: string | null;
    welcome: boolean;
  },
): string {
  const active = v.keys.filter((k) => k.status === 'active').length;
  return page(
    ctx,
    '/',
    'Overview',
    html`${v.welcome ? html`<p class="alert ok" role="status">Welcome! Create a key to start, or call the API without one: every address gets ${ctx.rules.limits.freePerDay} free requests a day.</p>` : ''}
      <div class="tiles">
        <a class="tile" href="/credit"><span>Balance</span><strong>${balanceText(ctx, v.balance)}</strong></a>
        <a class="tile" href="/keys"><span>Active keys</span><strong>${active}</strong></a>
        <a class="tile" href="/usage"
          ><span>Free requests today</span><strong>${v.usage.today.free}</strong></a
        >
      </div>
      ${ctx.rules.unlimited === 'account-plan' ? html`<p>Plan: ${v.unlimitedUntil ? html`Unlimited until ${time(v.unlimitedUntil)}` : 'pay-per-use (credits)'}</p>` : ''}
      <p>Counters reset at ${time(v.usage.resetAt)}.</p>
      <p data-price="request">
        Beyond the free allowance: <strong>${priceText(ctx, ctx.rules.limits.pricePerRequest)}</strong> per
        request. <a href="/credit#prices-title">All prices</a>
      </p>
      <p>
        <a class="button" href="/keys">Manage keys</a> <a class="button secondary" href="/credit">Top up</a>
      </p>`,
  );
}
