import type { RawRecord } from './sources.ts';

type Raw = Record<string, unknown>;

/** An import in its JSON form, held in memory (demo data, tests). */
export interface Dataset {
  teams?: Raw[];
  dealRooms?: Raw[];
  documents?: Raw[];
  links?: Raw[];
  visits?: Raw[];
  views?: Raw[];
  downloads?: Raw[];
}

const SECTION_TYPES = [
  ['teams', 'team'],
  ['dealRooms', 'dealRoom'],
  ['documents', 'document'],
  ['links', 'link'],
  ['visits', 'visit'],
  ['views', 'view'],
  ['downloads', 'download'],
] as const;

/** The records of a dataset in import order, a section a batch, named as the JSON reader names them. */
export function* datasetRecords(data: Dataset): Generator<RawRecord[]> {
  for (const [section, type] of SECTION_TYPES) {
    yield (data[section] ?? []).map((raw, index) => ({ type, raw, where: `${section}[${index}]` }));
  }
}
