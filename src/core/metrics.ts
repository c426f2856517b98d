import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The service's one Prometheus registry. Each owner declares its own metrics in a function
 * of the registry (http/ its request figures, delivery/ the queue's gauges, db/ the pool's)
 * and reaches them through `own`, which makes them once per registry: one registry per
 * process, and one per test app, so tests do not share counts.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #owned = new Map<(registry: Registry) => unknown, unknown>();

  /** What `declare` registers, declared once in this registry. */
  own<T>(declare: (registry: Registry) => T): T {
    if (!this.#owned.has(declare)) this.#owned.set(declare, declare(this.registry));
    return this.#owned.get(declare) as T;
  }

  /** Node's own figures (memory, event loop, handles): for a process, not for a test app. */
  withDefaults(): this {
    collectDefaultMetrics({ register: this.registry });
    return this;
  }
}

export function createMetrics(): Metrics {
  return new Metrics();
}

/**
 * An owner's metrics: `declare` registers them in a registry, and the function returned
 * finds them there (declared once per registry).
 */
export function ownMetrics<T>(declare: (registry: Registry) => T): (metrics: Metrics) => T {
  return (metrics) => metrics.own(declare);
}
