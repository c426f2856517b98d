/** HTML that is already safe: made by the `html` template, or a constant of the code's own. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/**
 * The one way pages are written: every value is escaped unless it is Html already, so names a
 * viewer or a team typed (documents, rooms, emails) are always shown as text.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(text);
}

export interface PageOptions {
  title: string;
  body: Html;
  /** Scripts of the service's own (no inline script anywhere: the CSP forbids it). */
  scripts?: readonly string[];
  /** Stylesheets of the service's own; the link page's when none is named. */
  stylesheets?: readonly string[];
  bodyClass?: string;
}

/** A whole page: the same head everywhere, the stylesheet and scripts from this origin only. */
export function page({
  title,
  body,
  scripts = [],
  stylesheets = ['/assets/link.css'],
  bodyClass,
}: PageOptions): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
${stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">`)}
${scripts.map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body class="${bodyClass ?? ''}">
${body}
</body>
</html>
`}`;
}
