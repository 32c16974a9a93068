/** Opaque page cursors for admin listings: the last row's sort value and id, tied to the listing's order. */
import type { PageAfter } from '../store/listing';
import { invalid } from './problem';

/** Encode where a page ended, for the listing ordered by `order` (e.g. "created:asc"). */
export function encodeCursor(order: string, after: PageAfter): string {
  return Buffer.from(JSON.stringify([order, after.value, after.id]), 'utf8').toString('base64url');
}

/** Decode a cursor given back by the client; one from another order or a damaged one is a 400 on `cursor`. */
export function decodeCursor(order: string, cursor: string): PageAfter {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) {
    throw invalid('cursor', 'is not a cursor this API returned (pass nextCursor unchanged)');
  }
  const [o, value, id] = parsed as unknown[];
  if (o !== order) throw invalid('cursor', 'belongs to a listing with another sort or order');
  if ((typeof value !== 'string' && typeof value !== 'number') || typeof id !== 'string') {
    throw invalid('cursor', 'is not a cursor this API returned (pass nextCursor unchanged)');
  }
  return { value, id };
}
