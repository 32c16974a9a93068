/** The journal's line format (D34): whole frames are read back, a torn or damaged tail is never applied. */
import { encodeFrame, scanFrames, type Scan } from '../../../gateway/journal/frame';

const one = encodeFrame(1, [{ t: 'k', id: 'a' }]);
const two = encodeFrame(2, [
  { t: 'r', id: 'b' },
  { t: 'k', id: 'c\nd ✓' },
]);
const flip = (buf: Buffer, at: number): Buffer => {
  const copy = Buffer.from(buf);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
};

const cases: [string, Buffer, number, Scan<unknown>['torn'], number][] = [
  // name, bytes, frames read, why the scan stopped, valid bytes
  ['an empty file', Buffer.alloc(0), 0, 'none', 0],
  ['one whole frame', one, 1, 'none', one.length],
  ['two frames', Buffer.concat([one, two]), 2, 'none', one.length + two.length],
  ['a torn last line (no newline)', Buffer.concat([one, two.subarray(0, 20)]), 1, 'no-newline', one.length],
  ['only a torn line', two.subarray(0, two.length - 1), 0, 'no-newline', 0],
  ['a flipped bit in the records', Buffer.concat([one, flip(two, 20)]), 1, 'bad-checksum', one.length],
  ['a flipped bit in the sequence', Buffer.concat([one, flip(two, 0)]), 1, 'bad-checksum', one.length],
  [
    'a line that is not a frame',
    Buffer.concat([one, Buffer.from('hello world\n')]),
    1,
    'bad-line',
    one.length,
  ],
  ['a gap in the sequence', Buffer.concat([one, encodeFrame(3, [1])]), 1, 'bad-sequence', one.length],
  ['a blank line', Buffer.concat([one, Buffer.from('\n')]), 1, 'bad-line', one.length],
];

test.each(cases)('reads %s', (_name, buf, frames, torn, validBytes) => {
  const scan = scanFrames(buf);
  expect(scan.frames).toHaveLength(frames);
  expect(scan.torn).toBe(torn);
  expect(scan.validBytes).toBe(validBytes);
});

test('round-trips records with newlines and non-ASCII text, each frame ending where the next begins', () => {
  const scan = scanFrames<{ id: string }>(Buffer.concat([one, two]));
  expect(scan.frames.map((f) => f.seq)).toEqual([1, 2]);
  expect(scan.frames[1]?.records.map((r) => r.id)).toEqual(['b', 'c\nd ✓']);
  expect(scan.frames[0]?.end).toBe(one.length);
});

test('continues a given sequence and refuses a frame that does not', () => {
  expect(scanFrames(two, 1).frames).toHaveLength(1);
  expect(scanFrames(two, 5).torn).toBe('bad-sequence');
});

test('writes one line per turn, readable as text', () => {
  expect(one.toString()).toMatch(/^1 [0-9a-f]{8} \[\{"t":"k","id":"a"\}\]\n$/);
});
