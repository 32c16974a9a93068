/**
 * The journal's on-disk format (D34): one line per event-loop turn, `<seq> <crc32 hex> <JSON array of records>\n`.
 * The CRC covers `<seq> <json>`; a line without its newline or with a wrong CRC is torn (a kill -9 mid-write) and
 * is never applied. Lines stay readable, so a kept segment is a per-request audit trail (D35).
 */
import { crc32 } from 'node:zlib';

/** One turn's records as read back, with the byte offset just past its line. */
export interface Frame<R> {
  seq: number;
  records: R[];
  end: number;
}

/** What a scan of one segment found: its whole frames and where the valid part ends. */
export interface Scan<R> {
  frames: Frame<R>[];
  /** Bytes of the segment that hold whole, valid frames (a torn tail starts here). */
  validBytes: number;
  /** Why the scan stopped before the end of the buffer, if it did. */
  torn: 'none' | 'no-newline' | 'bad-checksum' | 'bad-sequence' | 'bad-line';
}

const NL = 0x0a;
const SP = 0x20;

/** The bytes of one turn: `records` serialised as one line carrying `seq` and a CRC32. */
export function encodeFrame(seq: number, records: readonly unknown[]): Buffer {
  const head = String(seq);
  const buf = Buffer.from(`${head} 00000000 ${JSON.stringify(records)}\n`);
  // The CRC of `<seq> <json>`: the two slices around the CRC field, then written into its place.
  const crc = crc32(buf.subarray(head.length + 9, buf.length - 1), crc32(buf.subarray(0, head.length)));
  buf.write(crc.toString(16).padStart(8, '0'), head.length + 1, 'latin1');
  return buf;
}

/**
 * Reads the frames of `buf` in order; stops at the first line that is incomplete, fails its CRC, cannot be parsed
 * or does not continue the sequence (`afterSeq + 1`, then +1 per frame; `afterSeq` undefined accepts any start).
 */
export function scanFrames<R>(buf: Buffer, afterSeq?: number): Scan<R> {
  const frames: Frame<R>[] = [];
  let at = 0;
  let expect = afterSeq === undefined ? undefined : afterSeq + 1;
  while (at < buf.length) {
    const nl = buf.indexOf(NL, at);
    if (nl < 0) return { frames, validBytes: at, torn: 'no-newline' };
    const parsed = parseLine<R>(buf, at, nl);
    if (typeof parsed === 'string') return { frames, validBytes: at, torn: parsed };
    if (expect !== undefined && parsed.seq !== expect)
      return { frames, validBytes: at, torn: 'bad-sequence' };
    frames.push({ seq: parsed.seq, records: parsed.records, end: nl + 1 });
    expect = parsed.seq + 1;
    at = nl + 1;
  }
  return { frames, validBytes: at, torn: 'none' };
}

/** One line `buf[start, nl)` as a frame, or why it is not one. */
function parseLine<R>(
  buf: Buffer,
  start: number,
  nl: number,
): { seq: number; records: R[] } | 'bad-checksum' | 'bad-line' {
  const sp1 = buf.indexOf(SP, start);
  const sp2 = sp1 < 0 ? -1 : buf.indexOf(SP, sp1 + 1);
  if (sp1 < 0 || sp2 < 0 || sp2 >= nl || sp2 - sp1 !== 9) return 'bad-line';
  const seqText = buf.toString('latin1', start, sp1);
  const crcText = buf.toString('latin1', sp1 + 1, sp2);
  if (!/^\d{1,15}$/.test(seqText) || !/^[0-9a-f]{8}$/.test(crcText)) return 'bad-line';
  // The CRC covers `<seq>` followed by ` <json>`: both slices of the line, without copying the line.
  const crc = crc32(buf.subarray(sp2, nl), crc32(buf.subarray(start, sp1)));
  if (crc !== parseInt(crcText, 16)) return 'bad-checksum';
  let records: unknown;
  try {
    records = JSON.parse(buf.toString('utf8', sp2 + 1, nl));
  } catch {
    return 'bad-line';
  }
  if (!Array.isArray(records)) return 'bad-line';
  return { seq: Number(seqText), records: records as R[] };
}
