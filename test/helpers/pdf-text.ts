/**
 * The text of a PDF (receipts, issue 15 item 3), read back with pdf-parse: what a reader would copy out of it.
 * pdf-parse 2 loads pdf.js's worker with a dynamic import(), which jest's module sandbox refuses, so it runs in a
 * plain Node child process: the PDF goes in on stdin, the text comes back on stdout.
 */
import { spawn } from 'node:child_process';

const SCRIPT = `
const { PDFParse } = require('pdf-parse');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const parser = new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) });
  try {
    process.stdout.write((await parser.getText()).text);
  } finally {
    await parser.destroy();
  }
});`;

/** Every page's text, joined; rejects when the bytes are not a PDF pdf-parse can read. */
export function pdfText(bytes: Buffer | Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pdf-parse failed (${code}): ${err.slice(0, 500)}`)),
    );
    child.stdin.end(Buffer.from(bytes));
  });
}
