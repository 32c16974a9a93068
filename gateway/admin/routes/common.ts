/** Helpers shared by admin routes. */
import type { Request } from 'express';

/** A path parameter as a string. */
export function param(req: Request, name: string): string {
  const v = (req.params as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : '';
}
