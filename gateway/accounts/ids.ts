/**
 * Ids in request paths (issue 13 item 10), checked before any store call by the admin API and the dashboard alike.
 * An id is what the store issues (short ASCII: letters, digits, "_" and "-"); anything else, including undecodable
 * escapes (`%ZZ`) and control characters (`acc_%00`), is malformed.
 */
const ID_CHARS = /^[A-Za-z0-9_-]+$/;
/** Store ids are far shorter; a longer well-formed id cannot exist (404 without a store call). */
const MAX_ID_LENGTH = 64;

/** Path segment → the name of the id parameter that follows it. */
export type IdSegments = Readonly<Record<string, string>>;

/** A raw (still percent-encoded) path segment decoded, or null when it is not valid percent-encoded UTF-8. */
function decoded(raw: string): string | null {
  if (raw.indexOf('%') < 0) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** What is wrong with the ids of a raw path: the first malformed or over-long one, or null when all are fine. */
export function pathIdProblem(
  rawPath: string,
  segments: IdSegments,
): { field: string; malformed: boolean } | null {
  const parts = rawPath.split('/');
  for (let i = 0; i + 1 < parts.length; i++) {
    const field = Object.hasOwn(segments, parts[i] as string) ? segments[parts[i] as string] : undefined;
    const raw = parts[i + 1] as string;
    if (field === undefined || raw === '') continue;
    const id = decoded(raw);
    if (id === null || !ID_CHARS.test(id)) return { field, malformed: true };
    if (id.length > MAX_ID_LENGTH) return { field, malformed: false };
  }
  return null;
}

/**
 * The first segment of a raw path that is not valid percent-encoded UTF-8 (`/receipts/%ZZ`), whatever route it
 * belongs to: its id's name when it follows a named segment, else `path`; null when every segment decodes. Checked
 * before routing, so no route's parameter decoding can fail later.
 */
export function undecodableSegment(rawPath: string, segments: IdSegments): string | null {
  if (rawPath.indexOf('%') < 0) return null;
  const parts = rawPath.split('/');
  for (let i = 0; i < parts.length; i++) {
    if (decoded(parts[i] as string) !== null) continue;
    const prev = i > 0 ? (parts[i - 1] as string) : '';
    return (Object.hasOwn(segments, prev) ? segments[prev] : undefined) ?? 'path';
  }
  return null;
}
