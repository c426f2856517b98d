import { buildApp } from '../app.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';

export const TEST_APP_URL = 'https://rooms.example.test';

/** The real app, in process, with logging off; requests go through `app.inject`. */
export async function testApp(db: Database, clock: Clock) {
  const app = await buildApp({ db, clock, appUrl: TEST_APP_URL, logger: { level: 'silent' } });
  await app.ready();
  const get = async (url: string, key?: string, headers: Record<string, string> = {}) => {
    const response = await app.inject({
      method: 'GET',
      url,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: bodyOf(response.body),
      raw: response.body,
    };
  };
  return { app, get };
}

function bodyOf(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
