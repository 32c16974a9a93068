/**
 * A tiny binary container for typed arrays: 4-byte little-endian header length, a JSON header naming each
 * section (type, byte offset, length), then the sections, each aligned to 8 bytes. Loading makes views, no copies.
 */

/** The typed arrays a container can hold. */
export type Section = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

type SectionType = 'Int32Array' | 'Uint32Array' | 'Uint16Array' | 'Uint8Array' | 'Float64Array';

interface SectionEntry {
  type: SectionType;
  offset: number;
  length: number;
}

const CONSTRUCTORS = { Int32Array, Uint32Array, Uint16Array, Uint8Array, Float64Array } as const;

function sectionType(section: Section): SectionType {
  return section.constructor.name as SectionType;
}

/** Serialises named typed arrays into one buffer. */
export function writeContainer(sections: Record<string, Section>): Buffer {
  const entries: Record<string, SectionEntry> = {};
  let offset = 0;
  for (const [name, section] of Object.entries(sections)) {
    entries[name] = { type: sectionType(section), offset, length: section.length };
    offset += Math.ceil(section.byteLength / 8) * 8;
  }
  const headerJson = Buffer.from(JSON.stringify(entries), 'utf8');
  const headerBytes = Math.ceil((4 + headerJson.length) / 8) * 8;
  const out = Buffer.alloc(headerBytes + offset);
  out.writeUInt32LE(headerJson.length, 0);
  headerJson.copy(out, 4);
  for (const [name, section] of Object.entries(sections)) {
    const entry = entries[name] as SectionEntry;
    Buffer.from(section.buffer, section.byteOffset, section.byteLength).copy(out, headerBytes + entry.offset);
  }
  return out;
}

/** Reads a container into typed-array views; copies only when the bytes are not 8-byte aligned. */
export function readContainer(bytes: Uint8Array): Map<string, Section> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0, true);
  const headerText = Buffer.from(bytes.buffer, bytes.byteOffset + 4, headerLength).toString('utf8');
  const entries = JSON.parse(headerText) as Record<string, SectionEntry>;
  const headerBytes = Math.ceil((4 + headerLength) / 8) * 8;
  let body: ArrayBuffer = bytes.buffer as ArrayBuffer;
  let base = bytes.byteOffset + headerBytes;
  if (base % 8 !== 0) {
    body = new ArrayBuffer(bytes.byteLength - headerBytes);
    new Uint8Array(body).set(bytes.subarray(headerBytes));
    base = 0;
  }
  const out = new Map<string, Section>();
  for (const [name, entry] of Object.entries(entries)) {
    const Ctor = CONSTRUCTORS[entry.type];
    if (!Ctor) throw new Error(`geodata container: unknown section type ${String(entry.type)} for ${name}`);
    out.set(name, new Ctor(body, base + entry.offset, entry.length));
  }
  return out;
}

/** Takes a section and checks its type; throws naming the section when absent or of another type. */
export function sectionOf<T extends Section>(
  sections: Map<string, Section>,
  name: string,
  ctor: new (...args: never[]) => T,
): T {
  const section = sections.get(name);
  if (!(section instanceof ctor))
    throw new Error(`geodata container: section ${name} missing or not ${ctor.name}`);
  return section;
}
