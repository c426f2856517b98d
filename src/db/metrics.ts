import { Counter, Gauge, type Registry } from 'prom-client';
import { type Metrics, ownMetrics } from '../core/metrics.ts';
import type { Database } from './database.ts';

/** The pools a process reads its waits and sheds from, each under its own name. */
const poolMetrics = ownMetrics((registry: Registry) => {
  const pools = new Map<Database, string>();
  const each = (read: (db: Database) => number) =>
    [...pools].map(([db, pool]) => ({ pool, value: read(db) }));
  const registers = [registry];
  const labelNames = ['pool'] as const;
  new Counter({
    name: 'dealroom_db_pool_waits_total',
    help: 'Requests that waited for a database connection, by pool',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { pool, value } of each((db) => db.poolStats().waits)) this.inc({ pool }, value);
    },
  });
  new Counter({
    name: 'dealroom_db_pool_sheds_total',
    help: 'Requests refused with 503 because no database connection was free in time, by pool',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { pool, value } of each((db) => db.poolStats().sheds)) this.inc({ pool }, value);
    },
  });
  new Gauge({
    name: 'dealroom_db_pool_waiting',
    help: 'Requests waiting for a database connection now, by pool',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const { pool, value } of each((db) => db.poolStats().waiting)) this.set({ pool }, value);
    },
  });
  return { pools };
});

/**
 * Puts a pool's waits and sheds (503s) on /metrics under `pool` (main: the read API's; writes:
 * the management API's and the web app's; worker: the webhook worker's). A pool is tracked
 * once, under the first name given.
 */
export function trackPool(metrics: Metrics, db: Database, pool = 'main'): void {
  const { pools } = poolMetrics(metrics);
  if (!pools.has(db)) pools.set(db, pool);
}
