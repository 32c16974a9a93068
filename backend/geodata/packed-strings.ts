/**
 * A list of strings stored as one text and UTF-16 offsets: loading decodes one UTF-8 blob instead of parsing
 * a JSON array of 171k strings (measured: JSON.parse of the tables cost ~85 ms CPU of the start-up).
 */

/** Read side: the i-th string by slicing, null for an absent entry (stored as ""). */
export class PackedStrings {
  constructor(
    readonly text: string,
    /** length + 1 offsets into text, in UTF-16 code units. */
    readonly offsets: Uint32Array,
  ) {}

  /** Number of entries. */
  get length(): number {
    return this.offsets.length - 1;
  }

  /** The i-th entry, or null when it is empty or out of range. */
  get(i: number): string | null {
    if (i < 0 || i >= this.offsets.length - 1) return null;
    const s = this.text.slice(this.offsets[i] as number, this.offsets[i + 1] as number);
    return s === '' ? null : s;
  }

  /** All entries (for tests and small tables). */
  toArray(): (string | null)[] {
    return Array.from({ length: this.length }, (_, i) => this.get(i));
  }
}

/** Packs a list (null stored as ""). */
export function packStrings(list: readonly (string | null)[]): PackedStrings {
  const offsets = new Uint32Array(list.length + 1);
  let at = 0;
  list.forEach((s, i) => {
    offsets[i] = at;
    at += (s ?? '').length;
  });
  offsets[list.length] = at;
  return new PackedStrings(list.map((s) => s ?? '').join(''), offsets);
}

/** The container sections of a packed list: UTF-8 text bytes and offsets. */
export function packedSections(
  name: string,
  packed: PackedStrings,
): Record<string, Uint8Array | Uint32Array> {
  return {
    [`${name}Text`]: new Uint8Array(Buffer.from(packed.text, 'utf8')),
    [`${name}Offsets`]: packed.offsets,
  };
}

/** Rebuilds a packed list from its sections. */
export function unpackSections(text: Uint8Array, offsets: Uint32Array): PackedStrings {
  return new PackedStrings(
    Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8'),
    offsets,
  );
}
