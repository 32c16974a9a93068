/** Human-readable views of admin API answers. */
import { fields, money, table } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are JSON documented in docs/admin.md */
type J = any;

function planText(plan: J): string {
  if (plan?.plan === 'unlimited') return `unlimited until ${plan.until}`;
  if (plan?.plan === 'credits') return 'credits';
  const active = (plan?.packages ?? []).filter((p: J) => p.active).length;
  return `pay-per-use, ${active} active Unlimited package(s)`;
}

/** D40: a test key is shown TEST in every table and view, so it is never taken for a live one. */
export function modeOf(k: J): string {
  return k.mode === 'test' ? 'TEST' : 'live';
}

function keysTable(keys: J[]): string {
  return table(
    ['ID', 'PREFIX', 'LABEL', 'MODE', 'KIND', 'STATUS', 'PACKAGE UNTIL', 'CREATED'],
    keys.map((k) => [k.id, k.prefix, k.label, modeOf(k), k.kind, k.status, k.packageUntil, k.createdAt]),
  );
}

function slotsTable(slots: J[]): string {
  return table(
    ['ADDRESS', 'FIRST SEEN', 'LAST SEEN', 'FREES AT'],
    slots.map((s) => [s.address, s.firstSeen, s.lastSeen, s.freesAt]),
  );
}

/** An account with its keys (and whitelist and addresses in rule set B). */
export function accountText(a: J): string {
  const parts = [
    fields([
      ['Account', a.id],
      ['E-mail', a.email],
      ['Name', a.name],
      ['Status', a.status],
      ['Balance', money(a.balance)],
      ['Plan', planText(a.plan)],
      ['Created', a.createdAt],
    ]),
  ];
  if (a.plan?.packages?.length) {
    parts.push(
      'Unlimited packages\n' +
        table(
          ['KEY', 'PREFIX', 'UNTIL', 'ACTIVE'],
          a.plan.packages.map((p: J) => [p.keyId, p.prefix, p.until, p.active ? 'yes' : 'no']),
        ),
    );
  }
  parts.push(`Keys\n${keysTable(a.keys ?? [])}`);
  if (a.whitelist) {
    parts.push(
      `Whitelist\n${table(
        ['ID', 'ADDRESS', 'CREATED'],
        a.whitelist.map((w: J) => [w.id, w.address, w.createdAt]),
      )}`,
    );
  }
  if (a.addresses) parts.push(`Addresses (last 24 h)\n${slotsTable(a.addresses)}`);
  return parts.join('\n\n');
}

/** A key with its IP slots. */
export function keyText(k: J): string {
  const head = fields([
    ['Key', k.id],
    ['Account', k.accountId],
    ['Prefix', k.prefix],
    ['Label', k.label],
    ['Mode', modeOf(k)],
    ['Kind', k.kind],
    ['Status', k.status],
    ['Package until', k.packageUntil],
    ['Created', k.createdAt],
    ['Revoked', k.revokedAt],
    ['Rotated', k.rotatedAt],
    ['Old secret until', k.previousSecretUntil],
    ['Expires', k.expiresAt],
  ]);
  if (!Array.isArray(k.slots)) return head;
  return `${head}\n\nIP slots (${k.slots.length} of ${k.slotCapacity} in use)\n${slotsTable(k.slots)}`;
}

/** A key's restrictions (D29): each list, or "any" when empty. */
export function restrictionsText(r: J): string {
  const list = (v: unknown): string => (Array.isArray(v) && v.length > 0 ? v.join('\n') : 'any');
  const head = fields([['Key', r.keyId]]);
  return `${head}\n\nAllowed pages (Origin, else Referer)\n${list(r.referrers)}\n\nAllowed addresses\n${list(r.cidrs)}`;
}

/** A key's own burst limits: each window, or the deployment's key limit when the key has none of its own. */
export function burstText(b: J): string {
  const limit = (v: unknown): string =>
    typeof v === 'number' ? `${v} requests` : "the deployment's key limit";
  return fields([
    ['Per second', limit(b.perSecond)],
    ['Per minute', limit(b.perMinute)],
  ]);
}

/** A newly created key: the value, shown once. */
export function newKeyText(k: J): string {
  const extra: [string, string][] =
    k.price === undefined
      ? []
      : [
          ['Price', money(k.price)],
          ['Balance', money(k.balance)],
        ];
  const test = k.mode === 'test' ? 'TEST ' : '';
  return [
    `New ${test}API key (shown only this once; store it now):`,
    `  ${k.key}`,
    ...(typeof k.googleKey === 'string'
      ? ["The same key for Google's client libraries (AIza shape, D28):", `  ${k.googleKey}`]
      : []),
    '',
    fields([
      ['Key', k.id],
      ['Account', k.accountId],
      ['Prefix', k.prefix],
      ['Label', k.label],
      ['Mode', modeOf(k)],
      ['Kind', k.kind],
      ['Package until', k.packageUntil],
      ...(k.previousSecretUntil ? [['Old secret until', k.previousSecretUntil] as [string, string]] : []),
      ...(k.expiresAt ? [['Expires', k.expiresAt] as [string, string]] : []),
      ...extra,
    ]),
  ].join('\n');
}

/** The result of a top-up. */
export function creditText(c: J): string {
  const note = c.replayed ? ' (replayed: this Idempotency-Key was already applied)' : '';
  return fields([
    ['Account', c.accountId],
    ['Credited', `${money(c.entry.amount)}${note}`],
    ['Entry', c.entry.id],
    ['Balance', money(c.balance)],
  ]);
}

/** A charge row's UTC hour, "2026-11-27 14:00–15:00" (D35), or null. */
function hourText(e: J): string | null {
  if (typeof e.hourStart !== 'string' || typeof e.hourEnd !== 'string') return null;
  return `${e.hourStart.slice(0, 16).replace('T', ' ')}–${e.hourEnd.slice(11, 16)}`;
}

/** A ledger; a charge row (D35) with its requests and UTC hour. */
export function ledgerText(l: J): string {
  return table(
    ['ID', 'KIND', 'AMOUNT', 'REQUESTS', 'HOUR (UTC)', 'KEY', 'REF', 'AT'],
    l.entries.map((e: J) => [
      e.id,
      e.kind,
      e.amount,
      e.count ?? null,
      hourText(e),
      e.keyId,
      e.ref,
      e.createdAt,
    ]),
  );
}

/** An account's credit notes and the totals refunded and owed. */
export function refundsText(r: J): string {
  const totals = fields([
    ['Account', r.accountId],
    ['Refunded', money(r.refunded)],
    ['Owed', money(r.owed)],
  ]);
  const notes = table(
    ['NUMBER', 'REFUNDS', 'REFUNDED', 'REMOVED', 'OWED', 'AT'],
    r.creditNotes.map((n: J) => [n.number, n.creditOf, n.refunded, n.removed, n.owed, n.issuedAt]),
  );
  return `${totals}\n\n${notes}`;
}

/** A plan change. */
export function planChangeText(p: J): string {
  return fields([
    ['Account', p.accountId],
    ['Plan', planText(p.plan)],
  ]);
}

/** A whitelist entry. */
export function whitelistText(w: J): string {
  return fields([
    ['Entry', w.id],
    ['Address', w.address],
    ['Created', w.createdAt],
  ]);
}

/** Usage per day, account totals then per key. */
export function usageText(u: J): string {
  const rows: (string | number)[][] = [];
  for (const d of u.days) {
    rows.push([d.day, 'account', d.free, d.billed, d.refused]);
    for (const [keyId, c] of Object.entries(d.keys as Record<string, J>)) {
      rows.push([d.day, keyId, c.free, c.billed, c.refused]);
    }
  }
  return `Usage of ${u.accountId}, ${u.from} to ${u.to}\n${table(['DAY', 'SUBJECT', 'FREE', 'BILLED', 'REFUSED'], rows)}`;
}
