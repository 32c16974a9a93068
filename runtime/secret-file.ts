/** Secrets kept in files readable by their owner only (mode 0600), created on first use. */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The secret in `file`, or a new random one (`bytes` long, base64url) written there with mode 0600. */
export function keptSecret(file: string, bytes = 32): string {
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') {
      chmodSync(file, 0o600);
      return kept;
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(bytes).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** Where a generated admin token is kept: GEOGATE_ADMIN_TOKEN_FILE, else `admin-token` in the data folder. */
export function adminTokenFile(env: NodeJS.ProcessEnv, dataDir?: string): string {
  const explicit = env['GEOGATE_ADMIN_TOKEN_FILE'];
  if (explicit) return path.resolve(explicit);
  return path.resolve(dataDir ?? env['GEOGATE_DATA_DIR'] ?? 'data', 'admin-token');
}
