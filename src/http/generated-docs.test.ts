import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedDocs } from '../../scripts/docs.ts';

describe('the documentation generated from the schemas', () => {
  it('is what the code would write now (run npm run docs after changing a schema)', async () => {
    for (const [name, text] of Object.entries(await generatedDocs())) {
      expect(readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8'), name).toBe(text);
    }
  });
});
