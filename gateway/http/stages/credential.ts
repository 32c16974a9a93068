/** Stage: credential. Every accepted position (spec 5.2, D2, D2a), conflicts (D12), keys where none is accepted. */
import { findCredential, positionName, positionNames, unacceptedKeyPosition } from '../../policy/credentials';
import type { CredentialPosition } from '../../policy/ruleset';
import type { RequestContext, Refusal } from '../context';

/** Find the request's credential; sets credential. */
export function findRequestCredential(ctx: RequestContext): Refusal | null {
  const { areq, form } = ctx;
  const accepted = ctx.deps.config.rules.credentialPositions;
  const credential = findCredential(areq, accepted, ctx.host.adapter.providerCredentials(areq), form);
  if (credential.kind === 'conflict') {
    const positions = credential.positions.join(', ');
    return {
      code: 'conflicting_credentials',
      detail: `Different keys were sent in ${positions}.`,
      facts: { parameter: positions },
    };
  }
  if (credential.kind === 'none') {
    const unaccepted = unacceptedKeyPosition(areq, accepted, form);
    if (unaccepted !== null) return unacceptedKey(unaccepted, accepted);
  }
  ctx.credential = credential;
  return null;
}

/** Positions as D12 names them in `parameter`. */
const WHERE: Readonly<Record<CredentialPosition, string>> = {
  'x-api-key': 'header:x-api-key',
  bearer: 'header:authorization',
  basic: 'header:authorization',
  'query-key': 'query:key',
  'x-goog-api-key': 'header:x-goog-api-key',
  'form-key': 'form:key',
};

/**
 * A key sent only where this deployment does not read one is refused 401, never served anonymously or as a
 * whitelisted address (spec 5.6 item 4, issue 13 item 12): invalid_key naming the accepted positions, on every host.
 */
function unacceptedKey(position: CredentialPosition, accepted: readonly CredentialPosition[]): Refusal {
  return {
    code: 'invalid_key',
    detail: `This deployment does not accept a key in ${positionName(position)}; send it in ${positionNames(accepted)}.`,
    facts: { parameter: WHERE[position] },
  };
}
