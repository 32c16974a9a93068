/** A local SMTP server (smtp-server on an ephemeral port) that keeps every message, for mail-sending tests. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One received message. */
export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  /** The decoded text body (quoted-printable or base64 undone). */
  text: string;
}

/** A running capture server. */
export interface SmtpCapture {
  host: string;
  port: number;
  messages: CapturedMail[];
  /** Resolve with the first message to `to` (now or when it arrives). */
  waitFor(to: string, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

/** Undo the transfer encoding of a single-part message body. */
function decodeBody(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
    return body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

/**
 * Start a capture server on 127.0.0.1, port 0 (no TLS, any or no authentication accepted). `delayMs`: a slow server
 * that waits that long before answering the connection and the end of each message.
 */
export async function startSmtpCapture(opts: { delayMs?: number } = {}): Promise<SmtpCapture> {
  const delay = opts.delayMs ?? 0;
  const later = (cb: () => void): void => void (delay > 0 ? setTimeout(cb, delay) : cb());
  const messages: CapturedMail[] = [];
  const waiters: { to: string; resolve: (m: CapturedMail) => void }[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onConnect(_session, cb) {
      later(() => cb());
    },
    onAuth(_auth, _session, cb) {
      cb(null, { user: 'test' });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: CapturedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: decodeBody(raw),
        };
        messages.push(mail);
        for (const w of [...waiters]) {
          if (mail.to.some((t) => t.toLowerCase() === w.to.toLowerCase())) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        later(() => cb());
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    messages,
    waitFor(to, timeoutMs = 10_000) {
      const found = messages.find((m) => m.to.some((t) => t.toLowerCase() === to.toLowerCase()));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          to,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first http(s) URL in a mail's text. */
export function linkIn(mail: CapturedMail): string {
  const m = /https?:\/\/\S+/.exec(mail.text);
  if (!m) throw new Error('no link in the mail');
  return m[0];
}

/** What verifying an address in a browser needs of a Playwright page (kept structural: no browser types here). */
interface LinkPage {
  goto(url: string): Promise<unknown>;
  click(selector: string): Promise<void>;
  waitForSelector(selector: string): Promise<unknown>;
}

/**
 * Rule set A's sign-up leaves the address unverified (issue 15 item 1): open the verification link the dashboard
 * mailed to `to` (read from the capture's mailbox) and confirm it, as the customer would.
 */
export async function verifyByMailedLink(page: LinkPage, smtp: SmtpCapture, to: string): Promise<void> {
  await page.goto(linkIn(await smtp.waitFor(to)));
  await page.click('form[action="/verify/email"] button[type=submit]');
  await page.waitForSelector('text=E-mail address confirmed');
}
