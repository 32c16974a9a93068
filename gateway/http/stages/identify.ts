/** Stage: identify (spec 5.1, 5.6, D9): a key, a whitelisted account (B) or the anonymous address. */
import { identify, isRefusal, type Identity, type Refusal as IdentityRefusal } from '../../policy/identity';
import type { RequestContext, Refusal } from '../context';
import { storeFault } from '../fault';

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
    });
  } catch (err) {
    throw storeFault(err);
  }
  if (isRefusal(found)) return found;
  ctx.identity = found;
  ctx.line.identity = found.kind;
  ctx.line.keyId = found.kind === 'key' ? found.key.id : null;
  return null;
}
