/** Each command's usage: what `--help` and a wrong call print. Kept apart so that help loads nothing else. */

export const MIGRATE_USAGE = `dealroom migrate                   applies every migration not yet applied, each in its own transaction
dealroom migrate --dry-run         lists what would be applied, and applies nothing
dealroom migrate status            every migration, with when it was applied or "pending"`;

export const DOCUMENTS_USAGE = `dealroom documents upload DOC_ID FILE                stores FILE (PDF, PNG or JPEG) as the document's content; prints its page count`;

export const EXPORT_USAGE = `dealroom export viewers|documents|links|analytics --room ID [--format csv|json]
    [--period 7d|30d|90d|all] [--output FILE] [--api-key KEY] [--base-url URL]
  The key may also come from DEALROOM_API_KEY (safer than the command line), the base URL
  from DEALROOM_BASE_URL (default http://127.0.0.1:8080).`;

export const KEYS_USAGE = `dealroom keys create --team TEAM_ID [--name NAME]   prints the new key, alone on its line
dealroom keys list --team TEAM_ID
dealroom keys revoke KEY_ID`;

export const TEAMS_USAGE = `dealroom teams list                                  every team, oldest first: id, name, created
dealroom teams create NAME                           prints the new team's id, alone on its line`;

export const USERS_USAGE = `dealroom users create --team TEAM_ID --email EMAIL [--role owner|admin|member]   prints an invitation address (7 days, once)
dealroom users list --team TEAM_ID`;

export const WEBHOOKS_USAGE = `dealroom webhooks add --team TEAM_ID --url URL [--events TYPE,...]   prints the secret
dealroom webhooks list --team TEAM_ID
dealroom webhooks remove ENDPOINT_ID
dealroom webhooks rotate-secret ENDPOINT_ID                              prints the new secret
dealroom webhooks retire-secrets ENDPOINT_ID                             earlier secrets stop signing now
dealroom webhooks attempts ENDPOINT_ID [--limit N]                       newest first
dealroom webhooks dead-letters --team TEAM_ID [--limit N]
dealroom webhooks replay DEAD_LETTER_ID | --endpoint ENDPOINT_ID         one, or all of an endpoint's`;
