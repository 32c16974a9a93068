/** A strict RFC 4180 reader for tests: quoted fields with doubled quotes, CRLF records; malformed input throws. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`bare quote at ${i}`);
        value += text[i++];
      }
    }
    row.push(value);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
      continue;
    }
    if (i < text.length) throw new Error(`expected a comma or CRLF at ${i}`);
  }
  if (row.length > 0) throw new Error('the last record has no CRLF');
  return rows;
}
