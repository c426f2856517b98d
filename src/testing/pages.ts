/**
 * A setting's name (SMTP_URL, APP_URL...) as a whole word: the operator's words, which no page
 * for a team or a recipient uses. A page's random tokens (base64url) may hold a run like
 * `NMCRJY_JAI` inside them, which names nothing.
 */
export const SETTING_NAME = /(?<![\w-])[A-Z]{3,}(?:_[A-Z0-9]+)+(?![\w-])/;
