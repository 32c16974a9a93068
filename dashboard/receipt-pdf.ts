/**
 * A receipt as a PDF (D31) made with pdfkit: the standard Helvetica fonts only (built into every PDF reader; nothing
 * is downloaded or embedded), one A4 page, the same content as the HTML page.
 */
import PDFDocument from 'pdfkit';
import type { ReceiptDoc } from './receipt-doc';

/** The characters of WinAnsiEncoding beyond ASCII and Latin-1: what the standard fonts can draw. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
/** Latin letters NFKD does not take apart. */
const LATIN: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Œ: 'OE',
  œ: 'oe',
};

function drawable(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(c);
}

/**
 * Text the standard fonts can draw: they know WinAnsiEncoding only, and pdfkit garbles a whole line with one
 * character outside it. Accented letters lose what the fonts lack (NFKD, marks dropped: "Ł" → "L", "ő" → "o"); any
 * other character (CJK, Cyrillic, emoji) becomes "?". The HTML receipt keeps the exact text (docs/decisions.md).
 */
export function pdfSafe(text: string): string {
  let out = '';
  for (const c of text) {
    if (drawable(c)) out += c;
    else if (LATIN[c] !== undefined) out += LATIN[c];
    else {
      const base = c.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base !== '' && [...base].every(drawable) ? base : '?';
    }
  }
  return out;
}

/** Render the receipt; resolves with the PDF bytes. */
export function receiptPdf(input: ReceiptDoc): Promise<Buffer> {
  const doc = safeDoc(input);
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument({
      size: 'A4',
      margin: 56,
      info: { Title: doc.title, Author: doc.seller, CreationDate: new Date(doc.issuedAt) },
    });
    const chunks: Buffer[] = [];
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);

    pdf.font('Helvetica-Bold').fontSize(20).text(doc.seller);
    pdf.font('Helvetica').fontSize(10).fillColor('#444444');
    for (const line of doc.sellerLines ?? []) pdf.text(line);
    pdf.moveDown(0.5);
    pdf.fillColor('#000000').font('Helvetica').fontSize(14).text(doc.title);
    pdf.fontSize(10).fillColor('#444444').text(`Date: ${doc.date}`);
    pdf.moveDown(1.2);
    pdf.fillColor('#000000').font('Helvetica-Bold').fontSize(11).text('Billed to');
    pdf.font('Helvetica').fontSize(11);
    for (const line of doc.billedTo) pdf.text(line);
    pdf.moveDown(1.2);
    const left = pdf.page.margins.left;
    const valueX = left + 170;
    for (const row of [...doc.rows, doc.total]) {
      const y = pdf.y;
      const bold = row === doc.total;
      pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').text(row.label, left, y, { width: 160 });
      const afterLabel = pdf.y;
      pdf.text(row.value, valueX, y, { width: pdf.page.width - pdf.page.margins.right - valueX });
      pdf.y = Math.max(pdf.y, afterLabel) + 6;
    }
    pdf.moveDown(1.5);
    pdf.font('Helvetica').fontSize(9).fillColor('#444444').text(doc.note, left);
    pdf.end();
  });
}

/** Every text of the receipt made drawable. */
function safeDoc(d: ReceiptDoc): ReceiptDoc {
  const row = (r: { label: string; value: string }) => ({ label: pdfSafe(r.label), value: pdfSafe(r.value) });
  return {
    ...d,
    title: pdfSafe(d.title),
    seller: pdfSafe(d.seller),
    sellerLines: (d.sellerLines ?? []).map(pdfSafe),
    billedTo: d.billedTo.map(pdfSafe),
    rows: d.rows.map(row),
    total: row(d.total),
    note: pdfSafe(d.note),
  };
}
