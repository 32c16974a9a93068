/** Accounts: sign-up, lookup, detail, suspension, ledger. */
import type { Router } from 'express';
import { hashPassword } from '../../accounts/password';
import type { RouteDeps } from '../deps';
import { AdminProblem, invalid } from '../problem';
import { operator } from '../actor';
import { route } from '../http';
import * as v from '../validate';
import { accountSummary, keyView, ledgerView, planView, slotView, whitelistView } from '../views';
import type { Account } from '../../store/types';
import { param } from './common';

/** The full account view: summary, plan, keys, and in B the whitelist and the account's addresses. */
export async function accountDetail(deps: RouteDeps, account: Account) {
  const { rules, clock, accounts } = deps;
  const now = clock.now();
  const keys = await deps.store.listKeys(account.id);
  const detail = {
    ...accountSummary(rules, account),
    plan: planView(rules, account, keys, now),
    keys: keys.map((k) => keyView(k, now)),
  };
  if (!rules.whitelist) return detail;
  const whitelist = await accounts.whitelist(account.id);
  const addresses = await accounts.accountAddresses(account.id);
  return { ...detail, whitelist: whitelist.map(whitelistView), addresses: addresses.map(slotView) };
}

/** Sign-up fields: A needs e-mail, name and password; B only an e-mail (name/password refused, not ignored). */
async function signup(deps: RouteDeps, body: unknown) {
  const b = v.parseBody(body, ['email', 'name', 'password']);
  const email = v.email(b.email);
  if (!deps.rules.signupNeedsNameAndPassword) {
    for (const f of ['name', 'password'] as const) {
      if (b[f] !== undefined) throw invalid(f, `rule set ${deps.rules.name} asks only for an e-mail address`);
    }
    return { email, name: null, passwordHash: null };
  }
  const name = v.name(b.name);
  const passwordHash = await hashPassword(v.password(b.password));
  return { email, name, passwordHash };
}

/** Register the account routes. */
export function accountRoutes(router: Router, deps: RouteDeps): void {
  const { store, rules, clock, accounts } = deps;

  route(router, '/accounts', {
    post: async (req, res) => {
      const account = await store.createAccount(await signup(deps, req.body), clock.now());
      accounts.audit(operator(req, res), 'account.created', { account: account.id });
      res
        .status(201)
        .location(`/admin/accounts/${account.id}`)
        .json(await accountDetail(deps, account));
    },
    get: async (req, res) => {
      const q = v.parseQuery(req.query, ['email']);
      if (q.email === undefined) throw invalid('email', 'is required (look an account up by e-mail)');
      const account = await store.findAccountByEmail(v.email(q.email));
      if (!account) throw new AdminProblem('not_found', 'no account with this e-mail address');
      res.json(await accountDetail(deps, account));
    },
  });

  route(router, '/accounts/:id', {
    get: async (req, res) => {
      res.json(await accountDetail(deps, await accounts.account(param(req, 'id'))));
    },
  });

  for (const [action, status] of [
    ['suspend', 'suspended'],
    ['reinstate', 'active'],
  ] as const) {
    route(router, `/accounts/:id/${action}`, {
      post: async (req, res) => {
        v.parseBody(req.body, []);
        const account = await accounts.account(param(req, 'id'));
        const updated = await store.setAccountStatus(account.id, status);
        const audited = status === 'active' ? 'account.reinstated' : 'account.suspended';
        accounts.audit(operator(req, res), audited, { account: account.id });
        res.json(await accountDetail(deps, updated));
      },
    });
  }

  route(router, '/accounts/:id/ledger', {
    get: async (req, res) => {
      const q = v.parseQuery(req.query, ['limit']);
      const limit = q.limit === undefined ? 100 : Number(q.limit);
      if (!/^[0-9]{1,4}$/.test(q.limit ?? '100') || limit < 1 || limit > 1000) {
        throw invalid('limit', 'must be a whole number from 1 to 1000');
      }
      const account = await accounts.account(param(req, 'id'));
      const entries = await store.ledger(account.id, limit);
      res.json({ accountId: account.id, entries: entries.map((e) => ledgerView(rules, e)) });
    },
  });
}
