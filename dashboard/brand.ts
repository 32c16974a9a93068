/** The product name and footer every page shows (dashboard config, issue 15 item 7). */
import type { DashboardConfig } from './config';

/** What the page frame needs to brand a page. */
export interface Brand {
  productName: string;
  footer: string;
}

/** The default of both settings. */
export const DEFAULT_BRAND: Brand = { productName: 'geogate', footer: 'geogate' };

/** The config's brand with its defaults. */
export function brandOf(config: Pick<DashboardConfig, 'productName' | 'footer'>): Brand {
  return {
    productName: config.productName ?? DEFAULT_BRAND.productName,
    footer: config.footer ?? DEFAULT_BRAND.footer,
  };
}
