import type { FastifyInstance } from 'fastify';

/** A browser on the web app through inject: its cookies (kept from every answer) and its address. */
export function linkVisitor(web: Pick<FastifyInstance, 'inject'>, address = '198.51.100.7') {
  const jar = new Map<string, string>();
  const request = async (
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    raw?: string,
  ) => {
    const response = await web.inject({
      method,
      url,
      remoteAddress: address,
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...(raw !== undefined ? { 'content-type': 'text/plain' } : {}),
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
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
    post: (url: string, form: Record<string, string>) => request('POST', url, form),
    report: (url: string, body: unknown) => request('POST', url, undefined, JSON.stringify(body)),
    /** The form token of the page at the link's address (the gate, or the step it is at). */
    async token(shortId: string) {
      const gate = await request('GET', `/v/${shortId}`);
      return /name="token" value="([^"]+)"/.exec(gate.body)?.[1] ?? '';
    },
  };
}
