/**
 * The place-search lookup over the build-time index (SearchTables): binary search of the normalised query among the
 * sorted keys (UTF-8 byte order), then the exact key's postings and the postings of every key that starts with the
 * query, best first, pruned by score bounds. Allocates nothing per query.
 */
import type { SearchTables } from '../geodata/model';
import { ALTERNATE_BIT, KEY_BLOCK, twoBytes } from '../geodata/convert-search';
import { EXACT, OWN_NAME, PREFIX } from './score';

/** Largest `limit` a search can ask for. */
export const MAX_SEARCH_LIMIT = 50;
/** Longest normalised query in UTF-8 bytes (queries are at most 200 characters; folding can double some). */
const MAX_QUERY_BYTES = 4096;

/** The best distinct places found by one search, best first (score desc, then place index asc). */
export class TopPlaces {
  readonly place = new Int32Array(MAX_SEARCH_LIMIT);
  readonly score = new Float64Array(MAX_SEARCH_LIMIT);
  /** 1 when the place matched on an alternate name. */
  readonly alternate = new Uint8Array(MAX_SEARCH_LIMIT);
  count = 0;
  limit = 10;

  /** Empties the list for a new search of at most `limit` places. */
  reset(limit: number): void {
    this.count = 0;
    this.limit = limit;
  }

  /** Lowest score kept when full, else -Infinity: a candidate below it cannot enter. */
  get floor(): number {
    return this.count < this.limit ? -Infinity : (this.score[this.count - 1] as number);
  }

  /** Offers a candidate; a place already kept keeps its better score. */
  offer(place: number, score: number, alternate: number): void {
    let n = this.count;
    for (let i = 0; i < n; i++) {
      if (this.place[i] !== place) continue;
      if (score <= (this.score[i] as number)) return;
      this.place.copyWithin(i, i + 1, n);
      this.score.copyWithin(i, i + 1, n);
      this.alternate.copyWithin(i, i + 1, n);
      n = --this.count;
      break;
    }
    let at = n;
    while (at > 0 && before(score, place, this.score[at - 1] as number, this.place[at - 1] as number)) at--;
    if (at >= this.limit) return;
    const end = Math.min(n, this.limit - 1);
    this.place.copyWithin(at + 1, at, end);
    this.score.copyWithin(at + 1, at, end);
    this.alternate.copyWithin(at + 1, at, end);
    this.place[at] = place;
    this.score[at] = score;
    this.alternate[at] = alternate;
    this.count = end + 1;
  }
}

function before(s: number, p: number, s2: number, p2: number): boolean {
  return s > s2 || (s === s2 && p < p2);
}

/** The lookup structure; one instance serves one search at a time (Node's single thread). */
export class SearchIndex {
  private readonly keyText: Uint8Array;
  private readonly keyOffsets: Uint32Array;
  private readonly keyPostings: Uint32Array;
  private readonly postings: Uint32Array;
  private readonly placeScore: Float64Array;
  private readonly blockMax: Float64Array;
  private readonly bucket: Uint32Array;
  private readonly blockCountries: Uint32Array;
  /** Words per block in blockCountries, and the filter's country bits of the current search. */
  private readonly words: number;
  private readonly filter: Uint32Array;
  private filtered = false;
  /** Best blocks of a long prefix range, scanned first so the score floor rises early. */
  private readonly picked = new Int32Array(MAX_SEARCH_LIMIT);
  private readonly encoder = new TextEncoder();
  private readonly q = new Uint8Array(MAX_QUERY_BYTES);
  private qLen = 0;

  constructor(
    tables: SearchTables,
    /** Country index per place (PlaceTables.country). */
    private readonly placeCountry: Uint16Array,
  ) {
    this.keyText = tables.keyText;
    this.keyOffsets = tables.keyOffsets;
    this.keyPostings = tables.keyPostings;
    this.postings = tables.postings;
    this.placeScore = tables.placeScore;
    this.blockMax = tables.blockMax;
    this.bucket = tables.bucket;
    this.blockCountries = tables.blockCountries;
    this.words = Math.max(1, tables.blockCountries.length / Math.max(1, tables.blockMax.length));
    this.filter = new Uint32Array(this.words);
  }

  /** Sets the filter bits from the country mask (indexes past the tables' countries have no places anyway). */
  private setFilter(mask: Uint8Array | null): void {
    this.filtered = mask !== null;
    if (mask === null) return;
    this.filter.fill(0);
    const n = Math.min(mask.length, this.words * 32);
    for (let c = 0; c < n; c++)
      if (mask[c] === 1) this.filter[c >>> 5] = ((this.filter[c >>> 5] as number) | (1 << (c & 31))) >>> 0;
  }

  /** False when the filter is on and no posting of block b is in a filtered country. */
  private blockMayMatch(b: number): boolean {
    if (!this.filtered) return true;
    const at = b * this.words;
    for (let w = 0; w < this.words; w++)
      if (((this.blockCountries[at + w] as number) & (this.filter[w] as number)) !== 0) return true;
    return false;
  }

  /** Number of distinct keys (normalised names). */
  get keyCount(): number {
    return this.keyOffsets.length - 1;
  }

  /**
   * Fills `out` with the best places for a normalised query (normaliseName), limited to the countries whose index
   * is set in `countryMask` (null: all).
   */
  search(key: string, countryMask: Uint8Array | null, out: TopPlaces): void {
    const { read, written } = this.encoder.encodeInto(key, this.q);
    if (read !== key.length || written === 0) return;
    this.qLen = written;
    this.setFilter(countryMask);
    const keys = this.keyOffsets.length - 1;
    const q = this.q;
    const first = twoBytes(q, 0, written);
    let from = this.lowerBound(this.bucket[first] as number, this.bucket[first + 1] as number);
    if (from < keys && this.compare(from) === 0) {
      this.scanKey(from, EXACT, countryMask, out);
      from++;
    }
    if (out.count === out.limit && out.floor >= EXACT) return;
    const end = this.prefixEnd(from, keys);
    const firstBlock = Math.ceil(from / KEY_BLOCK);
    const endBlock = Math.floor(end / KEY_BLOCK);
    const picked = endBlock - firstBlock > 4 ? this.pickBlocks(firstBlock, endBlock, out.limit) : 0;
    for (let i = 0; i < picked; i++) {
      const b = this.picked[i] as number;
      this.scanKeys(b * KEY_BLOCK, (b + 1) * KEY_BLOCK, countryMask, out);
    }
    for (let k = from; k < end;) {
      if (k % KEY_BLOCK === 0 && k + KEY_BLOCK <= end) {
        const b = k / KEY_BLOCK;
        if (
          PREFIX + (this.blockMax[b] as number) >= out.floor &&
          !this.wasPicked(b, picked) &&
          this.blockMayMatch(b)
        )
          this.scanKeys(k, k + KEY_BLOCK, countryMask, out);
        k += KEY_BLOCK;
        continue;
      }
      this.scanKeys(k, k + 1, countryMask, out);
      k++;
    }
  }

  /** Prefix matches among keys [from, to): each key whose best posting can still enter the list. */
  private scanKeys(from: number, to: number, mask: Uint8Array | null, out: TopPlaces): void {
    const postings = this.postings;
    const starts = this.keyPostings;
    for (let k = from; k < to; k++) {
      if (PREFIX + this.staticScore(postings[starts[k] as number] as number) >= out.floor)
        this.scanKey(k, PREFIX, mask, out);
    }
  }

  /** Puts the (at most `limit`) blocks of [firstBlock, endBlock) with the highest maxima into `picked`, best first. */
  private pickBlocks(firstBlock: number, endBlock: number, limit: number): number {
    const picked = this.picked;
    const max = this.blockMax;
    let n = 0;
    for (let b = firstBlock; b < endBlock; b++) {
      const m = max[b] as number;
      if (n === limit && m <= (max[picked[n - 1] as number] as number)) continue;
      if (!this.blockMayMatch(b)) continue;
      let at = n < limit ? n++ : n - 1;
      while (at > 0 && m > (max[picked[at - 1] as number] as number)) {
        picked[at] = picked[at - 1] as number;
        at--;
      }
      picked[at] = b;
    }
    return n;
  }

  private wasPicked(b: number, picked: number): boolean {
    for (let i = 0; i < picked; i++) if (this.picked[i] === b) return true;
    return false;
  }

  /** Own-name bonus + population term of a posting. */
  private staticScore(posting: number): number {
    const own = (posting & ALTERNATE_BIT) === 0 ? OWN_NAME : 0;
    return own + (this.placeScore[posting & ~ALTERNATE_BIT] as number);
  }

  private scanKey(k: number, base: number, mask: Uint8Array | null, out: TopPlaces): void {
    const end = this.keyPostings[k + 1] as number;
    for (let j = this.keyPostings[k] as number; j < end; j++) {
      const posting = this.postings[j] as number;
      const score = base + this.staticScore(posting);
      if (score < out.floor) return; // postings are best first
      const place = posting & ~ALTERNATE_BIT;
      if (mask !== null && mask[this.placeCountry[place] as number] !== 1) continue;
      out.offer(place, score, posting >>> 31);
    }
  }

  /** Key k compared with the query bytes (<0, 0, >0). */
  private compare(k: number): number {
    const t = this.keyText;
    const q = this.q;
    const at = this.keyOffsets[k] as number;
    const len = (this.keyOffsets[k + 1] as number) - at;
    const n = len < this.qLen ? len : this.qLen;
    for (let i = 0; i < n; i++) {
      const d = (t[at + i] as number) - (q[i] as number);
      if (d !== 0) return d;
    }
    return len - this.qLen;
  }

  /** True when key k starts with the query. */
  private hasPrefix(k: number): boolean {
    const t = this.keyText;
    const q = this.q;
    const at = this.keyOffsets[k] as number;
    if ((this.keyOffsets[k + 1] as number) - at < this.qLen) return false;
    for (let i = 0; i < this.qLen; i++) if (t[at + i] !== q[i]) return false;
    return true;
  }

  /** First key ≥ the query within [lo, hi) (the bucket of its first two bytes). */
  private lowerBound(lo: number, hi: number): number {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * First key at or after `from` that does not start with the query (keys with a prefix are contiguous): galloping
   * from `from`, since most prefix ranges are short.
   */
  private prefixEnd(from: number, keys: number): number {
    if (from >= keys || !this.hasPrefix(from)) return from;
    let lo = from; // lo always starts with the query
    let step = 1;
    while (lo + step < keys && this.hasPrefix(lo + step)) {
      lo += step;
      step *= 2;
    }
    let hi = Math.min(keys, lo + step); // hi does not start with the query (or is the end)
    lo++;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.hasPrefix(mid)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
