import { unstorableTextAt } from '../core/text.ts';
import { DashboardError } from './errors.ts';

/** A form holding text no column can store (U+0000, an unpaired surrogate): a 400 page. */
export function unstorableForm(body: unknown): void {
  if (unstorableTextAt(body) === undefined) return;
  throw new DashboardError(400, 'Check what you entered', 'A field holds a character that cannot be stored.');
}
