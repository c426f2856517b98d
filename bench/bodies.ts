/** A fixed JSON body of about the size asked for (`{"data":"xxx…"}`, empty under 10 bytes), made once per size. */
const bodies = new Map<number, string>();

export function bodyOf(size: string): string {
  const n = Math.min(Number(size) || 0, 1 << 24);
  let body = bodies.get(n);
  if (body === undefined) {
    body = n < 10 ? '' : `{"data":"${'x'.repeat(n - 10)}"}`;
    bodies.set(n, body);
  }
  return body;
}
