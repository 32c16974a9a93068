import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { buildKdTree, KdSearch, type KdTree } from '../../../backend/geo/kdtree';
import { chord2ToKm, haversineKm, writeUnitVector } from '../../../backend/geo/sphere';

/** Seeded PRNG (LCG) so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Points {
  lat: Float64Array;
  lon: Float64Array;
}

/** Random places: uniform on the sphere, plus clusters at both sides of ±180° and near both poles. */
function places(n: number, seed: number): Points {
  const r = rng(seed);
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    if (kind === 0) {
      lat[i] = (Math.asin(2 * r() - 1) * 180) / Math.PI;
      lon[i] = 360 * r() - 180;
    } else if (kind === 1) {
      lat[i] = 40 * r() - 20;
      lon[i] = r() < 0.5 ? 180 - 2 * r() : -180 + 2 * r();
    } else {
      lat[i] = (kind === 2 ? 1 : -1) * (85 + 5 * r());
      lon[i] = 360 * r() - 180;
    }
  }
  return { lat, lon };
}

function queries(n: number, seed: number): Points {
  return places(n, seed);
}

function tree(p: Points, leafSize: number): { tree: KdTree; ids: Uint32Array } {
  const n = p.lat.length;
  const xyz = new Float64Array(n * 3);
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    writeUnitVector(p.lat[i] as number, p.lon[i] as number, xyz, i * 3);
    ids[i] = i;
  }
  const axis = new Uint8Array(n);
  buildKdTree(xyz, ids, axis, 0, n, leafSize);
  return { tree: { xyz, axis, leafSize }, ids };
}

const vectorCache = new WeakMap<Points, Float64Array>();

/** Linear scan over all places (their unit vectors computed once per point set). */
function bruteForce(p: Points, lat: number, lon: number): { id: number; d2: number } {
  let xyz = vectorCache.get(p);
  if (!xyz) {
    xyz = new Float64Array(p.lat.length * 3);
    for (let i = 0; i < p.lat.length; i++)
      writeUnitVector(p.lat[i] as number, p.lon[i] as number, xyz, i * 3);
    vectorCache.set(p, xyz);
  }
  const q = new Float64Array(3);
  writeUnitVector(lat, lon, q, 0);
  let id = -1;
  let d2 = Infinity;
  for (let i = 0; i < p.lat.length; i++) {
    const dx = (xyz[i * 3] as number) - (q[0] as number);
    const dy = (xyz[i * 3 + 1] as number) - (q[1] as number);
    const dz = (xyz[i * 3 + 2] as number) - (q[2] as number);
    const d = dx * dx + dy * dy + dz * dz;
    if (d < d2) {
      d2 = d;
      id = i;
    }
  }
  return { id, d2 };
}

describe('static 3-D kd-tree over unit vectors', () => {
  it.each([1, 4, 16, 64])(
    'equals brute force on 2,000 seeded queries (leaf size %i), across ±180° and near the poles',
    (leaf) => {
      const p = places(3000, 7 + leaf);
      const { tree: t, ids } = tree(p, leaf);
      const search = new KdSearch();
      const q = queries(2000, 99 + leaf);
      const v = new Float64Array(3);
      let mismatches = 0;
      for (let i = 0; i < 2000; i++) {
        const lat = q.lat[i] as number;
        const lon = q.lon[i] as number;
        writeUnitVector(lat, lon, v, 0);
        const pos = search.nearest(t, 0, p.lat.length, v[0] as number, v[1] as number, v[2] as number);
        const want = bruteForce(p, lat, lon);
        if (ids[pos] !== want.id && search.chord2 !== want.d2) mismatches++;
        expect(search.chord2).toBe(want.d2);
      }
      expect(mismatches).toBe(0);
    },
  );

  it('searches sub-ranges independently (one tree per country over shared arrays)', () => {
    const a = places(500, 1);
    const b = places(300, 2);
    const all: Points = {
      lat: Float64Array.from([...a.lat, ...b.lat]),
      lon: Float64Array.from([...a.lon, ...b.lon]),
    };
    const n = all.lat.length;
    const xyz = new Float64Array(n * 3);
    const ids = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      writeUnitVector(all.lat[i] as number, all.lon[i] as number, xyz, i * 3);
      ids[i] = i;
    }
    const axis = new Uint8Array(n);
    buildKdTree(xyz, ids, axis, 0, 500, 8);
    buildKdTree(xyz, ids, axis, 500, n, 8);
    const t: KdTree = { xyz, axis, leafSize: 8 };
    const search = new KdSearch();
    const q = queries(300, 3);
    const v = new Float64Array(3);
    for (let i = 0; i < 300; i++) {
      writeUnitVector(q.lat[i] as number, q.lon[i] as number, v, 0);
      const pos = search.nearest(t, 500, n, v[0] as number, v[1] as number, v[2] as number);
      expect(pos).toBeGreaterThanOrEqual(500);
      expect(ids[pos]).toBe(500 + bruteForce(b, q.lat[i] as number, q.lon[i] as number).id);
    }
  });

  it('returns -1 for an empty range', () => {
    const { tree: t } = tree(places(10, 5), 4);
    expect(new KdSearch().nearest(t, 3, 3, 1, 0, 0)).toBe(-1);
  });

  it('finds the place across the antimeridian and over the pole', () => {
    const p: Points = {
      lat: Float64Array.from([-17, -17.2, 89.5, 10]),
      lon: Float64Array.from([179.9, 170, 0, 0]),
    };
    const { tree: t, ids } = tree(p, 1);
    const s = new KdSearch();
    const v = new Float64Array(3);
    writeUnitVector(-17, -179.95, v, 0);
    expect(ids[s.nearest(t, 0, 4, v[0] as number, v[1] as number, v[2] as number)]).toBe(0);
    expect(chord2ToKm(s.chord2)).toBeCloseTo(haversineKm(-17, -179.95, -17, 179.9), 6);
    writeUnitVector(89.9, 180, v, 0);
    expect(ids[s.nearest(t, 0, 4, v[0] as number, v[1] as number, v[2] as number)]).toBe(2);
  });

  it('agrees with geokdbush (second reference) on 2,000 seeded queries', () => {
    const p = places(2000, 11);
    const q = queries(2000, 12);
    const { tree: t, ids } = tree(p, 16);
    const search = new KdSearch();
    const v = new Float64Array(3);
    const ours = Array.from({ length: 2000 }, (_, i) => {
      writeUnitVector(q.lat[i] as number, q.lon[i] as number, v, 0);
      return ids[search.nearest(t, 0, 2000, v[0] as number, v[1] as number, v[2] as number)] as number;
    });
    // geokdbush and kdbush are ESM-only, which Jest's CommonJS runtime cannot load: run them in plain Node.
    const root = path.resolve(__dirname, '../../..');
    const script = `
      const { default: KDBush } = await import(${JSON.stringify(path.join(root, 'node_modules/kdbush/index.js'))});
      const { around } = await import(${JSON.stringify(path.join(root, 'node_modules/geokdbush/index.js'))});
      const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
      const index = new KDBush(input.plon.length);
      for (let i = 0; i < input.plon.length; i++) index.add(input.plon[i], input.plat[i]);
      index.finish();
      process.stdout.write(JSON.stringify(input.qlon.map((lon, i) => around(index, lon, input.qlat[i], 1)[0])));
    `;
    const input = JSON.stringify({ plat: [...p.lat], plon: [...p.lon], qlat: [...q.lat], qlon: [...q.lon] });
    const theirs = JSON.parse(
      execFileSync(process.execPath, ['--input-type=commonjs', '-e', `(async () => {${script}})()`], {
        input,
      }).toString(),
    ) as number[];
    expect(theirs).toHaveLength(2000);
    const differing = theirs.filter((id, i) => {
      if (id === ours[i]) return false;
      // A different id is only acceptable for an exact distance tie.
      const dTheirs = haversineKm(
        q.lat[i] as number,
        q.lon[i] as number,
        p.lat[id] as number,
        p.lon[id] as number,
      );
      const dOurs = haversineKm(
        q.lat[i] as number,
        q.lon[i] as number,
        p.lat[ours[i] as number] as number,
        p.lon[ours[i] as number] as number,
      );
      return Math.abs(dTheirs - dOurs) > 1e-9;
    });
    expect(differing).toEqual([]);
  });
});
