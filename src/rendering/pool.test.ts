import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberedPdf } from '../seed/pdf.ts';
import {
  htmlPolyglot,
  hugePngHeader,
  inflationBomb,
  pageTreeBomb,
  scriptedPdf,
} from '../testing/hostile-files.ts';
import { createFileWork, type FileWork } from './pool.ts';

const WEBP = (bytes: Uint8Array) =>
  Buffer.from(bytes.subarray(0, 4)).toString() === 'RIFF' &&
  Buffer.from(bytes.subarray(8, 12)).toString() === 'WEBP';

describe('file threads: hostile files are refused or drawn, within limits, off the listeners thread', {
  timeout: 120_000,
}, () => {
  let work: FileWork;
  let folder: string;
  beforeAll(async () => {
    work = createFileWork({ maxPages: 20, memoryMb: 128, taskSeconds: 20, maxPixels: 40_000_000 });
    folder = await mkdtemp(join(tmpdir(), 'dealroom-hostile-'));
  });
  afterAll(async () => {
    await work?.close();
    await rm(folder, { recursive: true, force: true });
  });
  const file = async (name: string, bytes: Uint8Array) => {
    const path = join(folder, name);
    await writeFile(path, bytes);
    return path;
  };

  it('refuses a page tree that reuses one node to claim 2^30 pages, and a PDF over FILE_MAX_PAGES, with 422', async () => {
    const dag = await file('dag.pdf', pageTreeBomb(30));
    await expect(work.inspect(dag, 'application/pdf')).rejects.toMatchObject({
      code: 'unprocessable_file',
      statusCode: 422,
      cause: expect.stringContaining('1073741824 pages'),
    });
    const long = await file('long.pdf', await numberedPdf(21));
    await expect(work.inspect(long, 'application/pdf')).rejects.toMatchObject({ code: 'unprocessable_file' });
    expect(await work.inspect(await file('ok.pdf', await numberedPdf(20)), 'application/pdf')).toEqual({
      pageCount: 20,
    });
  });

  it('cancels drawing a page that inflates to a GiB, while this thread keeps answering, and goes on with the next file', async () => {
    const bomb = await file('bomb.pdf', inflationBomb(1024));
    expect(await work.inspect(bomb, 'application/pdf')).toEqual({ pageCount: 1 });
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    await expect(work.render(bomb, 'application/pdf', [1])).rejects.toMatchObject({
      code: 'unprocessable_file',
      cause: expect.stringMatching(/memory limit|time limit/),
    });
    lag.disable();
    // The listeners' thread was never blocked for long: it only waited for an answer.
    expect(lag.max / 1e6).toBeLessThan(1000);
    const next = await work.render(await file('after.pdf', await numberedPdf(1)), 'application/pdf', [1]);
    expect(next.map((image) => image.width)).toEqual([1600, 800, 240]);
  });

  it('draws a PDF that asks to run JavaScript, and a PDF/HTML polyglot, as plain images', async () => {
    for (const [name, bytes] of [
      ['scripted.pdf', scriptedPdf()],
      ['polyglot.pdf', htmlPolyglot()],
    ] as const) {
      const path = await file(name, bytes);
      expect(await work.inspect(path, 'application/pdf')).toEqual({ pageCount: 1 });
      const images = await work.render(path, 'application/pdf', [1]);
      expect(images.map((i) => [i.page, i.width])).toEqual([
        [1, 1600],
        [1, 800],
        [1, 240],
      ]);
      for (const image of images) expect(WEBP(image.bytes)).toBe(true);
      // Letter size, its aspect ratio kept.
      expect(images[0]?.height).toBe(Math.round((1600 * 792) / 612));
    }
  });

  it('refuses an image whose header claims more pixels than may be decoded, before decoding it', async () => {
    await expect(work.inspect(await file('huge.png', hugePngHeader()), 'image/png')).rejects.toMatchObject({
      code: 'unprocessable_file',
    });
  });

  it('draws a watermark into the pixels (Unicode text) and stamps one on a PDF', async () => {
    const [page] = await work.render(await file('plain.pdf', await numberedPdf(1)), 'application/pdf', [1]);
    const image = (page as { bytes: Uint8Array }).bytes;
    const one = await work.watermark(image, ['почта@пример.рф', '2026-11-26 10:00 UTC', 'Buyer']);
    const other = await work.watermark(image, ['cfo@buyer.example', '2026-11-26 10:00 UTC', 'Buyer']);
    expect(WEBP(one)).toBe(true);
    expect(Buffer.compare(Buffer.from(one), Buffer.from(image))).not.toBe(0);
    expect(Buffer.compare(Buffer.from(one), Buffer.from(other))).not.toBe(0);
    const pdf = await numberedPdf(2);
    const stamped = await work.stamp(await file('stamp.pdf', pdf), ['почта@пример.рф', 'Buyer']);
    expect(Buffer.from(stamped.subarray(0, 5)).toString()).toBe('%PDF-');
    expect(Buffer.compare(Buffer.from(stamped), Buffer.from(pdf))).not.toBe(0);
    // Every page carries the text, readable as text (a Unicode font is embedded).
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const read = await pdfjs.getDocument({ data: stamped, verbosity: 0 }).promise;
    for (const n of [1, 2]) {
      const text = (await (await read.getPage(n)).getTextContent()).items
        .map((i) => ('str' in i ? i.str : ''))
        .join(' ');
      expect(text).toContain('почта@пример.рф');
    }
    await read.destroy();
  });
});
