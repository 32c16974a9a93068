/** The product name, footer, logo and favicon every page shows (dashboard config). */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { IMAGE_TYPES, type DashboardConfig } from './config';

/** An image read once at start, served from memory. */
export interface BrandImage {
  type: string;
  body: Buffer;
}

/** What the page frame needs to brand a page. */
export interface Brand {
  productName: string;
  footer: string;
  /** The configured logo (served at /brand/logo), or null. */
  logo: BrandImage | null;
  /** The configured favicon (served at /brand/favicon), or null (then the geogate pin). */
  favicon: BrandImage | null;
}

/** The default of every setting. */
export const DEFAULT_BRAND: Brand = { productName: 'geogate', footer: 'geogate', logo: null, favicon: null };

/** Read a validated image file (the schema checked its type, size and that it is readable). */
function image(file: string | undefined): BrandImage | null {
  if (file === undefined) return null;
  const type = IMAGE_TYPES[extname(file).toLowerCase()];
  if (type === undefined) throw new Error(`dashboard: ${file} is not an image file name`);
  return { type, body: readFileSync(file) };
}

/** The config's brand with its defaults. */
export function brandOf(
  config: Pick<DashboardConfig, 'productName' | 'footer'> &
    Partial<Pick<DashboardConfig, 'logo' | 'favicon'>>,
): Brand {
  return {
    productName: config.productName ?? DEFAULT_BRAND.productName,
    footer: config.footer ?? DEFAULT_BRAND.footer,
    logo: image(config.logo),
    favicon: image(config.favicon),
  };
}

/** The favicon's address. */
export function faviconUrl(brand: Brand): string {
  return brand.favicon === null ? '/static/favicon.svg' : '/brand/favicon';
}
