import { domainToUnicode } from 'node:url';
import { type Html, html } from '../../core/html.ts';
import type { TeamSettings } from '../../teams/repo.ts';
import type { DashboardUser } from '../auth.ts';
import { errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import { csrfField, mayChange } from '../layout.ts';
import { settingsPage } from './settings.ts';

/** The team form's fields: their labels. */
export const TEAM_FIELDS = { timezone: 'Timezone', internalDomains: 'Internal domains' };
const IDS = { timezone: 'team-timezone', internalDomains: 'internal-domains' };

/** Every timezone Intl knows, UTC first. */
export const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** The team's timezone and internal domains, and the form that changes them. */
export function teamView(
  user: DashboardUser,
  team: TeamSettings,
  o: { top?: Html | ''; form?: FormState } = {},
): string {
  const zone = typed(o.form, 'timezone', team.timezone);
  const zoneError = fieldError(o.form, 'timezone', IDS.timezone, 'team-timezone-hint');
  const domains = fieldError(o.form, 'internalDomains', IDS.internalDomains, 'internal-domains-hint');
  const kept = team.internalDomains.map((d) => `@${domainToUnicode(d.slice(1)) || d.slice(1)}`).join('\n');
  const disabled = mayChange(user) ? '' : html` disabled`;
  return settingsPage(
    user,
    'Team',
    'team',
    html`${errorSummary(o.form, IDS)}
${o.top ?? ''}
<form method="post" action="/app/settings/team" class="card stack" novalidate>${csrfField(user)}
  <h2>${team.name}</h2>
  <div class="field"><label for="team-timezone">Timezone</label>${zoneError.message}<select id="team-timezone" name="timezone"${zoneError.attributes}${disabled}>
    ${(ZONES.includes(zone) ? ZONES : [zone, ...ZONES]).map((z) => html`<option${z === zone ? html` selected` : ''}>${z}</option>`)}
  </select>
    <p class="hint" id="team-timezone-hint">Every time on the team's pages is shown in it (each person may choose their own on Account), and a link's expiry is typed in it.</p></div>
  <div class="field"><label for="internal-domains">Internal domains</label>${domains.message}<textarea id="internal-domains" name="internalDomains" rows="4"${domains.attributes}${disabled}>${typed(o.form, 'internalDomains', kept)}</textarea>
    <p class="hint" id="internal-domains-hint">One @domain a line, such as @yourcompany.com. Visits by these emails, and by the team's users, are shown as internal and left out of every figure and webhook.</p></div>
  ${mayChange(user) ? html`<button type="submit" class="primary">Save</button>` : ''}
</form>`,
  );
}
