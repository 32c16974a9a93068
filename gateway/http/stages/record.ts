/**
 * The backend's answer read by the call's connector (D25) and, when it is a record, rendered by the host's adapter,
 * before settling: an answer the connector cannot read or the adapter cannot render (not JSON, wrong shape, or the
 * adapter throws) is not an answer given, so it is released (D11, issue 13 item 11; issue 10 item 4).
 */
import type { AdapterResponse, SearchResults } from '../../../adapters/types';
import type { IpRecord, ReverseRecord } from '../../../backend/records';
import type { BackendOutcome } from '../backend';
import type { RequestContext } from '../context';
import type { AnswerKind } from '../settlement';
import { backendFor } from './forward';

/** What the outcome is in D11's words, and the adapter's rendering when it is a record. */
export interface ReadAnswer {
  kind: AnswerKind;
  record: AdapterResponse | null;
}

/** Read an outcome: not an answer → its own kind; an answer → the connector's reading, a record rendered. */
export function readAnswer(ctx: RequestContext, outcome: BackendOutcome): ReadAnswer {
  if (outcome.kind !== 'answer') return { kind: outcome.kind, record: null };
  const backend = backendFor(ctx.host, ctx.call);
  if (backend === null) return { kind: 'unrenderable', record: null };
  const reading = backend.connector.read(ctx.call, outcome.status, outcome.body);
  switch (reading.kind) {
    case 'record': {
      const record = renderRecord(ctx, reading.record);
      return { kind: record === null ? 'unrenderable' : 'record', record };
    }
    case 'results': {
      const record = renderResults(ctx, reading.answer);
      return { kind: record === null ? 'unrenderable' : 'record', record };
    }
    case 'unreadable':
      ctx.deps.logger.warn(
        { call: ctx.call.kind, backend: backend.name, reason: reading.reason, requestId: ctx.requestId },
        'backend answer has no record shape',
      );
      return { kind: 'unrenderable', record: null };
    default:
      return { kind: reading.kind, record: null };
  }
}

/** The adapter's rendering of a record, or null when the adapter throws (logged as a backend fault). */
function renderRecord(ctx: RequestContext, record: ReverseRecord | IpRecord): AdapterResponse | null {
  const adapter = ctx.host.adapter;
  try {
    return ctx.call.kind === 'reverse'
      ? adapter.renderReverse(ctx.state, record as ReverseRecord)
      : adapter.renderIp(ctx.state, record as IpRecord);
  } catch (err) {
    ctx.deps.logger.warn(
      { err, call: ctx.call.kind, requestId: ctx.requestId },
      'backend answer could not be rendered',
    );
    return null;
  }
}

/**
 * The adapter's rendering of a forward lookup's results (an empty list included: "nothing matched" is an answer given,
 * charged like a reverse "no result"), or null when the adapter has none or throws.
 */
function renderResults(ctx: RequestContext, answer: SearchResults): AdapterResponse | null {
  const render = ctx.host.adapter.renderSearch;
  if (render === undefined || ctx.call.kind !== 'search') return null;
  try {
    return render(ctx.state, answer);
  } catch (err) {
    ctx.deps.logger.warn(
      { err, call: 'search', requestId: ctx.requestId },
      'search answer could not be rendered',
    );
    return null;
  }
}
