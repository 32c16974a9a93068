/**
 * Static kd-tree over 3-D unit vectors (great-circle nearest neighbour without antimeridian or pole cases:
 * the chord between unit vectors grows monotonically with the great-circle distance).
 * Layout is implicit, as in kdbush: a range [lo, hi) is a leaf when it holds at most `leafSize` points,
 * otherwise its median m is the node point and the split axis is stored at axis[m].
 * Several trees may share one set of arrays, each over its own range (one per country).
 */

/** The arrays of one or more static trees, in tree order. */
export interface KdTree {
  /** x, y, z of each point, 3 per point, in tree order. */
  readonly xyz: Float64Array;
  /** Split axis (0, 1, 2) at each node's median position. */
  readonly axis: Uint8Array;
  /** Largest range scanned linearly. */
  readonly leafSize: number;
}

/** Default leaf size (measured in bench/run/backend.ts; 8..32 are within a few percent). */
export const DEFAULT_LEAF_SIZE = 16;

/** Reorders xyz and ids in [lo, hi) into a kd-tree and fills axis; ids follow their points. */
export function buildKdTree(
  xyz: Float64Array,
  ids: Uint32Array,
  axis: Uint8Array,
  lo: number,
  hi: number,
  leafSize: number = DEFAULT_LEAF_SIZE,
): void {
  if (hi - lo <= leafSize) return;
  const a = widestAxis(xyz, lo, hi);
  const m = (lo + hi) >> 1;
  select(xyz, ids, lo, hi - 1, m, a);
  axis[m] = a;
  buildKdTree(xyz, ids, axis, lo, m, leafSize);
  buildKdTree(xyz, ids, axis, m + 1, hi, leafSize);
}

function widestAxis(xyz: Float64Array, lo: number, hi: number): number {
  let best = 0;
  let bestSpread = -1;
  for (let a = 0; a < 3; a++) {
    let min = Infinity;
    let max = -Infinity;
    for (let i = lo; i < hi; i++) {
      const v = xyz[i * 3 + a] as number;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (max - min > bestSpread) {
      bestSpread = max - min;
      best = a;
    }
  }
  return best;
}

/** Quickselect (Hoare partition, middle pivot) so that position k holds the k-th smallest on axis a. */
function select(
  xyz: Float64Array,
  ids: Uint32Array,
  left: number,
  right: number,
  k: number,
  a: number,
): void {
  let l = left;
  let r = right;
  while (r > l) {
    const pivot = xyz[((l + r) >> 1) * 3 + a] as number;
    let i = l;
    let j = r;
    while (i <= j) {
      while ((xyz[i * 3 + a] as number) < pivot) i++;
      while ((xyz[j * 3 + a] as number) > pivot) j--;
      if (i <= j) {
        swap(xyz, ids, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}

function swap(xyz: Float64Array, ids: Uint32Array, i: number, j: number): void {
  const t = ids[i] as number;
  ids[i] = ids[j] as number;
  ids[j] = t;
  for (let a = 0; a < 3; a++) {
    const v = xyz[i * 3 + a] as number;
    xyz[i * 3 + a] = xyz[j * 3 + a] as number;
    xyz[j * 3 + a] = v;
  }
}

const STACK_DEPTH = 256;

/** Nearest-neighbour search with an explicit, preallocated stack: no allocation per query. Not re-entrant. */
export class KdSearch {
  private readonly los = new Int32Array(STACK_DEPTH);
  private readonly his = new Int32Array(STACK_DEPTH);
  private readonly bounds = new Float64Array(STACK_DEPTH);
  /** Squared chord length to the point returned by the last `nearest` call. */
  chord2 = Infinity;

  /** Position (in tree order) of the point of [lo, hi) nearest to (x, y, z), or -1 when the range is empty. */
  nearest(tree: KdTree, lo: number, hi: number, x: number, y: number, z: number): number {
    const { xyz, axis, leafSize } = tree;
    const los = this.los;
    const his = this.his;
    const bounds = this.bounds;
    let best = -1;
    let bestD = Infinity;
    let top = 0;
    los[0] = lo;
    his[0] = hi;
    bounds[0] = 0;
    top = 1;
    while (top > 0) {
      top--;
      if ((bounds[top] as number) >= bestD) continue;
      const l = los[top] as number;
      const h = his[top] as number;
      if (h - l <= leafSize) {
        for (let i = l; i < h; i++) {
          const dx = (xyz[i * 3] as number) - x;
          const dy = (xyz[i * 3 + 1] as number) - y;
          const dz = (xyz[i * 3 + 2] as number) - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d < bestD) {
            bestD = d;
            best = i;
          }
        }
        continue;
      }
      const m = (l + h) >> 1;
      const mx = (xyz[m * 3] as number) - x;
      const my = (xyz[m * 3 + 1] as number) - y;
      const mz = (xyz[m * 3 + 2] as number) - z;
      const d = mx * mx + my * my + mz * mz;
      if (d < bestD) {
        bestD = d;
        best = m;
      }
      const a = axis[m] as number;
      const q = a === 0 ? x : a === 1 ? y : z;
      const diff = q - (xyz[m * 3 + a] as number);
      const far2 = diff * diff;
      const parent = bounds[top] as number;
      // Far side first so that the near side is popped next; its bound is the split-plane distance.
      if (far2 < bestD) {
        los[top] = diff < 0 ? m + 1 : l;
        his[top] = diff < 0 ? h : m;
        bounds[top] = far2 > parent ? far2 : parent;
        top++;
      }
      los[top] = diff < 0 ? l : m + 1;
      his[top] = diff < 0 ? m : h;
      bounds[top] = parent;
      top++;
    }
    this.chord2 = bestD;
    return best;
  }
}
