/**
 * The customers' API reference (issue 14 item 3): openapi/customer.yaml rendered in the browser by Redoc, whose
 * standalone bundle is served from the build output (dashboard/redoc-bundle.ts; no CDN). Public: no session needed.
 */
import type express from 'express';
import { loadOpenApiJson, sendOpenApiJson, type OpenApiJson } from '../../gateway/core/openapi-doc';
import { faviconUrl, type Brand } from '../brand';
import { redocBundle } from '../redoc-bundle';
import type { AppContext } from '../context';
import { customerReference } from '../docs/reference';
import { escape } from '../views/html';

/** Redoc injects its styles and runs its search in a blob worker: this page alone allows both. */
const REFERENCE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** The page around Redoc, branded with the product name (issue 15 item 7). */
const page = (brand: Brand): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference · ${escape(brand.productName)}</title>
    <link rel="icon" href="${faviconUrl(brand)}" />
    <link rel="stylesheet" href="/static/api-reference.css" />
  </head>
  <body>
    <a class="skip" href="#reference">Skip to content</a>
    <header><a href="/">← ${escape(brand.productName)}</a></header>
    <main id="reference" data-spec="/api-reference/customer.json" tabindex="-1"></main>
    <footer><p>${escape(brand.footer)}</p></footer>
    <script src="/vendor/redoc.standalone.js"></script>
    <script src="/static/api-reference.js"></script>
  </body>
</html>
`;

/** Mount GET /api-reference, this deployment's document (docs/reference.ts) and the renderer's bundle. */
export function apiReferenceRoutes(app: express.Express, root: string, ctx: AppContext): void {
  const source = JSON.parse(loadOpenApiJson('openapi/customer.yaml').body.toString('utf8')) as unknown;
  const problems = `${ctx.config.publicUrl.replace(/\/+$/, '')}/problems/`;
  const build = (): OpenApiJson => ({
    body: Buffer.from(JSON.stringify(customerReference(source, ctx.rules, ctx.deployment, problems))),
  });
  // Built again only when a reload gave the dashboard other texts or limits (a reload replaces ctx.brand).
  let shown = ctx.brand;
  let PAGE = page(shown);
  let doc = build();
  const fresh = (): void => {
    if (ctx.brand === shown) return;
    shown = ctx.brand;
    PAGE = page(shown);
    doc = build();
  };
  const bundle = redocBundle(root);
  app.get('/api-reference', (_req, res) => {
    fresh();
    res.setHeader('Content-Security-Policy', REFERENCE_CSP);
    res.type('html').send(PAGE);
  });
  app.get('/api-reference/customer.json', (req, res) => {
    fresh();
    sendOpenApiJson(doc, req, res);
  });
  app.get('/vendor/redoc.standalone.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('application/javascript').send(bundle);
  });
}
