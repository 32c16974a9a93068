/** The overview: balance, plan, keys at a glance, today's usage. */
import type { OverviewState } from '../services/overview';
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
    state: OverviewState;
  },
): string {
  const active = v.keys.filter((k) => k.status === 'active').length;
  const s = v.state;
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const nf = new Intl.NumberFormat('en');
  const hour = s.refusing?.lastPaidHour ?? null;
  const paid =
    hour === null
      ? ''
      : html` The balance last paid in the hour
          <span data-last-paid>${hhmm(hour)}–${hhmm(hour + 3_600_000)} UTC</span>.`;
  const since = s.refusing?.since ?? null;
  const sinceText =
    since === null
      ? ''
      : html` Refused since <span data-refused-since>${hhmm(since)} UTC</span>: top up to end it.`;
  const burnText = s.burn
    ? s.burn.days === 0
      ? 'runs out today'
      : `≈ ${nf.format(s.burn.days)} days at the last 7 days' rate`
    : 'no paid requests in the last 7 days';
  const burn = html`<small data-burn>${burnText}</small>`;
  const free = html`<strong data-free
    >${nf.format(s.free.used)} used / ${nf.format(s.free.left)} left</strong
  >`;
  return page(
    ctx,
    '/',
    'Overview',
    html`${v.welcome ? html`<p class="alert ok" role="status">Welcome! Create a key to start, or call the API without one: every address gets ${ctx.rules.limits.freePerDay} free requests a day.</p>` : ''}
      ${
        s.refusing
          ? html`<div class="alert error refusing" role="alert" data-refusing>
              <p>
                <strong>Requests are being refused</strong> (${nf.format(s.refusing.count)} today): the free
                requests are used and the balance is empty.${paid}${sinceText}
              </p>
              <p><a class="button" href="/credit">Top up</a></p>
            </div>`
          : ''
      }
      <div class="tiles">
        <a class="tile" href="/credit"
          ><span>Balance</span><strong>${balanceText(ctx, v.balance)}</strong>${burn}</a
        >
        <a class="tile" href="/keys"><span>Active keys</span><strong>${active}</strong></a>
        <a class="tile" href="/usage"><span>Free requests today</span>${free}</a>
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
