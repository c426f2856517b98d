import { domainToASCII } from 'node:url';
import { Type } from '@sinclair/typebox';
import { isEmail } from './fields.ts';

/**
 * Emails and `@domain` entries, as a link's allow and block lists and a team's internal
 * domains hold them: compared without case, a domain in its ASCII form, so `@Bücher.example`,
 * `@xn--bcher-kva.example` and `anna@BÜCHER.example` all name the same domain.
 */

/** The form an entry is kept and compared in, or undefined when it is neither an email nor `@domain`. */
export function entryKey(entry: string): string | undefined {
  const text = entry.trim();
  const at = text.lastIndexOf('@');
  if (at < 0 || text.length > 320) return undefined;
  const domain = domainKey(text.slice(at + 1));
  if (!domain) return undefined;
  if (at === 0) return `@${domain}`;
  const local = text.slice(0, at).toLowerCase();
  return isEmail(`${local}@${domain}`) ? `${local}@${domain}` : undefined;
}

/** An email in the form entries are compared with (undefined when it is not one). */
export const emailKey = (email: string): string | undefined => {
  const key = entryKey(email);
  return key?.startsWith('@') ? undefined : key;
};

function domainKey(domain: string): string | undefined {
  if (domain === '' || domain.startsWith('.') || !domain.includes('.')) return undefined;
  const ascii = domainToASCII(domain.toLowerCase());
  return ascii === '' || !/^[a-z0-9.-]+$/.test(ascii) ? undefined : ascii;
}

/** Whether an email is named by entries (kept keys): itself, or its domain as `@domain`. */
export function entriesName(entries: readonly string[], email: string): boolean {
  const key = emailKey(email);
  if (!key) return false;
  const domain = key.slice(key.lastIndexOf('@'));
  return entries.includes(key) || entries.includes(domain);
}

/**
 * Whether a link's lists let an email through: not named by the block list, and named by the
 * allow list when it has entries.
 */
export function listsAdmit(
  lists: { allow: readonly string[]; block: readonly string[] },
  email: string,
): boolean {
  if (entriesName(lists.block, email)) return false;
  return lists.allow.length === 0 || entriesName(lists.allow, email);
}

/** Entries as a write gives them, each kept once in its compared form; the first that is not an entry, named. */
export function entryKeys(
  entries: readonly string[],
): { ok: true; keys: string[] } | { ok: false; index: number; entry: string } {
  const keys: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const key = entryKey(entry);
    if (!key) return { ok: false, index, entry };
    if (!keys.includes(key)) keys.push(key);
  }
  return { ok: true, keys };
}

/** A list of entries in a body (at most 500, each checked by entryKeys where it is written). */
export const EntryList = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { maxItems: 500, description });
