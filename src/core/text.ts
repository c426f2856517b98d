/** The controls that reverse, isolate or hide in text: what a spoofed name is made with. */
export const HIDDEN_CONTROLS = /[\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069]/g;

/** Text without those controls (a viewer's name as the gate keeps it). */
export const withoutHiddenControls = (text: string): string => text.replace(HIDDEN_CONTROLS, '');

/** A surrogate without its pair. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Neither U+0000 nor a surrogate without its pair: text every column can store. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * The dotted path (`viewer.email`, `documentIds.2`) of the first string in a parsed JSON
 * value that is not storable text, or of the first such key; '' for the value itself;
 * undefined when every string is storable.
 */
export function unstorableTextAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (!isStorableText(key)) return at;
    const found = unstorableTextAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
