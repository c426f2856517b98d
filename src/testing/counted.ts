import type { Database } from '../db/database.ts';

/** The store, counting the queries made through it (`counter.n`). */
export function countedQueries(db: Database): { db: Database; counter: { n: number } } {
  const counter = { n: 0 };
  const proxy = new Proxy(db, {
    get(target, property) {
      if (property === 'query') {
        return (...args: Parameters<Database['query']>) => {
          counter.n++;
          return target.query(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: proxy as Database, counter };
}
