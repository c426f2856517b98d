import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress } from '../webhooks/addresses.ts';
import { parseRetryAfter } from './schedule.ts';
import { webhookHeaders } from './signature.ts';

/** Who is calling, in every delivery's User-Agent. */
export const WEBHOOK_USER_AGENT = 'DealRoomAnalytics-Webhooks/1.0';

/** A delivery succeeds on a 2xx within this time (contract.md section 4). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Resolves a host name to its addresses: the system resolver, or a test's own. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export interface SenderOptions {
  userAgent: string;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: any address may be reached (development and tests). */
  allowPrivate: boolean;
  timeoutMs?: number;
  /**
   * Connections open at once to one host and port. The worker bounds the requests in flight
   * per endpoint itself; several endpoints on one host (a slow one among them) must not
   * queue behind each other here.
   */
  maxSocketsPerHost?: number;
  resolve?: Resolver;
}

/** One attempt as it is recorded (contract.md section 4), and what schedules the next. */
export interface SendResult {
  /** The HTTP status; null on a timeout, a network error or a refused address. */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The precise reason, for the operator's log only: never shown to the team. */
  detail?: string | undefined;
  retryAfterMs?: number | undefined;
}

/**
 * What the team's attempt list says of a delivery that got no HTTP answer: its cause by kind
 * (the name did not resolve, the connection was refused or cut, the certificate was refused,
 * no answer in time), never an address a name resolved to or an error's own text. Private
 * addresses are refused before any connection, so the causes say nothing of the service's own
 * network; the log has the detail.
 */
export const NO_ANSWER = 'no answer: the connection failed';
export const timedOut = (ms: number) => `no answer within ${ms / 1000} s (timed out)`;

/** A network error's cause, by kind, as the team may see it. */
export function causeOf(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') {
    return "the endpoint's host name could not be resolved (DNS)";
  }
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/.test(err.message)) {
    return 'the connection was closed before an answer';
  }
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH')
    return 'the host could not be reached';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return "the endpoint's TLS certificate was refused";
  return NO_ANSWER;
}
export const ADDRESS_NOT_ALLOWED = "the endpoint's address is not allowed (private, loopback or link-local)";

/** Refused before a byte was sent: the host resolved only to addresses a webhook must not reach. */
class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDEN_ADDRESS';
}

/**
 * POSTs signed events. Connections are kept alive per host. Unless private addresses are
 * allowed, the address each connection is about to use is checked (a DNS answer that
 * changed since the endpoint was registered cannot reach an internal address), and an IP
 * literal is checked before connecting. Redirects are not followed.
 */
export class WebhookSender {
  readonly #options: Required<Omit<SenderOptions, 'resolve'>> & { resolve: Resolver | undefined };
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(options: SenderOptions) {
    this.#options = {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxSocketsPerHost: 256,
      ...options,
      resolve: options.resolve,
    };
    const agent = {
      keepAlive: true,
      maxSockets: this.#options.maxSocketsPerHost,
      // An idle kept connection is closed before a receiver's server would close it.
      timeout: 4_000,
      lookup: this.#lookup,
    };
    this.#http = new http.Agent(agent);
    this.#https = new https.Agent(agent);
  }

  /** Sends one event: `body` is the stored payload, signed with every secret given. */
  async send(url: string, secrets: string[], eventId: string, body: string, now: Date): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { status: null, durationMs: 0, error: 'the endpoint URL is not valid' };
    }
    // An endpoint stored while http:// was allowed is not reached over http:// once it is not.
    if (!this.#options.allowPrivate && target.protocol !== 'https:') {
      return {
        status: null,
        durationMs: 0,
        error: 'the endpoint URL is not https://, and this service reaches only https:// endpoints',
      };
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.#options.allowPrivate && isIP(host) && isForbiddenAddress(host)) {
      return {
        status: null,
        durationMs: 0,
        error: ADDRESS_NOT_ALLOWED,
        detail: `address ${host} is private, loopback or link-local`,
      };
    }
    const secure = target.protocol === 'https:';
    const headers = {
      ...webhookHeaders(secrets, eventId, Math.floor(now.getTime() / 1000), body),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': this.#options.userAgent,
    };
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const settle = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...result, durationMs: elapsed() });
      };
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        headers,
        agent: secure ? this.#https : this.#http,
      });
      // One deadline for the whole exchange: connecting, sending, and the receiver's answer.
      const deadline = setTimeout(() => {
        settle({
          status: null,
          error: timedOut(this.#options.timeoutMs),
          detail: `timed out after ${this.#options.timeoutMs / 1000} s`,
        });
        request.destroy();
      }, this.#options.timeoutMs);
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        // The body is not read, only drained, so the connection can serve the next delivery.
        response.resume();
        response.on('end', () => clearTimeout(deadline));
        response.on('error', () => clearTimeout(deadline));
        settle({
          status,
          error: status >= 200 && status < 300 ? null : describeStatus(status),
          retryAfterMs: parseRetryAfter(headerValue(response.headers['retry-after']), now),
        });
      });
      request.on('error', (err) => {
        clearTimeout(deadline);
        settle({
          status: null,
          error: err instanceof ForbiddenAddressError ? ADDRESS_NOT_ALLOWED : causeOf(err),
          detail: describeNetworkError(err),
        });
      });
      request.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  /** dns.lookup, less every address a webhook must not reach. */
  readonly #lookup: LookupFunction = (hostname, options, callback) => {
    const answer = (err: NodeJS.ErrnoException | null, all: { address: string; family: number }[]) => {
      if (err) return callback(err, '', 0);
      const allowed = this.#options.allowPrivate ? all : all.filter((a) => !isForbiddenAddress(a.address));
      if (allowed.length === 0) {
        const refused = all.map((a) => a.address).join(', ');
        return callback(
          new ForbiddenAddressError(`${hostname} resolves to ${refused}: private, loopback or link-local`),
          '',
          0,
        );
      }
      if (options.all) return (callback as (e: null, a: typeof allowed) => void)(null, allowed);
      const first = allowed[0] as { address: string; family: number };
      callback(null, first.address, first.family);
    };
    const resolver = this.#options.resolve;
    if (resolver) {
      resolver(hostname).then(
        (all) => answer(null, all),
        (err: NodeJS.ErrnoException) => answer(err, []),
      );
      return;
    }
    dnsLookup(hostname, { ...options, all: true }, (err, all) => answer(err, all ?? []));
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}`;
}

/** The reason of a failed connection, without anything the receiver sent. */
function describeNetworkError(err: NodeJS.ErrnoException): string {
  if (err instanceof ForbiddenAddressError) return err.message;
  const code = err.code ? `${err.code}: ` : '';
  return `${code}${err.message}`.slice(0, 300);
}
