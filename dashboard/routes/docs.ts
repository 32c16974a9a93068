/**
 * Customer documentation, public (the API's error answers link here): `/problems/{code}` (each problem `type`),
 * `/guides` and `/guides/{provider}` (the migration guides, with the signed-in customer's key prefix), and the
 * configured logo and favicon.
 */
import type express from 'express';
import type { Request, Response, Router } from 'express';
import { ALL_GATEWAY_CODES, type GatewayCode } from '../../gateway/core/errors';
import type { Brand } from '../brand';
import type { AppContext } from '../context';
import { loadGuides, withKey } from '../docs/guides';
import { problemCodes, problemHead } from '../docs/problems';
import { DashboardError } from '../errors';
import { handle, type Signed } from '../middleware';
import { docPage, guideBody, guidesIndex, problemBody, problemsIndex } from '../views/docs';
import { pageContext } from './pages';

/** Serve the configured logo and favicon from memory. */
export function brandRoutes(app: express.Express, brand: Brand): void {
  for (const [name, image] of [
    ['logo', brand.logo],
    ['favicon', brand.favicon],
  ] as const) {
    if (image === null) continue;
    app.get(`/brand/${name}`, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=3600');
      // An SVG opened directly runs no script and loads nothing.
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      res.type(image.type).send(image.body);
    });
  }
}

/** Register the documentation pages. */
export function docRoutes(router: Router, ctx: AppContext, root: string): void {
  const guides = loadGuides(root, ctx.deployment);
  const codes = problemCodes(ctx.rules);
  const topUp = '/credit';
  const frame = (res: Response) => (res.locals['signed'] ? pageContext(ctx, res) : null);

  router.get('/problems', (_req, res) => {
    res
      .type('html')
      .send(docPage(frame(res), ctx.brand, '/problems', 'Problems', problemsIndex(ctx.rules, codes)));
  });
  router.get('/problems/:code', (req, res, next) => {
    const code = req.params['code'] as GatewayCode;
    if (!ALL_GATEWAY_CODES.includes(code) || !codes.includes(code))
      return next(new DashboardError('not_found', 'No such problem'));
    const title = problemHead(code).title;
    res
      .type('html')
      .send(docPage(frame(res), ctx.brand, '/problems', title, problemBody(ctx.rules, code, topUp)));
  });
  router.get('/guides', (_req, res) => {
    res
      .type('html')
      .send(docPage(frame(res), ctx.brand, '/guides', 'Migration guides', guidesIndex([...guides.values()])));
  });
  router.get(
    '/guides/:provider',
    handle(async (req: Request, res: Response) => {
      const guide = guides.get(String(req.params['provider']));
      if (guide === undefined) throw new DashboardError('not_found', 'No guide for that provider here');
      const s = res.locals['signed'] as Signed | undefined;
      // The newest active key's prefix: the one a customer who just created a key is about to paste.
      const key = s
        ? (await ctx.store.listKeys(s.account.id)).filter((k) => k.status === 'active').pop()
        : undefined;
      const shown = key ? { prefix: key.prefix, label: key.label } : null;
      res
        .type('html')
        .send(
          docPage(
            frame(res),
            ctx.brand,
            '/guides',
            guide.title,
            guideBody(guide, withKey(guide.body, shown?.prefix ?? null), shown),
          ),
        );
    }),
  );
}
