/**
 * Webhook delivery under load, through the real `dealroom serve` and its worker:
 * - the delay from a write's commit to the first attempt, with the queue idle;
 * - on PostgreSQL, a backlog of deliveries (written in one transaction) drained to a
 *   receiver on loopback over 5 endpoints, while a sixth endpoint answers in 2 s each time:
 *   the fast endpoints' rate, against a bare client POSTing the same bodies to the same
 *   receiver with as many connections (the baseline), and what the slow one held up.
 */
import pg from 'pg';
import { BENCH_TEAM_ID } from './generate.ts';
import { type LoadResult, load } from './lib.ts';

export interface WebhookReport {
  /** Commit to first attempt, in ms, over sequential writes with the queue idle. */
  idleLatency: { p50: number; max: number; samples: number };
  drain?: {
    deliveries: number;
    seconds: number;
    perSecond: number;
    /** The bare client's POSTs to the same receiver. */
    bare: LoadResult;
    slowDelivered: number;
    slowQueued: number;
    failed: number;
  };
}

const FAST_ENDPOINTS = 5;
// Enough to keep the slow endpoint busy (8 at a time, 2 s each) for longer than the backlog lasts.
const SLOW_DELIVERIES = 1000;

export async function benchWebhooks(options: {
  manageBase: string;
  adminToken: string;
  receiverBase: string;
  databaseUrl: string | undefined;
  backlog: number;
}): Promise<WebhookReport> {
  const { manageBase, adminToken, receiverBase } = options;
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${manageBase}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: { id: string } };
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const stats = async () =>
    (await (await fetch(`${receiverBase}/stats`)).json()) as {
      counts: Record<string, number>;
      last: Record<string, number>;
    };

  // Idle latency: one write at a time; the receiver notes when each delivery arrives.
  const team = await post('/teams', { name: 'Webhook bench' });
  await post(`/teams/${team.id}/webhook-endpoints`, {
    url: `${receiverBase}/latency`,
    events: ['deal_room.created'],
  });
  const delays: number[] = [];
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const before = (await stats()).counts['/latency'] ?? 0;
    const started = Date.now();
    await post(`/teams/${team.id}/deal-rooms`, { name: `Latency ${i}` });
    const by = Date.now() + 10_000;
    for (;;) {
      const now = await stats();
      if ((now.counts['/latency'] ?? 0) > before) {
        delays.push((now.last['/latency'] ?? 0) - started);
        break;
      }
      if (Date.now() > by) throw new Error('a delivery took over 10 s with the queue idle');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  delays.sort((a, b) => a - b);
  const idleLatency = {
    p50: delays[Math.floor(delays.length / 2)] ?? 0,
    max: delays.at(-1) ?? 0,
    samples: delays.length,
  };
  if (!options.databaseUrl) return { idleLatency };

  // The backlog: events and deliveries written straight into the outbox in one
  // transaction, as a burst of writes would leave them, spread over the fast endpoints.
  const fast: string[] = [];
  for (let i = 0; i < FAST_ENDPOINTS; i++) {
    fast.push(
      (await post(`/teams/${BENCH_TEAM_ID}/webhook-endpoints`, { url: `${receiverBase}/fast/${i}` })).id,
    );
  }
  const slowTeam = await post('/teams', { name: 'Slow receiver' });
  const slow = (await post(`/teams/${slowTeam.id}/webhook-endpoints`, { url: `${receiverBase}/slow/0` })).id;
  const sample = JSON.stringify({
    id: '00000000-0000-7000-8000-000000000000',
    dealRoomId: '00000000-0000-7000-8000-000000000001',
    documentId: '00000000-0000-7000-8000-000000000002',
    linkId: '00000000-0000-7000-8000-000000000003',
    viewerId: '00000000-0000-7000-8000-000000000004',
    startedAt: new Date().toISOString(),
    durationSeconds: 0,
  });
  const bodyBytes = Buffer.byteLength(sample) + 200;
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const backlog = options.backlog;
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMP TABLE bench_events ON COMMIT DROP AS
       SELECT gen_random_uuid() AS id, n FROM generate_series(1, $1::int + $2::int) AS n`,
      [backlog, SLOW_DELIVERIES],
    );
    await client.query(
      `INSERT INTO webhook_events (id, team_id, type, payload, created_at)
       SELECT b.id, CASE WHEN b.n > $2 THEN $4::uuid ELSE $1::uuid END, 'view.started',
              json_build_object('id', b.id, 'type', 'view.started', 'createdAt', now(), 'apiVersion', 'v1',
                                'teamId', CASE WHEN b.n > $2 THEN $4::uuid ELSE $1::uuid END, 'data', $3::json),
              now()
         FROM bench_events b`,
      [BENCH_TEAM_ID, backlog, sample, slowTeam.id],
    );
    await client.query(
      `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, state, next_attempt_at, created_at, updated_at)
       SELECT gen_random_uuid(), b.id,
              CASE WHEN b.n > $1 THEN $3::uuid ELSE ($2::uuid[])[1 + b.n % cardinality($2::uuid[])] END,
              'pending', now(), now(), now()
         FROM bench_events b`,
      [backlog, fast, slow],
    );
    await client.query('COMMIT');
    const started = Date.now();
    const count = async () =>
      (
        await client.query<{ done: number; slow: number; failed: number }>(
          `SELECT count(*) FILTER (WHERE state = 'succeeded' AND endpoint_id <> $1)::int AS done,
                  count(*) FILTER (WHERE state = 'succeeded' AND endpoint_id = $1)::int AS slow,
                  (SELECT count(*)::int FROM webhook_attempts WHERE status IS DISTINCT FROM 200) AS failed
             FROM webhook_deliveries`,
          [slow],
        )
      ).rows[0] as { done: number; slow: number; failed: number };
    let now = await count();
    while (now.done < backlog) {
      if (Date.now() - started > 600_000)
        throw new Error(`the backlog was not drained in 10 minutes (${now.done})`);
      await new Promise((r) => setTimeout(r, 100));
      now = await count();
    }
    const seconds = (Date.now() - started) / 1000;
    // The baseline: as many POSTs in flight as the worker allows the fast endpoints.
    const bare = await load(`${receiverBase}/bare`, {
      seconds: 5,
      connections: 8 * FAST_ENDPOINTS,
      method: 'POST',
      body: 'x'.repeat(bodyBytes),
    });
    return {
      idleLatency,
      drain: {
        deliveries: backlog,
        seconds,
        perSecond: backlog / seconds,
        bare,
        slowDelivered: now.slow,
        slowQueued: SLOW_DELIVERIES,
        failed: now.failed,
      },
    };
  } finally {
    await client.end();
  }
}
