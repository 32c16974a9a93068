/**
 * A receipt as a PDF (D31) made with pdfkit: the standard Helvetica fonts only (built into every PDF reader; nothing
 * is downloaded or embedded), one A4 page, the same content as the HTML page.
 */
import PDFDocument from 'pdfkit';
import type { ReceiptDoc } from './receipt-doc';

/** Render the receipt; resolves with the PDF bytes. */
export function receiptPdf(doc: ReceiptDoc): Promise<Buffer> {
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
    pdf.moveDown(0.5);
    pdf.font('Helvetica').fontSize(14).text(`Receipt ${doc.number}`);
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
