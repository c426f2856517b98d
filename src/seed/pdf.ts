import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/** A page of a made-up document: its heading and lines of text. */
export interface PageText {
  heading: string;
  lines: string[];
}

/** A real, multi-page PDF (US Letter) with the given pages of text, made with pdf-lib. */
export async function makePdf(title: string, pages: readonly PageText[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  pdf.setCreator('Deal Room Analytics');
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  pages.forEach(({ heading, lines }, i) => {
    const page = pdf.addPage([612, 792]);
    page.drawRectangle({ x: 0, y: 742, width: 612, height: 50, color: rgb(0.11, 0.23, 0.42) });
    page.drawText(title, { x: 48, y: 760, size: 14, font: bold, color: rgb(1, 1, 1) });
    page.drawText(heading, { x: 48, y: 680, size: 26, font: bold, color: rgb(0.1, 0.1, 0.12) });
    lines.forEach((line, j) => {
      page.drawText(line, { x: 48, y: 630 - j * 22, size: 13, font: regular, color: rgb(0.2, 0.2, 0.24) });
    });
    page.drawText(`${i + 1} / ${pages.length}`, {
      x: 540,
      y: 36,
      size: 10,
      font: regular,
      color: rgb(0.4, 0.4, 0.45),
    });
  });
  return pdf.save();
}

/** A PDF of `count` numbered pages, for tests and examples. */
export function numberedPdf(count: number, title = 'Test document'): Promise<Uint8Array> {
  return makePdf(
    title,
    Array.from({ length: count }, (_, i) => ({
      heading: `Page ${i + 1}`,
      lines: [`This is page ${i + 1} of ${count}.`],
    })),
  );
}
