import { degrees, PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/**
 * A copy of a PDF with `text` (the viewer's email and the time) across every page. pdf-lib
 * rewrites the whole document, so this one copy is held in memory while it is made: only
 * downloads through a link with `watermark` on take this path.
 */
export async function watermarkedPdf(chunks: AsyncIterable<Buffer>, text: string): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const pdf = await PDFDocument.load(Buffer.concat(parts), { ignoreEncryption: true, updateMetadata: false });
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const page of pdf.getPages()) {
    const { width, height } = page.getSize();
    const size = Math.max(10, Math.min(28, width / 24));
    page.drawText(text, {
      x: width * 0.12,
      y: height * 0.3,
      size,
      font,
      color: rgb(0.55, 0.1, 0.1),
      opacity: 0.28,
      rotate: degrees(35),
    });
    page.drawText(text, { x: 24, y: 16, size: 8, font, color: rgb(0.4, 0.4, 0.4), opacity: 0.8 });
  }
  return pdf.save();
}
