/**
 * Build-time country raster in front of country-coder. A cell that any polygon edge touches is a border
 * cell (the backend asks country-coder there); every other cell lies wholly inside one answer, which is
 * the same for a whole 4-connected component of such cells, so one lookup per component classifies it.
 * country-coder's point-in-polygon is planar in lon/lat, so edges are rasterised as straight lon/lat lines.
 */
import { BORDER_CELL, type CountryGrid } from './model';

/** A GeoJSON MultiPolygon's coordinates: polygons → rings → [lon, lat] positions. */
export type MultiPolygonCoords = readonly (readonly (readonly (readonly number[])[])[])[];

/** Builds the grid; `codeAt` answers the country index + 1 (0 for none) at a point. */
export function buildCountryGrid(
  cellsPerDegree: number,
  polygons: readonly MultiPolygonCoords[],
  codeAt: (lon: number, lat: number) => number,
): CountryGrid {
  const cols = 360 * cellsPerDegree;
  const rows = 180 * cellsPerDegree;
  const cells = new Uint16Array(rows * cols);
  for (const multi of polygons) {
    for (const polygon of multi)
      for (const ring of polygon) markRing(cells, cols, rows, cellsPerDegree, ring);
  }
  fillComponents(cells, cols, rows, cellsPerDegree, codeAt);
  return { cellsPerDegree, cells };
}

function markRing(
  cells: Uint16Array,
  cols: number,
  rows: number,
  k: number,
  ring: readonly (readonly number[])[],
): void {
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1] as readonly number[];
    const b = ring[i] as readonly number[];
    markSegment(cells, cols, rows, k, a, b);
  }
}

const EPS = 1e-6;

/** Marks every cell whose closed square touches the segment (sub-segments ≤ half a cell, bbox + epsilon). */
function markSegment(
  cells: Uint16Array,
  cols: number,
  rows: number,
  k: number,
  a: readonly number[],
  b: readonly number[],
): void {
  const x0 = ((a[0] as number) + 180) * k;
  const y0 = ((a[1] as number) + 90) * k;
  const x1 = ((b[0] as number) + 180) * k;
  const y1 = ((b[1] as number) + 90) * k;
  const steps = Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)) * 2) + 1;
  for (let s = 0; s < steps; s++) {
    const ta = s / steps;
    const tb = (s + 1) / steps;
    const xa = x0 + (x1 - x0) * ta;
    const xb = x0 + (x1 - x0) * tb;
    const ya = y0 + (y1 - y0) * ta;
    const yb = y0 + (y1 - y0) * tb;
    const cx0 = Math.max(0, Math.floor(Math.min(xa, xb) - EPS));
    const cx1 = Math.min(cols - 1, Math.floor(Math.max(xa, xb) + EPS));
    const cy0 = Math.max(0, Math.floor(Math.min(ya, yb) - EPS));
    const cy1 = Math.min(rows - 1, Math.floor(Math.max(ya, yb) + EPS));
    for (let cy = cy0; cy <= cy1; cy++)
      for (let cx = cx0; cx <= cx1; cx++) cells[cy * cols + cx] = BORDER_CELL;
  }
}

const UNSET = 0xfffe;

function fillComponents(
  cells: Uint16Array,
  cols: number,
  rows: number,
  k: number,
  codeAt: (lon: number, lat: number) => number,
): void {
  for (let i = 0; i < cells.length; i++) if (cells[i] !== BORDER_CELL) cells[i] = UNSET;
  const queue = new Int32Array(cells.length);
  for (let seed = 0; seed < cells.length; seed++) {
    if (cells[seed] !== UNSET) continue;
    const row = Math.floor(seed / cols);
    const col = seed % cols;
    const value = codeAt((col + 0.5) / k - 180, (row + 0.5) / k - 90);
    if (value >= UNSET) throw new Error(`country grid: country index ${value} too large`);
    let head = 0;
    let tail = 0;
    const visit = (c: number): void => {
      if (cells[c] !== UNSET) return;
      cells[c] = value;
      queue[tail++] = c;
    };
    visit(seed);
    while (head < tail) {
      const c = queue[head++] as number;
      const r = Math.floor(c / cols);
      const x = c % cols;
      if (x > 0) visit(c - 1);
      if (x < cols - 1) visit(c + 1);
      if (r > 0) visit(c - cols);
      if (r < rows - 1) visit(c + cols);
    }
  }
}

/** Grid cell index of a point (lat ±90, lon ±180; the upper edges fall in the last row/column). */
export function gridCell(grid: CountryGrid, lat: number, lon: number): number {
  const k = grid.cellsPerDegree;
  const cols = 360 * k;
  let row = Math.floor((lat + 90) * k);
  let col = Math.floor((lon + 180) * k);
  if (row >= 180 * k) row = 180 * k - 1;
  if (col >= cols) col = cols - 1;
  return row * cols + col;
}
