/**
 * What runs inside the file threads (pool.ts): counting a file's pages, drawing them as
 * images, drawing a watermark into an image and stamping one on a PDF. Nothing here runs on
 * a listener's thread, and each task runs under the pool's memory and time limits.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Canvas, createCanvas, GlobalFonts, loadImage } from '@napi-rs/canvas';
import { imageSize } from './image-size.ts';
import { openPdf } from './pdf.ts';
import { type FileTask, type PageImage, REFUSED, UNREADABLE } from './protocol.ts';

const require = createRequire(import.meta.url);
const FONT_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT = 'DejaVu Sans';
GlobalFonts.registerFromPath(FONT_PATH, FONT);

export default async function run(task: FileTask): Promise<unknown> {
  switch (task.kind) {
    case 'warm':
      await import('pdfjs-dist/legacy/build/pdf.mjs');
      return true;
    case 'inspect':
      return inspect(task);
    case 'render':
      return render(task);
    case 'watermark':
      return watermarkImage(task.image, task.lines);
    case 'stamp':
      return stampPdf(task.path, task.lines);
  }
}

async function inspect(task: Extract<FileTask, { kind: 'inspect' }>): Promise<{ pageCount: number }> {
  if (task.type !== 'application/pdf') {
    const size = imageSize(await readFile(task.path));
    if (!size) throw new Error(`${UNREADABLE}the image's size cannot be read`);
    if (size.width * size.height > task.maxPixels) throw refused('the image is too large to show');
    return { pageCount: 1 };
  }
  const pdf = await openPdf(task.path, task.maxPixels).catch((err) => {
    // pdf.js names a file it cannot parse; anything else (a limit, a crash) is not a verdict on the file.
    if (
      err instanceof Error &&
      /Invalid PDF|Missing PDF|PasswordException|FormatError/i.test(`${err.name} ${err.message}`)
    ) {
      throw new Error(`${UNREADABLE}${err.message}`);
    }
    throw err;
  });
  try {
    const pageCount = pdf.numPages;
    if (pageCount < 1) throw refused('the PDF has no pages');
    if (pageCount > task.maxPages)
      throw refused(`the PDF has ${pageCount} pages, more than ${task.maxPages}`);
    return { pageCount };
  } finally {
    await pdf.destroy();
  }
}

/**
 * The pages asked for, each drawn once at the largest width and scaled down for the others,
 * as WebP; the page's own aspect ratio is kept (a landscape slide stays landscape).
 */
async function render(task: Extract<FileTask, { kind: 'render' }>): Promise<PageImage[]> {
  const widths = [...task.widths].sort((a, b) => b - a);
  const largest = widths[0] ?? 1600;
  const out: PageImage[] = [];
  if (task.type !== 'application/pdf') {
    const bytes = await readFile(task.path);
    const size = imageSize(bytes);
    if (!size || size.width * size.height > task.maxPixels) throw refused('the image is too large to show');
    const image = await loadImage(bytes);
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0);
    out.push(...(await scaled(canvas, 1, widths)));
    return out;
  }
  const pdf = await openPdf(task.path, task.maxPixels);
  try {
    for (const number of task.pages) {
      const page = await pdf.getPage(number);
      const unscaled = page.getViewport({ scale: 1 });
      // A page of absurd proportions is drawn no taller than four widths.
      const scale = Math.min(largest / unscaled.width, (largest * 4) / unscaled.height);
      const viewport = page.getViewport({ scale });
      const canvas = createCanvas(
        Math.max(1, Math.round(viewport.width)),
        Math.max(1, Math.round(viewport.height)),
      );
      const context = canvas.getContext('2d');
      context.fillStyle = '#fff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      await page.render({
        canvas: canvas as unknown as HTMLCanvasElement,
        canvasContext: context as unknown as CanvasRenderingContext2D,
        viewport,
      }).promise;
      page.cleanup();
      out.push(...(await scaled(canvas, number, widths)));
    }
    return out;
  } finally {
    await pdf.destroy();
  }
}

async function scaled(source: Canvas, page: number, widths: number[]): Promise<PageImage[]> {
  const images: PageImage[] = [];
  for (const width of widths) {
    const w = Math.min(width, source.width);
    const h = Math.max(1, Math.round((source.height * w) / source.width));
    const canvas = w === source.width ? source : createCanvas(w, h);
    if (canvas !== source) canvas.getContext('2d').drawImage(source, 0, 0, w, h);
    const bytes = await canvas.encode('webp', 82);
    images.push({ page, width, height: canvas.height, bytes: new Uint8Array(bytes) });
  }
  return images;
}

/**
 * The watermark drawn into an image's pixels: the lines across the page, large and faint, and
 * once more along its foot, small and clear. Unicode text (DejaVu Sans, from its npm package).
 */
async function watermarkImage(bytes: Uint8Array, lines: string[]): Promise<Uint8Array> {
  const image = await loadImage(Buffer.from(bytes));
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { width, height } = canvas;
  const size = Math.max(12, Math.round(width / 28));
  context.save();
  context.translate(width / 2, height / 2);
  context.rotate(-Math.atan2(height, width));
  context.font = `${size}px "${FONT}"`;
  context.textAlign = 'center';
  context.fillStyle = 'rgba(150, 20, 20, 0.22)';
  const step = size * 1.4;
  lines.forEach((line, i) => {
    context.fillText(line, 0, (i - (lines.length - 1) / 2) * step, width * 1.1);
  });
  context.restore();
  const small = Math.max(10, Math.round(width / 80));
  context.font = `${small}px "${FONT}"`;
  context.textAlign = 'left';
  context.fillStyle = 'rgba(60, 60, 60, 0.85)';
  context.fillText(lines.join(' · '), small, height - small, width - small * 2);
  return new Uint8Array(await canvas.encode('webp', 82));
}

/** A copy of a PDF with the lines on every page, in a Unicode font. */
async function stampPdf(path: string, lines: string[]): Promise<Uint8Array> {
  const { PDFDocument, degrees, rgb } = await import('pdf-lib');
  const fontkit = (await import('@pdf-lib/fontkit')).default;
  const pdf = await PDFDocument.load(await readFile(path), { ignoreEncryption: true, updateMetadata: false });
  pdf.registerFontkit(fontkit);
  const font = await pdf.embedFont(await readFile(FONT_PATH), { subset: true });
  const text = lines.join(' · ');
  for (const page of pdf.getPages()) {
    const { width, height } = page.getSize();
    const size = Math.max(10, Math.min(24, width / 30));
    lines.forEach((line, i) => {
      page.drawText(line, {
        x: width * 0.12,
        y: height * 0.3 - i * size * 1.4,
        size,
        font,
        color: rgb(0.55, 0.1, 0.1),
        opacity: 0.25,
        rotate: degrees(35),
      });
    });
    page.drawText(text, { x: 24, y: 16, size: 8, font, color: rgb(0.4, 0.4, 0.4), opacity: 0.85 });
  }
  return pdf.save();
}

function refused(reason: string): Error {
  return new Error(`${REFUSED}${reason}`);
}
