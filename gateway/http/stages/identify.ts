/**
 * Stage: identify (spec 5.1, 5.6, D9): a key, a whitelisted account (B) or the anonymous address; then the key's
 * restrictions (D29), refused like the other identity refusals (nothing recorded, D10).
 */
import { identify, isRefusal, type Identity, type Refusal as IdentityRefusal } from '../../policy/identity';
import type { RequestContext, Refusal } from '../context';
import { storeFault } from '../fault';
import { breach } from '../../policy/restrictions';

/** Identify the caller; sets identity and the log line's identity. A store fault is thrown. */
export async function identifyCaller(
  ctx: RequestContext,
  anonymousAllowed = ctx.host.anonymous,
): Promise<Refusal | null> {
  const { config, store } = ctx.deps;
  let found: Identity | IdentityRefusal;
  try {
    found = await identify({
      rules: config.rules,
      store,
      pepper: config.keyPepper,
      credential: ctx.credential,
      address: ctx.address,
      anonymousAllowed,
      clock: ctx.deps.clock,
    });
  } catch (err) {
    throw storeFault(err);
  }
  if (isRefusal(found)) return found;
  // D29: after identification, before admission. A key without restrictions costs this one check.
  if (found.kind === 'key' && found.key.restrictions !== undefined) {
    const detail = breach(found.key.restrictions, ctx.req.headers, ctx.address);
    if (detail !== null) return { code: 'key_restricted', detail };
  }
  ctx.identity = found;
  ctx.line.identity = found.kind;
  ctx.line.keyId = found.kind === 'key' ? found.key.id : null;
  return null;
}
