import { readContainer, sectionOf, writeContainer } from '../../../backend/geodata/container';
import { packStrings, packedSections, unpackSections } from '../../../backend/geodata/packed-strings';

describe('geodata container and packed strings', () => {
  it('round-trips typed arrays, also from an unaligned buffer', () => {
    const bytes = writeContainer({
      a: new Int32Array([-1, 2, 3]),
      b: new Uint8Array([7]),
      c: new Float64Array([Math.PI]),
      d: new Uint16Array([65535, 0]),
    });
    const unaligned = new Uint8Array(bytes.length + 3).subarray(3);
    unaligned.set(bytes);
    for (const input of [bytes, unaligned]) {
      const s = readContainer(input);
      expect([...sectionOf(s, 'a', Int32Array)]).toEqual([-1, 2, 3]);
      expect([...sectionOf(s, 'b', Uint8Array)]).toEqual([7]);
      expect([...sectionOf(s, 'c', Float64Array)]).toEqual([Math.PI]);
      expect([...sectionOf(s, 'd', Uint16Array)]).toEqual([65535, 0]);
    }
  });

  it('names a missing or mistyped section', () => {
    const s = readContainer(writeContainer({ a: new Int32Array([1]) }));
    expect(() => sectionOf(s, 'a', Uint32Array)).toThrow(/section a missing or not Uint32Array/);
    expect(() => sectionOf(s, 'zz', Uint32Array)).toThrow(/section zz/);
  });

  it('packs strings with non-ASCII text and nulls, and unpacks them from UTF-8', () => {
    const list = ['Île-de-France', null, 'Nuku‘alofa', '東京', 'x'];
    const packed = packStrings(list);
    const sections = packedSections('t', packed);
    const back = unpackSections(sections.tText as Uint8Array, sections.tOffsets as Uint32Array);
    expect(back.toArray()).toEqual(list);
    expect(back.get(-1)).toBeNull();
    expect(back.get(5)).toBeNull();
    expect(back.length).toBe(5);
  });
});
