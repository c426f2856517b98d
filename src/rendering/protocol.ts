/** What the listeners' threads and the file threads (task.ts) say to each other. */

/** A task a file thread takes; every path is a file of this process's temporary folder. */
export type FileTask =
  | { kind: 'warm' }
  | { kind: 'inspect'; path: string; type: string; maxPages: number; maxPixels: number }
  | { kind: 'render'; path: string; type: string; pages: number[]; widths: number[]; maxPixels: number }
  | { kind: 'watermark'; image: Uint8Array; lines: string[] }
  | { kind: 'stamp'; path: string; lines: string[] };

export interface PageImage {
  page: number;
  width: number;
  height: number;
  bytes: Uint8Array;
}

/** A file a thread could not read as what it claims to be: the pool's 415 unsupported_media_type. */
export const UNREADABLE = 'FILE_UNREADABLE: ';

/** Why a file was refused by a thread: a message the pool turns into 422 unprocessable_file. */
export const REFUSED = 'FILE_REFUSED: ';
