import { entryKeys } from '../core/email-entries.ts';
import { timezoneOf } from '../core/zones.ts';
import { updateTeamSettings } from '../teams/commands.ts';
import { loadTeamSettings, type TeamSettings } from '../teams/repo.ts';
import type { DashboardUser } from './auth.ts';
import { asUser, doneOf, htmlPage, type Route, redirect, withUser } from './context.ts';
import { notFound } from './errors.ts';
import { FormBody, type FormState, formOf, refusedField } from './forms.ts';
import { notice } from './layout.ts';
import { TEAM_FIELDS, teamView } from './views/team.ts';

/** The team's own settings: its timezone and its internal domains. */
export const teamRoutes: Route = (app, deps) => {
  const settingsOf = async (user: DashboardUser): Promise<TeamSettings> => {
    const team = await loadTeamSettings(deps.db, user.teamId);
    if (!team) throw notFound();
    return team;
  };

  app.get(
    '/settings/team',
    withUser(async (request, reply, user) =>
      htmlPage(reply, teamView(user, await settingsOf(user), { top: notice(doneOf(request)) })),
    ),
  );

  app.post(
    '/settings/team',
    { schema: { body: FormBody } },
    withUser(async (request, reply, user) => {
      const before = await settingsOf(user);
      const sentBack = (form: FormState) => htmlPage(reply, teamView(user, before, { form }), 400);
      const form = formOf(request.body);
      const values = { timezone: form.get('timezone'), internalDomains: form.text('internalDomains') };
      const errors: FormState['errors'] = [];
      const timezone = timezoneOf(values.timezone);
      if (!timezone)
        errors.push({ field: 'timezone', message: 'Choose a timezone from the list, such as Europe/Paris' });
      const lines = values.internalDomains
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);
      const kept = entryKeys(lines);
      const wrong = kept.ok ? kept.keys.findIndex((key) => !key.startsWith('@')) : kept.index;
      if (!kept.ok || wrong >= 0) {
        errors.push({
          field: 'internalDomains',
          message: `Line ${wrong + 1} is not an @domain: ${lines[wrong]}`,
        });
      }
      if (errors.length > 0) return sentBack({ values, errors });
      const saved = await asUser(
        deps,
        user,
        {
          action: 'team.updated',
          subject: { type: 'team', id: user.teamId },
          before: { timezone: before.timezone, internalDomains: before.internalDomains },
          after: (team: TeamSettings) => ({ timezone: team.timezone, internalDomains: team.internalDomains }),
        },
        (ctx) => updateTeamSettings(ctx, user.teamId, { timezone, internalDomains: lines }),
      ).catch((err) => refusedField(err, request.body, TEAM_FIELDS));
      if ('errors' in saved) return sentBack(saved);
      return redirect(reply, '/app/settings/team?done=team-saved');
    }),
  );
};
