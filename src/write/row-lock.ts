/** FOR UPDATE: the row is changed or removed; FOR KEY SHARE: it must stay while events are added. */
export type RowLock = 'update' | 'key share' | 'none';
export const lockClause = (lock: RowLock, of: string) =>
  lock === 'none' ? '' : lock === 'update' ? ` FOR UPDATE OF ${of}` : ` FOR KEY SHARE OF ${of}`;
