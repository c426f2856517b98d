import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { PublicLink } from './repo.ts';

/** A person's pass through one link's gate, kept in a signed cookie scoped to the link's path. */
export interface LinkSession {
  /** The link's gate when it was passed: a changed password or email rule asks again. */
  gate: string;
  email?: string | undefined;
  name?: string | undefined;
  /** The link's short id: a session stands for this link only (a report through another is refused). */
  link?: string | undefined;
  /** Seconds since the epoch when the gate was passed (the time a watermark shows). */
  since?: number | undefined;
  /** Seconds since the epoch of the last page this session opened (a visit after 30 minutes without). */
  seen: number;
  /** The gate's step still to pass: the mailed code, or the agreement. A session with one has not passed. */
  step?: 'verify' | 'agree' | undefined;
  /** The code mailed for the verify step (gate_codes). */
  code?: string | undefined;
  /** The email was proved with a code. */
  verified?: boolean | undefined;
}

/** The emails this browser proved with a code, each until a time (seconds since the epoch). */
export interface VerifiedEmails {
  emails: Record<string, number>;
}

export const VERIFIED_COOKIE = 'dr_verified';
/** How long a browser is not asked again for a code for an email it proved. */
export const VERIFIED_DAYS = 30;

export const SESSION_COOKIE = 'dr_link';
/** How long a form (the gate, sign-in, an invitation's) may be sent after it was shown. */
export const FORM_TOKEN_SECONDS = 2 * 60 * 60;
export const VISITOR_COOKIE = 'dr_visitor';
export const SESSION_DAYS = 30;
export const VISITOR_DAYS = 365;

/**
 * Signs and checks the link page's cookies and form tokens with the service's own key
 * (one for every process: repo.ts serviceSecret).
 */
export class Signer {
  readonly #key: Buffer;
  constructor(key: string) {
    this.#key = Buffer.from(key, 'base64url');
  }

  static freshKey(): string {
    return randomBytes(32).toString('base64url');
  }

  #mac(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }

  sign(value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  verify<T>(signed: string | undefined): T | undefined {
    if (!signed) return undefined;
    const [body, mac] = signed.split('.');
    if (!body || !mac || !same(mac, this.#mac(body))) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString()) as T;
    } catch {
      return undefined;
    }
  }

  /** What a session must carry to stand for this link's gate as it is now. */
  gateOf(link: PublicLink): string {
    return this.#mac(
      `gate|${link.id}|${link.requires_email}|${link.password_hash ?? ''}|${link.verify_email}|${link.gate_digest}`,
    ).slice(0, 22);
  }

  /**
   * A form's token: bound to its purpose (a link's gate, sign-in) and the browser (its visitor
   * or form cookie), so another site cannot post it, and good for FORM_TOKEN_SECONDS from `at`.
   */
  formToken(purpose: string, browser: string, at: Date): string {
    const issued = Math.floor(at.getTime() / 1000);
    return `${issued}.${this.#mac(`form|${purpose}|${browser}|${issued}`)}`;
  }

  checkFormToken(purpose: string, browser: string, token: unknown, now: Date): boolean {
    if (typeof token !== 'string') return false;
    const issued = Number(token.slice(0, token.indexOf('.')));
    const age = Math.floor(now.getTime() / 1000) - issued;
    if (!Number.isInteger(issued) || age < -60 || age > FORM_TOKEN_SECONDS) return false;
    return same(token, `${issued}.${this.#mac(`form|${purpose}|${browser}|${issued}`)}`);
  }

  /** A view's reporting token: the viewer page's reports name the view they are about. */
  viewToken(viewId: string): string {
    return this.#mac(`view|${viewId}`).slice(0, 32);
  }

  checkViewToken(viewId: string, token: unknown): boolean {
    return typeof token === 'string' && same(token, this.viewToken(viewId));
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function newVisitorId(): string {
  return randomUUID();
}

export const VISITOR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Parses a Cookie header (the few the link page sets; anything odd is ignored). */
export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const name = part.slice(0, at).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(at + 1).trim());
  }
  return cookies;
}

export function cookie(
  name: string,
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
