/** Rule set B: the whitelist page. */
import type { WhitelistJson } from '../services/views';
import { dataTable, html, time } from './html';
import { field, page, type PageContext } from './layout';

/** The entries with add and remove forms; a refused address is shown next to the field (D18). */
export function whitelistPage(
  ctx: PageContext,
  entries: WhitelistJson[],
  form: { address?: string; error?: string; message?: string } = {},
): string {
  const rows = entries.map(
    (e) =>
      html`<tr>
        <td data-label="Address"><code>${e.address}</code></td>
        <td data-label="Added">${time(e.createdAt)}</td>
        <td>
          <form method="post" action="/whitelist/${e.id}/delete">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" /><button
              type="submit"
              class="small danger"
              aria-label="Remove ${e.address}"
            >
              Remove
            </button>
          </form>
        </td>
      </tr>`,
  );
  return page(
    ctx,
    '/whitelist',
    'Whitelist',
    html`<p>
        Requests without a key from these addresses are counted on your account. Changes take effect within a
        minute.
      </p>
      ${form.message ? html`<p class="alert ok" role="status">${form.message}</p>` : ''}
      <form method="post" action="/whitelist" class="card inline">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        ${field({ name: 'address', label: 'Address', value: form.address ?? '', error: form.error, hint: `An IPv4 address, or an IPv6 address or block up to /${ctx.rules.limits.whitelistMinIpv6Prefix} (e.g. 2001:db8:1:2::/64).`, required: true })}
        <button type="submit">Add</button>
      </form>
      ${dataTable('whitelist', ['Address', 'Added', ''], rows, 'No addresses yet.')}`,
  );
}
