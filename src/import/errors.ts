/** A bad record: where it stands in the input, which field, and what is wrong with it. */
export class ImportError extends Error {
  constructor(
    readonly where: string,
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super(`${where}${field ? `, field "${field}"` : ''}: ${problem}`);
  }
}
