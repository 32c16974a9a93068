/** Every route an Express 5 app registers (nested routers walked), for table tests over all routes. */
import type { Express } from 'express';

/** One registered route: its methods and its full path pattern (string patterns only). */
export interface RouteEntry {
  methods: string[];
  path: string;
}

interface Layer {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function walk(stack: readonly Layer[], prefix: string, out: RouteEntry[]): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== 'string') continue;
      const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
      out.push({ methods, path: prefix + layer.route.path });
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && !layer.slash ? layer.rawPath : '';
      walk(layer.handle.stack, prefix + mount, out);
    }
  }
}

/** The app's routes with string paths, in registration order. */
export function routesOf(app: Express): RouteEntry[] {
  const out: RouteEntry[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}

/** Each route with a `:param` segment, once per parameter, with that parameter replaced by `value`. */
export function withEachParam(
  routes: readonly RouteEntry[],
  value: string,
): { method: string; path: string }[] {
  const cases: { method: string; path: string }[] = [];
  for (const r of routes) {
    const segments = r.path.split('/');
    segments.forEach((s, i) => {
      if (!s.startsWith(':')) return;
      const path = segments.map((p, j) => (j === i ? value : p.startsWith(':') ? 'x1' : p)).join('/');
      for (const method of r.methods.length ? r.methods : ['get']) cases.push({ method, path });
    });
  }
  return cases;
}
