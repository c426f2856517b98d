/**
 * The write side under load: view starts through the management API on the busy room, from
 * 50 concurrent writers, while a read load runs on the same server; each figure against the
 * same read measured alone just before.
 */
import autocannon from 'autocannon';
import { type LoadResult, load } from './lib.ts';

export interface WriteReport {
  viewStarts: LoadResult;
  /** A bare route answering POSTs of the same sizes from as many writers, just before. */
  bare: LoadResult;
  readAlone: LoadResult;
  readDuringWrites: LoadResult;
  readPath: string;
}

export async function benchWrites(options: {
  readBase: string;
  manageBase: string;
  bareBase: string;
  adminToken: string;
  key: string;
  busyRoomId: string;
  seconds: number;
  connections: number;
}): Promise<WriteReport> {
  const { readBase, manageBase, bareBase, adminToken, key, busyRoomId, seconds, connections } = options;
  const readHeaders = { 'x-api-key': key };
  const list = async (what: string) => {
    const res = await fetch(`${readBase}/v1/deal-rooms/${busyRoomId}/${what}?per_page=100`, {
      headers: readHeaders,
    });
    return ((await res.json()) as { data: { id: string; isActive?: boolean }[] }).data;
  };
  const links = (await list('links')).filter((l) => l.isActive).map((l) => l.id);
  const documents = (await list('documents')).map((d) => d.id);
  if (links.length === 0 || documents.length === 0)
    throw new Error('the busy room has no open link or document');

  const body = (n: number) =>
    JSON.stringify({
      documentId: documents[n % documents.length],
      viewer: { email: `live-${n}@bench.example` },
    });
  const answered = await fetch(`${manageBase}/links/${links[0]}/views`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body(0),
  });
  if (answered.status !== 201) throw new Error(`a view start answered ${answered.status}`);
  const bare = await load(`${bareBase}/bytes/${Buffer.byteLength(await answered.text())}`, {
    seconds,
    connections,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(1),
  });

  const readPath = `${readBase}/v1/deal-rooms/${busyRoomId}`;
  const readAlone = await load(readPath, { seconds, connections, headers: readHeaders });
  let n = 0;
  const writes = autocannon({
    url: manageBase,
    connections,
    duration: seconds + 1,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        setupRequest: (request) => {
          n++;
          // New and returning viewers, as live tracking sees them.
          const viewer =
            n % 4 === 0
              ? { email: `live-${n}@bench.example` }
              : { email: `returning-${n % 5000}@bench.example` };
          return {
            ...request,
            path: `/links/${links[n % links.length]}/views`,
            body: JSON.stringify({ documentId: documents[n % documents.length], viewer }),
          };
        },
      },
    ],
  });
  await new Promise((r) => setTimeout(r, 500));
  const readDuringWrites = await load(readPath, { seconds: seconds - 1, connections, headers: readHeaders });
  const run = await writes;
  return {
    readPath,
    bare,
    readAlone,
    readDuringWrites,
    viewStarts: {
      rps: run.requests.average,
      p50: run.latency.p50,
      p99: run.latency.p99,
      non2xx: run.non2xx,
      errors: run.errors + run.timeouts,
    },
  };
}
