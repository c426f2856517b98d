import { describe, expect, it } from 'vitest';
import { Admission } from './admission.ts';
import { DatabaseBusyError } from './database.ts';

const gate = () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

describe('admission to the connection pool', () => {
  it('runs up to its slots at once and the rest in arrival order', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 10, maxWaitMs: 10_000 });
    const order: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      admission.run(async () => {
        order.push(i);
        await g.opened;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1]);
    expect(admission.stats()).toEqual({ waits: 2, sheds: 0, waiting: 2 });
    gates[1]?.open();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(admission.stats().waiting).toBe(0);
  });

  it('refuses at once when the queue is full, and after the wait bound', async () => {
    const admission = new Admission({ slots: 1, maxWaiting: 1, maxWaitMs: 30 });
    const hold = gate();
    const holder = admission.run(() => hold.opened);
    const waiter = admission.run(async () => 'served');
    await expect(admission.run(async () => 'never')).rejects.toBeInstanceOf(DatabaseBusyError);
    await expect(waiter).rejects.toBeInstanceOf(DatabaseBusyError); // waited 30 ms
    expect(admission.stats()).toEqual({ waits: 1, sheds: 2, waiting: 0 });
    hold.open();
    await holder;
    await expect(admission.run(async () => 'served')).resolves.toBe('served');
  });
});
