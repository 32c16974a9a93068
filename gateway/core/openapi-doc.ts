/** OpenAPI documents served as `/openapi.json` (issue 14 item 3): each YAML file is parsed once, at start. */
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from './paths';

/** A document ready to send: its JSON text and length. */
export interface OpenApiJson {
  readonly body: Buffer;
}

/** Read and parse `relative` (from the repository root) into JSON once; throws at start when it is unreadable. */
export function loadOpenApiJson(relative: string): OpenApiJson {
  const text = readFileSync(path.join(repoRoot(), relative), 'utf8');
  return { body: Buffer.from(JSON.stringify(parseYaml(text))) };
}

/** Answer a GET/HEAD with the document. */
export function sendOpenApiJson(doc: OpenApiJson, req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': doc.body.length,
    'cache-control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}
