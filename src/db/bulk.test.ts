import { describe, expect, it } from 'vitest';
import { copyLine } from './bulk.ts';

describe('copyLine', () => {
  it("writes one row in COPY's text format, escaping what would end a field or a row", () => {
    expect(copyLine(['a\tb\\c\nd\re', null, undefined, true, false, 3, new Date(0), 'plain'])).toBe(
      'a\\tb\\\\c\\nd\\re\t\\N\t\\N\tt\tf\t3\t1970-01-01T00:00:00.000Z\tplain\n',
    );
  });
});
