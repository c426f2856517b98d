/**
 * The dashboard on the busy room of the data set: each page fetched one after another by a
 * signed-in owner (so the time is the server's, not a queue's), its median and slowest answer.
 */
import { dealroom } from './lib.ts';

export interface DashboardPageTime {
  page: string;
  path: string;
  bytes: number;
  p50: number;
  max: number;
}

const SAMPLES = 20;

/** Signs in a new owner of the team through an invitation, as a person does; the session cookie. */
export async function signIn(
  env: NodeJS.ProcessEnv,
  webBase: string,
  teamId: string,
  email = 'bench-owner@bench.example',
): Promise<string> {
  const invited = await dealroom(
    ['users', 'create', '--team', teamId, '--email', email, '--role', 'owner'],
    env,
  );
  const path = new URL(invited.stdout.trim()).pathname;
  const form = await fetch(`${webBase}${path}`);
  const formCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const token = /name="_form" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const accepted = await fetch(`${webBase}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      _form: token,
      password: 'bench password 1',
      confirm: 'bench password 1',
    }).toString(),
  });
  const session = accepted.headers.getSetCookie().find((c) => c.startsWith('dr_user='));
  if (accepted.status !== 303 || !session) throw new Error(`the invitation answered ${accepted.status}`);
  return session.split(';')[0] as string;
}

export async function benchDashboard(options: {
  env: NodeJS.ProcessEnv;
  webBase: string;
  readBase: string;
  key: string;
  teamId: string;
  busyRoomId: string;
}): Promise<DashboardPageTime[]> {
  const { webBase, busyRoomId } = options;
  const cookie = await signIn(options.env, webBase, options.teamId);
  const read = async (what: string) =>
    (
      (await (
        await fetch(`${options.readBase}/v1/deal-rooms/${busyRoomId}/${what}?per_page=1`, {
          headers: { 'x-api-key': options.key },
        })
      ).json()) as {
        data: { id: string }[];
      }
    ).data[0]?.id;
  const [documentId, linkId, viewerId] = [
    await read('documents'),
    await read('links'),
    await read('viewers'),
  ];
  const pages: [string, string][] = [
    ['rooms', '/app/rooms'],
    ['room overview, 30 days', `/app/rooms/${busyRoomId}`],
    ['room overview, 90 days', `/app/rooms/${busyRoomId}?period=90d`],
    ['room overview, all time', `/app/rooms/${busyRoomId}?period=all`],
    ['documents', `/app/rooms/${busyRoomId}/documents`],
    ['links', `/app/rooms/${busyRoomId}/links`],
    ['viewers', `/app/rooms/${busyRoomId}/viewers`],
    ['viewers, searched', `/app/rooms/${busyRoomId}/viewers?q=viewer1`],
    ['one viewer', `/app/viewers/${viewerId}`],
    ['one document (page figures, all time)', `/app/documents/${documentId}?period=all`],
    ['one link', `/app/links/${linkId}`],
    ['API keys', '/app/settings/keys'],
    ['webhooks', '/app/settings/webhooks'],
    ['users', '/app/settings/users'],
    ['audit log', '/app/settings/audit'],
  ];
  const times: DashboardPageTime[] = [];
  for (const [page, path] of pages) {
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SAMPLES + 2; i++) {
      const started = performance.now();
      const answer = await fetch(`${webBase}${path}`, { headers: { cookie } });
      const body = await answer.text();
      const took = performance.now() - started;
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      bytes = Buffer.byteLength(body);
      if (i >= 2) samples.push(took);
    }
    samples.sort((a, b) => a - b);
    times.push({
      page,
      path,
      bytes,
      p50: Math.round(samples[Math.floor(samples.length / 2)] ?? 0),
      max: Math.round(samples.at(-1) ?? 0),
    });
  }
  return times;
}
