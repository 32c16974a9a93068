/**
 * The adapter interface: one file per host convention (the main host is the `native` adapter).
 * Adapters are pure functions: they parse a provider request into a backend call, render a backend record in the
 * provider's success format, and render every gateway refusal in the provider's error structure (D24).
 * They never do I/O, never count, never see the store.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import type { ClientTexts } from './common/texts';

/** The parts of an incoming request an adapter may read. Header names are lower-case. */
export interface AdapterRequest {
  method: string;
  /** Decoded-once path without the query string, exactly as received (e.g. "/geocoding/v5/mapbox.places/2.3,48.8.json"). */
  path: string;
  /** Raw query string without "?" (adapters parse it strictly; repeated parameters are visible). */
  query: string;
  headers: Readonly<Record<string, string | undefined>>;
}

/** Where a credential was found: the name is used in D12 errors ("query:key", "header:x-api-key", ...). */
export interface FoundCredential {
  position: string;
  value: string;
}

/** What the backend must be asked. `ip: null` means "the caller's own address" (the gateway fills it in). */
export type BackendCall =
  { kind: 'reverse'; lat: number; lon: number } | { kind: 'ipv4'; ip: string | null } | SearchCall;

/** Structured address parts of a forward lookup, where the provider has them (Nominatim, Geocodio...). */
export interface SearchParts {
  street?: string;
  city?: string;
  county?: string;
  state?: string;
  postcode?: string;
  country?: string;
}

/**
 * The canonical forward lookup (issue 11): free text (or structured parts), how many results, which countries,
 * which language, and where to prefer results. Every connector that can search translates it (D25).
 */
export interface SearchCall {
  kind: 'search';
  /** The free text; with only structured parts, the parts joined by ", " (so every backend has a text). */
  q: string;
  /** Structured parts when the client sent them (Nominatim structured search, Geocodio street/city/...). */
  parts: SearchParts | null;
  /** 1..50. */
  limit: number;
  /** ISO 3166-1 alpha-2 codes, upper case; null: every country. */
  countries: string[] | null;
  /** A language tag (`de`, `pt-BR`) or an accept-language list; null when the client named none. */
  language: string | null;
  /** A point to prefer results near. */
  focus: { lat: number; lon: number } | null;
  /** A box to prefer results inside (or to restrict to, with `bounded`). */
  bounds: SearchBounds | null;
}

/** A bounding box in degrees; `bounded`: only results inside (Nominatim's `bounded=1`). */
export interface SearchBounds {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
  bounded: boolean;
}

/** One result of a forward lookup: a reverse-shaped record (its `query` is the result's own point) plus ranking. */
export interface SearchResult extends ReverseRecord {
  /** How well the result matches, 0..1, as the backend rates it (Nominatim importance, Pelias confidence); null: unrated. */
  relevance: number | null;
  /** The result's extent [minLon, minLat, maxLon, maxLat] where the backend gives one. */
  bbox: [number, number, number, number] | null;
}

/** The answer of a forward lookup: its results, best first (empty: nothing matched), and the data's attribution. */
export interface SearchResults {
  results: SearchResult[];
  attribution: string;
}

/** An HTTP answer produced by an adapter. */
export interface AdapterResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A parsed request: the backend call plus adapter-private state used when rendering (format, language...). */
export interface ParsedRequest<S = unknown> {
  call: BackendCall;
  state: S;
}

export type ParseResult<S> =
  | { ok: true; request: ParsedRequest<S> }
  /**
   * The request is for this adapter but malformed: a gateway error (usually invalid_parameter) to render. `state`,
   * when the adapter could read enough of the request (e.g. the output format), is passed to `renderError`.
   */
  | { ok: false; code: GatewayCode; detail: string; facts?: ErrorFacts; state?: S }
  /** No route of this adapter matches: the gateway answers not_found in the adapter's shape. */
  | null;

export interface Adapter<S = unknown> {
  /** The name used in the YAML `adapter:` field. */
  readonly name: string;
  /**
   * Credentials in the provider's own positions (query parameter, header). The gateway adds the positions the rule
   * set accepts (spec 5.2) and detects conflicts (D12); an adapter returns only its provider-specific ones.
   */
  providerCredentials(req: AdapterRequest): FoundCredential[];
  /** Query parameters that carry a credential on this host and must never reach the backend or a log. */
  readonly credentialParams: readonly string[];
  parse(req: AdapterRequest): ParseResult<S>;
  renderReverse(state: S, record: ReverseRecord): AdapterResponse;
  renderIp(state: S, record: IpRecord): AdapterResponse;
  /** Render a forward lookup's results (issue 11); adapters without forward lookups never parse a search call. */
  renderSearch?(state: S, answer: SearchResults): AdapterResponse;
  /**
   * Render a gateway error in the provider's structure and status (D24). `state` is null when the request could not
   * be parsed. `headers` from the gateway (Retry-After, X-Quota-*, RateLimit*) are merged by the gateway, not here.
   */
  renderError(state: S | null, code: GatewayCode, detail: string, facts: ErrorFacts): AdapterResponse;
  /**
   * Account endpoints (issue 16 item 4: LocationIQ `/v1/balance`, ipinfo `/me`, Nominatim `/status`): a request this
   * returns non-null for is answered by `render`, never counted (gateway/http/stages/account.ts).
   */
  readonly account?: AccountEndpoints<unknown>;
  /**
   * Adds the caller's daily free allowance to a success answer where the provider shows it (OpenCage's `rate` and
   * `X-RateLimit-*`); called only for identities that have one (never for Unlimited keys).
   */
  withRate?(res: AdapterResponse, rate: Rate): AdapterResponse;
  /**
   * The D24 table texts this provider's clients read, which replace the gateway's message (adapters/common/texts.ts);
   * the gateway applies them with `publicMessage` before `renderError`, on every refusal of this host.
   */
  readonly clientTexts?: ClientTexts;
  /**
   * Bulk forms (ipstack `/{ip1},{ip2}`, ipinfo `POST /batch`): one call that is N backend lookups, each counted and
   * billed as one request (gateway/http/stages/bulk.ts, docs/decisions.md).
   */
  readonly bulk?: BulkEndpoints<unknown>;
}

/** One lookup of a bulk call: the key its answer is filed under, its backend call and its rendering state. */
export interface BulkItem<S = unknown> {
  key: string;
  call: BackendCall;
  state: S;
}

/** A parsed bulk call: its lookups (at least one) and the state its refusals are rendered with. */
export interface BulkRequest<S = unknown> {
  items: BulkItem<S>[];
  state: S;
}

/** The answer of one lookup of a bulk call: its record or its error, rendered as a single answer would be. */
export interface BulkAnswer {
  key: string;
  answer: AdapterResponse;
}

/** What a bulk form's parse returns: the call or, as for single requests, a refusal. */
export type BulkParse<S> = { ok: true; bulk: BulkRequest<S> } | ParseResult<never>;

/** A host's bulk form: which requests it is (null: not a bulk call) and how the N answers become one. */
export interface BulkEndpoints<S> {
  /** The bulk call, or a refusal (`refuse`, `methodRefusal`); null (or a single request) is answered not_found. */
  parse(req: AdapterRequest, body: Buffer): BulkParse<S>;
  render(state: S, answers: readonly BulkAnswer[]): AdapterResponse;
  /** Whether a request may be a bulk call (cheap test, so single requests pay nothing more). */
  matches(req: AdapterRequest): boolean;
}

/**
 * A host's account endpoints: which requests they are, and their answers. The state is the endpoint's own; a refusal
 * (unknown key...) is rendered by the adapter's `renderError` with it, so endpoints that need a key use the
 * adapter's parse state type.
 */
export interface AccountEndpoints<S> {
  parse(req: AdapterRequest): AccountRequest<S> | null;
  /** Renders an account endpoint; `view` is null for endpoints that need no key (`needsKey: false`). */
  render(state: S, view: AccountView | null): AdapterResponse;
}

/** An account endpoint of a provider: answered without counting; `needsKey` endpoints identify the caller first. */
export interface AccountRequest<S = unknown> {
  needsKey: boolean;
  state: S;
  /** The endpoint shows the account's detail (balance, Unlimited end, slots): two more store reads. */
  detail?: boolean;
}

/** The daily free allowance as providers show it: limit, remaining, and the Unix second it resets (00:00 UTC). */
export interface Rate {
  limit: number;
  remaining: number;
  reset: number;
}

/** What an account endpoint shows about the caller's key or account, read without counting. */
export interface AccountView {
  /** Today's free allowance; null when the key has none (Unlimited, D5/D17). */
  rate: Rate | null;
  /** Requests counted today (free and billed) to the key, or the account when the rule set counts per account. */
  today: number;
  /** Requests counted this calendar month (UTC), free and billed. */
  month: number;
  /** Requests the account's balance still pays for past the allowance; null when nothing is billed (Unlimited). */
  paid: number | null;
  /** The caller's account detail, for endpoints that ask for it (`AccountRequest.detail`); absent otherwise. */
  detail?: AccountDetail;
}

/** What `GET /v1/account` shows beyond the allowance: whose it is, the balance, Unlimited, the IP slots. */
export interface AccountDetail {
  account: { id: string; status: string };
  /** The key the request carried; null when the caller is identified by a whitelisted address (B). */
  key: { id: string; prefix: string; label: string | null; kind: 'payg' | 'unlimited' } | null;
  /** The prepaid balance: integer units, the amount as people read it, and the unit (EUR or credits). */
  balance: { units: number; amount: string; unit: string };
  /** When the Unlimited package (A) or plan (B) in force ends (epoch ms); null when none is in force. */
  unlimitedUntil: number | null;
  /** Each slot set the caller's requests hold a slot in (the key's; B's Unlimited account address limit). */
  slots: { scope: 'key' | 'account'; capacity: number; inUse: number; nextFreeAt: number | null }[];
  /** When today's free allowance starts again (epoch ms, the next 00:00 UTC). */
  resetsAt: number;
}
