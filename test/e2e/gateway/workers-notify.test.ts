/**
 * Notifications with `workers: 2` on the embedded store (issue 15 item 2): every worker process runs the delivery
 * worker on the shared SQLite file, and a key driven past 80 % and 100 % of its allowance over both workers is told
 * exactly once by e-mail (a real SMTP server) and once by webhook (a receiver verifying with standardwebhooks).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { systemClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { newWebhookSecret } from '../../../gateway/notify/webhook';
import { createStore } from '../../../gateway/store';
import { killAll, waitForChildren } from '../../helpers/gateway-processes';
import { startSmtpCapture } from '../../helpers/smtp-capture';
import { startWebhookReceiver } from '../../helpers/webhook-receiver';
import { call, startGatewayProc, useBackendProcess } from '../harness';

jest.setTimeout(90_000);

const PEPPER = 'workers-notify-pepper-0123456789';
const backend = useBackendProcess();

test('two worker processes tell each allowance alert once by e-mail and once by webhook', async () => {
  const smtp = await startSmtpCapture();
  const hook = await startWebhookReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'geogate-workers-notify-'));
  const dbPath = join(dir, 'geogate.db');
  const seed = await createStore({ kind: 'embedded', path: dbPath }, { clock: systemClock });
  const acc = await seed.createAccount({ email: 'twin@example.com', name: 'T' }, Date.now());
  const secret = newWebhookSecret();
  await seed.addWebhookEndpoint(acc.id, hook.url, secret.key, 5, Date.now());
  hook.secret = secret.shown;
  const key = generateKey();
  await seed.createKey(
    { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg', label: 'k' },
    Date.now(),
  );
  await seed.close();
  const file = join(dir, 'gateway.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: workers-admin-token-0123 }',
      `backend: { url: "${backend.url}" }`,
      `store: { kind: embedded, path: "${dbPath}" }`,
      `keyPepper: "${PEPPER}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      'limits: { freePerDay: 10 }',
      'log: { level: silent }',
      'drain: { delayMs: 0 }',
      'workers: 2',
      'dashboard:',
      '  listen: { host: 127.0.0.1, port: 0 }',
      '  publicUrl: http://dash.test',
      '  sessionSecret: workers-notify-session-secret-0123456789',
      `  smtp: { host: ${smtp.host}, port: ${smtp.port}, from: alerts@dash.test }`,
      '  notifications:',
      '    webhooks: { allowPrivateTargets: true }',
      '    worker: { intervalMs: 20 }',
    ].join('\n'),
  );
  const gw = await startGatewayProc(file, 4);
  try {
    expect(await waitForChildren(gw.pid, 2)).toHaveLength(2);
    const deadline = Date.now() + 60_000;
    while (gw.urls.length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const answers = await Promise.all(
      Array.from({ length: 14 }, () =>
        call(gw.url, '/v1/reverse?lat=51.5&lon=-0.12', { headers: { 'x-api-key': key } }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    const types = () => hook.delivered().map((r) => r.payload?.type);
    const subjects = () =>
      Promise.all(smtp.messages.map(async (m) => (await simpleParser(m.raw)).subject ?? ''));
    const t0 = Date.now();
    while ((types().length < 2 || (await subjects()).length < 2) && Date.now() - t0 < 15_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500)); // both workers kept polling: nothing more arrives
    expect(types().sort()).toEqual(['allowance.100', 'allowance.80']);
    expect((await subjects()).sort()).toEqual(['Free allowance 100 % used', 'Free allowance 80 % used']);
  } finally {
    await killAll(gw);
    await smtp.close();
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
