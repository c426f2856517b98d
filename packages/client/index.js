/**
 * Deal Room Analytics API v1 client. No dependencies: it needs only `fetch` and Web Crypto,
 * both built into Node.js 18+ and browsers. Types are in index.d.ts.
 */

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const RETRYABLE = (status) => status === 429 || status >= 500;

/** An error answered by the API (or a network failure: status 0, code "network_error"). */
export class DealRoomApiError extends Error {
  /**
   * @param {string} message
   * @param {{ status: number, code: string, requestId?: string | undefined, retryAfterSeconds?: number | undefined, cause?: unknown }} details
   */
  constructor(message, details) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'DealRoomApiError';
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export class DealRoomClient {
  /** @param {object} options see ClientOptions in index.d.ts */
  constructor(options) {
    if (!options?.apiKey) throw new TypeError('apiKey is required');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));

    const room = (id) => `/v1/deal-rooms/${encodeURIComponent(id)}`;
    this.dealRooms = {
      list: (params = {}) => this.#pages('/v1/deal-rooms', { status: params.status }, params.perPage),
      get: async (id) => (await this.request(room(id))).data,
    };
    this.documents = {
      list: (roomId, params = {}) => this.#pages(`${room(roomId)}/documents`, {}, params.perPage),
    };
    this.links = { list: (roomId, params = {}) => this.#pages(`${room(roomId)}/links`, {}, params.perPage) };
    this.viewers = {
      list: (roomId, params = {}) => this.#pages(`${room(roomId)}/viewers`, {}, params.perPage),
    };
    this.analytics = {
      get: async (roomId, params = {}) =>
        (await this.request(`${room(roomId)}/analytics`, { period: params.period })).data,
    };
  }

  /**
   * GET a path of the API and return its JSON body. Retries 429, 5xx and network failures
   * up to `maxRetries` times, waiting what Retry-After says (when it is within
   * `maxRetryDelayMs`) or an exponential, jittered delay.
   * @param {string} path
   * @param {Record<string, string | number | undefined>} [query]
   */
  async request(path, query = {}) {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await this.fetch(url, {
          headers: { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' },
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (cause) {
        if (attempt < this.maxRetries) {
          await this.sleep(backoff(attempt));
          continue;
        }
        throw new DealRoomApiError(
          `request to ${url.pathname} failed: ${cause instanceof Error ? cause.message : cause}`,
          {
            status: 0,
            code: 'network_error',
            cause,
          },
        );
      }
      if (response.ok) return response.json();

      const error = await toError(response);
      const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : backoff(attempt);
      if (RETRYABLE(response.status) && attempt < this.maxRetries && wait <= this.maxRetryDelayMs) {
        await this.sleep(wait);
        continue;
      }
      throw error;
    }
  }

  /**
   * @param {string} path
   * @param {Record<string, string | undefined>} filters
   * @param {number | undefined} perPage
   */
  #pages(path, filters, perPage) {
    const fetchPage = async (page) => {
      const body = await this.request(path, { ...filters, page, per_page: perPage ?? 100 });
      return { data: body.data, pagination: body.meta.pagination };
    };
    return {
      page: fetchPage,
      async *[Symbol.asyncIterator]() {
        for (let page = 1; ; page++) {
          const { data, pagination } = await fetchPage(page);
          yield* data;
          if (page >= pagination.totalPages || data.length === 0) return;
        }
      },
      async toArray() {
        const all = [];
        for await (const item of this) all.push(item);
        return all;
      },
    };
  }
}

/** 0.5 s, 1 s, 2 s, ... up to 30 s, each with up to 50% random extra so clients do not retry in step. */
function backoff(attempt) {
  const base = Math.min(500 * 2 ** attempt, 30_000);
  return base + Math.random() * base * 0.5;
}

/** @param {Response} response */
async function toError(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new DealRoomApiError(body?.error ?? `HTTP ${response.status}`, {
    status: response.status,
    code: body?.code ?? 'http_error',
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds:
      Number.isFinite(retryAfter) && response.headers.has('retry-after') ? retryAfter : undefined,
  });
}

/** A webhook delivery that failed verification; never act on its payload. */
export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Verifies a webhook delivery (Standard Webhooks: HMAC-SHA256 over "id.timestamp.body"
 * with the endpoint's whsec_ secret) and returns its parsed payload. Pass the raw body
 * exactly as received. `secret` may be a list while a secret is being rotated.
 * @param {string | Uint8Array} rawBody
 * @param {Headers | Record<string, string | string[] | undefined>} headers
 * @param {string | string[]} secret
 * @param {{ toleranceSeconds?: number, now?: Date }} [options]
 */
export async function verifyWebhook(rawBody, headers, secret, options = {}) {
  const read = (name) => {
    const value =
      typeof headers.get === 'function' ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
    return Array.isArray(value) ? value[0] : (value ?? undefined);
  };
  const id = read('webhook-id');
  const timestamp = read('webhook-timestamp');
  const signatures = read('webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');

  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const offered = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  for (const candidate of Array.isArray(secret) ? secret : [secret]) {
    const expected = await hmacBase64(candidate, content);
    if (offered.some((signature) => constantTimeEqual(signature, expected))) return JSON.parse(body);
  }
  throw new WebhookVerificationError('no signature matches');
}

async function hmacBase64(secret, content) {
  const encoded = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  const keyBytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, content));
  return btoa(String.fromCharCode(...mac));
}

function constantTimeEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
