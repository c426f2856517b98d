import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../core/metrics.ts';
import type { Database } from './database.ts';

/** The database pool's waits and sheds (503s), read when /metrics is scraped. */
export function trackPool(metrics: Metrics, db: Database): void {
  if (metrics.registry.getSingleMetric('dealroom_db_pool_waiting')) return;
  const registers = [metrics.registry];
  new Counter({
    name: 'dealroom_db_pool_waits_total',
    help: 'Requests that waited for a database connection',
    registers,
    collect() {
      this.reset();
      this.inc(db.poolStats().waits);
    },
  });
  new Counter({
    name: 'dealroom_db_pool_sheds_total',
    help: 'Requests refused with 503 because no database connection was free in time',
    registers,
    collect() {
      this.reset();
      this.inc(db.poolStats().sheds);
    },
  });
  new Gauge({
    name: 'dealroom_db_pool_waiting',
    help: 'Requests waiting for a database connection now',
    registers,
    collect() {
      this.set(db.poolStats().waiting);
    },
  });
}
