import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { FormatRegistry, Type, TypeRegistry } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { ApiError } from '../core/errors.ts';
import { type Html, html } from '../core/html.ts';
import { isUuid } from '../core/ids.ts';
import { unstorableTextAt } from '../core/text.ts';
import { DashboardError, refusal } from './errors.ts';

/** Where the web app's form parser keeps every value of a urlencoded body. */
export const PARAMS = Symbol('form params');

/** Parses a urlencoded body: each field's first value, with every value kept beside it. */
export function parseForm(text: string): Record<string, string> {
  const params = new URLSearchParams(text);
  const body: Record<string, string> = {};
  for (const [name, value] of params) if (!(name in body)) body[name] = value;
  Object.defineProperty(body, PARAMS, { value: params, enumerable: false });
  return body;
}

/** A form's fields: the first value of each, and every value of a repeated one. */
export interface Form {
  /** The field's first value, trimmed. */
  get(name: string): string;
  /** The field's first value as sent (a password). */
  text(name: string): string;
  /** Every value of a repeated field. */
  all(name: string): string[];
}

export function formOf(body: unknown): Form {
  const fields = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const params = (fields as { [PARAMS]?: URLSearchParams })[PARAMS];
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    get: (name) => text(fields[name]).trim(),
    text: (name) => text(fields[name]),
    all: (name) => (params ? params.getAll(name) : fields[name] === undefined ? [] : [text(fields[name])]),
  };
}

export { FormBody } from '../core/schemas.ts';

/** What the pages read from their address: lenient, as a person types it (an unknown value is the default). */
export const QueryText = Type.Optional(Type.String({ maxLength: 500 }));
/** A page's address after a change: `done` names the notice it shows. */
export const DoneQuery = Type.Object({ done: QueryText });
/** A page of figures: its period, and the notice. */
export const PeriodQuery = Type.Object({ period: QueryText, done: QueryText });

/** A form sent back to its page: the values typed, and what is wrong with which field. */
export interface FormState {
  values: Record<string, string | string[]>;
  errors: { field: string; message: string }[];
}

/** How a form names its fields to people: the label of each, which the messages use. */
export type FieldLabels = Record<string, string>;

/** A form holding text no column can store (U+0000, an unpaired surrogate): a 400 page. */
export function unstorableForm(body: unknown): void {
  if (unstorableTextAt(body) === undefined) return;
  throw refusal('unstorableText');
}

FormatRegistry.Set('uuid', (value) => isUuid(value));
// The schemas' plain enums (core/fields.ts StringEnum), checked as JSON Schema reads them.
TypeRegistry.Set<{ enum?: unknown[] }>(
  'Unsafe',
  (schema, value) => typeof value === 'string' && (schema.enum === undefined || schema.enum.includes(value)),
);
FormatRegistry.Set(
  'date-time',
  (value) => /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !Number.isNaN(Date.parse(value)),
);

/**
 * Reads a form against the schema the management API validates the same change with, so a
 * rule lives once: text is trimmed (an empty optional field is absent, an empty nullable one
 * null), a checkbox is a boolean, a repeated field a list. The typed value, or the form's
 * state to show again with a message beside each field the schema refuses.
 */
export function readForm<T extends TObject>(
  schema: T,
  body: unknown,
  labels: FieldLabels,
): { ok: true; value: Static<T> } | { ok: false; state: FormState } {
  const form = formOf(body);
  const values: FormState['values'] = {};
  const input: Record<string, unknown> = {};
  // Only the fields the form has: one it leaves out keeps the schema's default.
  for (const name of Object.keys(labels)) {
    const field = schema.properties[name] as TSchema | undefined;
    if (!field) continue;
    const kind = kindOf(field);
    if (kind === 'array') {
      const all = form.all(name).map((v) => v.trim());
      values[name] = all;
      if (all.length > 0) input[name] = all;
      else if (isNullable(field)) input[name] = null;
      continue;
    }
    const text = form.get(name);
    values[name] = text;
    if (kind === 'boolean') input[name] = text !== '' && text !== 'no' && text !== 'false';
    else if (kind === 'integer' && /^-?\d{1,15}$/.test(text)) input[name] = Number(text);
    else if (text !== '' || !isOptional(schema, name))
      input[name] = text === '' && isNullable(field) ? null : text;
  }
  return checkForm(schema, input, { values, errors: [] }, labels);
}

/**
 * A form's input, shaped as the schema's change (by readForm, or by a form of its own), checked
 * against that schema: the typed value, or the state to send back with each refused field's
 * message added to those the form found itself.
 */
export function checkForm<T extends TObject>(
  schema: T,
  input: Record<string, unknown>,
  state: FormState,
  labels: FieldLabels,
): { ok: true; value: Static<T> } | { ok: false; state: FormState } {
  const seen = new Set(state.errors.map((e) => e.field));
  const messages = [...state.errors];
  for (const error of Value.Errors(schema, input)) {
    const field = error.path.split('/')[1] ?? '';
    if (seen.has(field)) continue;
    seen.add(field);
    messages.push({ field, message: messageOf(error, labels[field] ?? field) });
  }
  if (messages.length === 0) return { ok: true, value: input as Static<T> };
  return { ok: false, state: { values: state.values, errors: messages } };
}

function kindOf(schema: TSchema): string {
  const branches = (schema.anyOf as TSchema[] | undefined) ?? [schema];
  const typed = branches.find((b) => b.type !== 'null');
  return String(typed?.type ?? 'string');
}

function isNullable(schema: TSchema): boolean {
  return ((schema.anyOf as TSchema[] | undefined) ?? []).some((b) => b.type === 'null');
}

function isOptional(schema: TObject, name: string): boolean {
  return !(schema.required ?? []).includes(name);
}

/** What is wrong with a field, in words naming it as its label does. */
function messageOf(error: ValueError, label: string): string {
  const rules = error.schema as {
    minLength?: number;
    maxLength?: number;
    format?: string;
    errorMessage?: string;
  };
  const value = error.value;
  if (rules.errorMessage && value !== undefined && value !== '') return rules.errorMessage;
  if (typeof value === 'string' && (rules.maxLength !== undefined || rules.minLength !== undefined)) {
    const min = rules.minLength ?? 0;
    const max = rules.maxLength;
    if (max !== undefined && min > 0 && (value.trim() === '' || value.length > max)) {
      return `Give ${article(label)} of ${min} to ${max} characters`;
    }
    if (max !== undefined && value.length > max) return `${label} must be ${max} characters or fewer`;
    if (value.length < min) return `${label} must be at least ${min} characters`;
  }
  if (value === undefined || value === '') return `Enter ${article(label)}`;
  if (rules.format === 'date-time') return `${label} must be a date and time`;
  if (Array.isArray(value)) return `Choose ${label.toLowerCase()} from the list`;
  return `${label} is not in the allowed form`;
}

const article = (label: string) => `${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label.toLowerCase()}`;

/**
 * The error summary at the top of a page sent back (the GOV.UK Design System's pattern):
 * each message a link to its field.
 */
export function errorSummary(state: FormState | undefined, ids: Record<string, string>): Html | '' {
  if (!state || state.errors.length === 0) return '';
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
  <h2 id="error-summary-title">There is a problem</h2>
  <ul>${state.errors.map((e) => html`<li><a href="#${ids[e.field] ?? e.field}">${e.message}</a></li>`)}</ul>
</div>`;
}

/** The message beside a field, and the attributes that tie the field to it. */
export function fieldError(
  state: FormState | undefined,
  field: string,
  id: string,
  hint?: string,
): { message: Html | ''; attributes: Html | '' } {
  const error = state?.errors.find((e) => e.field === field);
  if (!error) return { message: '', attributes: hint ? html` aria-describedby="${hint}"` : '' };
  return {
    message: html`<p class="field-error" id="${id}-error"><span class="visually-hidden">Error:</span> ${error.message}</p>`,
    attributes: html` aria-invalid="true" aria-describedby="${id}-error${hint ? ` ${hint}` : ''}"`,
  };
}

/** The values typed in a field that may repeat (checkboxes). */
export function chosen(state: FormState | undefined, field: string): Set<string> {
  return new Set([state?.values[field] ?? []].flat());
}

/** A field's value as typed, or its value before. */
export function typed(state: FormState | undefined, field: string, before = ''): string {
  const value = state?.values[field];
  return typeof value === 'string' ? value : before;
}

/**
 * A domain function's refusal of a field (a validation error whose message starts with the
 * field's name, as the management API words them) as the form's state, to show it beside
 * that field; anything else is thrown on.
 */
export function refusedField(err: unknown, body: unknown, labels: FieldLabels): FormState {
  const message =
    err instanceof DashboardError
      ? err.status === 400
        ? err.detail
        : undefined
      : err instanceof ApiError && err.code === 'validation_error'
        ? err.message
        : undefined;
  const field = message ? Object.keys(labels).find((name) => message.startsWith(name)) : undefined;
  if (!message || !field) throw err;
  const form = formOf(body);
  const values = Object.fromEntries(
    Object.keys(labels).map((name) => {
      const all = form.all(name);
      return [name, all.length > 1 ? all : form.get(name)];
    }),
  );
  const label = labels[field] ?? field;
  return { values, errors: [{ field, message: `${label}${message.slice(field.length)}` }] };
}
