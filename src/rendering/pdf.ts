import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const PDFJS_DIR = dirname(require.resolve('pdfjs-dist/package.json'));

export type OpenedPdf = Awaited<ReturnType<typeof openPdf>>;

/**
 * A PDF opened by pdf.js from a file, read by ranges (the cross-reference and page tree, then
 * what each page drawn needs), never whole. No script runs (pdf.js has none to run with
 * `isEvalSupported` off and no scripting), and an embedded image over `maxPixels` is skipped.
 */
export async function openPdf(path: string, maxPixels: number) {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const file = await open(path);
  const { size } = await file.stat();
  const transport = new pdfjs.PDFDataRangeTransport(size, new Uint8Array(0));
  transport.requestDataRange = (begin: number, end: number) => {
    const bytes = new Uint8Array(end - begin);
    file.read(bytes, 0, end - begin, begin).then(
      () => transport.onDataRange(begin, bytes),
      () => transport.abort(),
    );
  };
  const task = pdfjs.getDocument({
    range: transport,
    length: size,
    rangeChunkSize: 64 * 1024,
    disableAutoFetch: true,
    disableStream: true,
    isEvalSupported: false,
    enableXfa: false,
    maxImageSize: maxPixels,
    standardFontDataUrl: `${join(PDFJS_DIR, 'standard_fonts')}/`,
    cMapUrl: `${join(PDFJS_DIR, 'cmaps')}/`,
    cMapPacked: true,
    verbosity: 0,
  });
  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (err) {
    await task.destroy();
    await file.close();
    throw err;
  }
  return {
    numPages: pdf.numPages,
    getPage: (n: number) => pdf.getPage(n),
    async destroy() {
      await task.destroy();
      await file.close();
    },
  };
}
