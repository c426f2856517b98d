import { escapeHtml } from '../core/html.ts';
import { inZone } from '../core/zones.ts';
import type { Queryable } from '../db/database.ts';
import { type DigestFacts, digestFacts } from './digest.ts';
import { type VisitFacts, visitFacts, visitReading, visitRefusedDownloads } from './repo.ts';

/** An email as it is sent: its subject, plain text, and the same in HTML (no image, no outside address). */
export interface Composed {
  subject: string;
  text: string;
  html: string;
}

/** How long, in words: 45 s, 3 min 20 s, 1 h 5 min. */
export function spoken(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  return `${Math.floor(seconds / 3600)} h${Math.floor((seconds % 3600) / 60) ? ` ${Math.floor((seconds % 3600) / 60)} min` : ''}`;
}

/** Page numbers as ranges: 1-3, 5, 7-9. */
function pageRanges(pages: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && (pages[j + 1] as number) === (pages[j] as number) + 1) j++;
    ranges.push(i === j ? String(pages[i]) : `${pages[i]}-${pages[j]}`);
    i = j + 1;
  }
  return ranges.join(', ');
}

/**
 * A visit's email, composed when it is due: who (email, name, verified or not), through which
 * link, each document read with its pages and active time, any refused download, and whether
 * it is a return. Undefined when the visit is gone.
 */
export async function composeVisit(
  db: Queryable,
  o: { visitId: string; viewerId: string; zone: string; appUrl: string; unsubscribeUrl: string },
): Promise<Composed | undefined> {
  const visit = await visitFacts(db, o.visitId);
  if (!visit) return undefined;
  const range = { viewerId: o.viewerId, linkId: visit.link_id, from: visit.at, until: visit.until };
  const [reading, refused] = await Promise.all([visitReading(db, range), visitRefusedDownloads(db, range)]);
  const who = visit.email || 'An anonymous viewer';
  const subject = `${who} ${visit.returning ? 'came back to' : 'opened'} ${visit.room_name}`;
  const viewerUrl = `${o.appUrl}/app/viewers/${o.viewerId}`;
  const lines = [
    `${who}${visit.name ? ` (${visit.name})` : ''}${visit.returning ? ' came back to' : ' opened'} ${visit.room_name} through the link "${visit.link_name}" at ${inZone(visit.at, o.zone)}.`,
    visit.email
      ? visit.verified
        ? 'The email was verified with a code.'
        : 'The email was not verified.'
      : '',
    '',
    ...(reading.length === 0
      ? ['No document was opened yet.']
      : [
          'What they read:',
          ...reading.map(
            (d) =>
              `- ${d.title}: ${spoken(d.seconds)}${d.pages.length > 0 ? `, pages ${pageRanges(d.pages.map((p) => p.page))}` : ''}`,
          ),
        ]),
    ...(refused.length > 0 ? ['', `Refused downloads: ${refused.join(', ')}.`] : []),
    '',
    `Their timeline: ${viewerUrl}`,
    '',
    `Stop these emails for ${visit.room_name}: ${o.unsubscribeUrl}`,
  ].filter((line, i, all) => !(line === '' && all[i - 1] === ''));
  return {
    subject,
    text: lines.join('\n'),
    html: visitHtml(visit, who, reading, refused, o.zone, viewerUrl, o.unsubscribeUrl),
  };
}

function visitHtml(
  visit: VisitFacts,
  who: string,
  reading: Awaited<ReturnType<typeof visitReading>>,
  refused: string[],
  zone: string,
  viewerUrl: string,
  unsubscribeUrl: string,
): string {
  const e = escapeHtml;
  const rows = reading
    .map(
      (d) =>
        `<tr><td style="padding:6px 8px;border-top:1px solid #e5e7eb">${e(d.title)}</td><td style="padding:6px 8px;border-top:1px solid #e5e7eb;text-align:right">${e(spoken(d.seconds))}</td><td style="padding:6px 8px;border-top:1px solid #e5e7eb">${e(pageRanges(d.pages.map((p) => p.page)) || '—')}</td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(visit.room_name)}</title></head>
<body style="margin:0;padding:16px;background:#f4f6f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#2b2f38">
<div style="max-width:560px;margin:0 auto;background:#fff;border:1px solid #dfe3ea;border-radius:10px;padding:20px">
<p style="margin:0 0 4px;font-size:12px;letter-spacing:.06em;text-transform:uppercase;color:#5c6270">${visit.returning ? 'Return visit' : 'New visit'} · ${e(visit.room_name)}</p>
<h1 style="margin:0 0 8px;font-size:20px;color:#14213d">${e(who)}${visit.name ? ` <span style="font-weight:400;color:#5c6270">(${e(visit.name)})</span>` : ''}</h1>
<p style="margin:0 0 12px">Through “${e(visit.link_name)}” at ${e(inZone(visit.at, zone))}.${visit.email ? (visit.verified ? ' Email verified with a code.' : ' Email not verified.') : ''}</p>
${reading.length === 0 ? '<p>No document was opened yet.</p>' : `<table role="presentation" style="width:100%;border-collapse:collapse;font-size:14px"><tr><th style="text-align:left;padding:6px 8px">Document</th><th style="text-align:right;padding:6px 8px">Time</th><th style="text-align:left;padding:6px 8px">Pages</th></tr>${rows}</table>`}
${refused.length > 0 ? `<p style="margin:12px 0 0;color:#b42318">Refused downloads: ${e(refused.join(', '))}.</p>` : ''}
<p style="margin:16px 0 0"><a href="${e(viewerUrl)}" style="color:#1d4ed8">See their timeline</a></p>
<p style="margin:16px 0 0;font-size:12px;color:#5c6270"><a href="${e(unsubscribeUrl)}" style="color:#5c6270">Stop these emails for ${e(visit.room_name)}</a></p>
</div></body></html>`;
}

/** A day's digest for one user: the rooms they follow, what happened in them that day (in their zone). */
export async function composeDigest(
  db: Queryable,
  o: { userId: string; day: string; zone: string; appUrl: string; unsubscribeUrl: string },
): Promise<Composed> {
  const facts: DigestFacts = await digestFacts(db, o);
  const e = escapeHtml;
  const subject = `Your rooms on ${o.day}: ${facts.visits} visit${facts.visits === 1 ? '' : 's'}, ${facts.readers} reader${facts.readers === 1 ? '' : 's'}`;
  const lines = [
    `What happened on ${o.day} (${o.zone}) in the rooms you follow:`,
    '',
    `${facts.visits} visits, ${facts.readers} readers (${facts.newViewers} new, ${facts.returningViewers} returning), ${facts.views} documents opened.`,
    '',
    ...facts.rooms.flatMap((room) => [
      `${room.name}: ${room.visits} visits, ${room.readers} readers`,
      ...room.documents.map(
        (d) =>
          `- ${d.title}: ${d.views} views, ${spoken(d.seconds)}${d.topPage ? `, most read page ${d.topPage}` : ''}`,
      ),
      '',
    ]),
    `Open the dashboard: ${o.appUrl}/app/rooms`,
    '',
    `Stop the digest: ${o.unsubscribeUrl}`,
  ];
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(subject)}</title></head>
<body style="margin:0;padding:16px;background:#f4f6f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#2b2f38">
<div style="max-width:560px;margin:0 auto;background:#fff;border:1px solid #dfe3ea;border-radius:10px;padding:20px">
<p style="margin:0 0 4px;font-size:12px;letter-spacing:.06em;text-transform:uppercase;color:#5c6270">Daily digest · ${e(o.day)} (${e(o.zone)})</p>
<h1 style="margin:0 0 8px;font-size:20px;color:#14213d">${facts.visits} visits, ${facts.readers} readers</h1>
<p style="margin:0 0 12px">${facts.newViewers} new, ${facts.returningViewers} returning; ${facts.views} documents opened.</p>
${facts.rooms
  .map(
    (room) =>
      `<h2 style="font-size:16px;margin:16px 0 4px">${e(room.name)}</h2><p style="margin:0 0 4px">${room.visits} visits, ${room.readers} readers</p><ul style="margin:0;padding-left:20px">${room.documents.map((d) => `<li>${e(d.title)}: ${d.views} views, ${e(spoken(d.seconds))}${d.topPage ? `, most read page ${d.topPage}` : ''}</li>`).join('')}</ul>`,
  )
  .join('')}
<p style="margin:16px 0 0"><a href="${e(`${o.appUrl}/app/rooms`)}" style="color:#1d4ed8">Open the dashboard</a></p>
<p style="margin:16px 0 0;font-size:12px;color:#5c6270"><a href="${e(o.unsubscribeUrl)}" style="color:#5c6270">Stop the digest</a></p>
</div></body></html>`;
  return { subject, text: lines.join('\n'), html };
}
