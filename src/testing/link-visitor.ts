import type { FastifyInstance } from 'fastify';

/** A form's fields; a field given several values is sent once for each (checkboxes). */
export type FormFields = Record<string, string | readonly string[]>;

function formBody(form: FormFields): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const v of typeof value === 'string' ? [value] : value) body.append(name, v);
  }
  return body.toString();
}

/**
 * A browser on the web app (the link pages or the dashboard) through inject: its cookies
 * (kept from every answer) and its address.
 */
export function linkVisitor(web: Pick<FastifyInstance, 'inject'>, address = '198.51.100.7') {
  const jar = new Map<string, string>();
  const request = async (method: 'GET' | 'POST', url: string, form?: FormFields, raw?: string) => {
    const response = await web.inject({
      method,
      url,
      remoteAddress: address,
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...(raw !== undefined ? { 'content-type': 'text/plain' } : {}),
      },
      ...(form ? { payload: formBody(form) } : {}),
      ...(raw !== undefined ? { payload: raw } : {}),
    });
    const set = response.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  return {
    jar,
    get: (url: string) => request('GET', url),
    post: (url: string, form: FormFields) => request('POST', url, form),
    report: (url: string, body: unknown) => request('POST', url, undefined, JSON.stringify(body)),
    /** The CSRF token of this browser's dashboard session, read from a page's form. */
    async csrf() {
      const page = await request('GET', '/app/account');
      return /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    },
    /** The form token of the page at the link's address (the gate, or the step it is at). */
    async token(shortId: string) {
      const gate = await request('GET', `/v/${shortId}`);
      return /name="token" value="([^"]+)"/.exec(gate.body)?.[1] ?? '';
    },
  };
}
