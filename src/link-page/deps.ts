import { Type } from '@sinclair/typebox';
import type { Mailer } from '../mail/mailer.ts';
import type { FileWork } from '../rendering/pool.ts';
import type { ReportReading } from '../tracking/reading.ts';
import type { StartView } from '../tracking/view-starts.ts';
import type { WriteContext } from '../write/transaction.ts';
import type { LinkPageLimiter } from './limits.ts';
import type { PublicLink, ShownDocument, ShownLink, ShownSelection } from './repo.ts';
import type { LinkSession, Signer } from './session.ts';

/** What the link page's routes are given by the web app (web/app.ts). */
export interface LinkPageDeps {
  write: WriteContext;
  startView: StartView;
  /** How reading reports are written (batched: tracking/reading.ts). */
  reportReading: ReportReading;
  signer: () => Promise<Signer>;
  secureCookies: boolean;
  /** The threads that draw watermarks and stamp downloads (rendering/pool.ts). */
  files: FileWork;
  /** The link pages' limits per visitor and address (limits.ts). */
  limiter: LinkPageLimiter;
  /** A link by its short id, with the documents the page needs (link-page/repo.ts). */
  findLink: (shortId: string, shown?: ShownSelection) => Promise<ShownLink | undefined>;
  /** Mails the gate's verification codes (SMTP_URL); a link that verifies emails cannot be opened without. */
  mailer?: Mailer | undefined;
  /** Tells the process's renderer that a viewer waits for a version's pages (documents/renderer.ts). */
  wantPages?: ((versionId: string) => void) | undefined;
}

/** A document's address on a link. */
export const DocumentParams = Type.Object({ shortId: Type.String(), documentId: Type.String() });

/** A document opened through a link by the session that passed its gate. */
export interface OpenDocument {
  shortId: string;
  link: PublicLink;
  document: ShownDocument;
  session: LinkSession;
  visitorId: string;
}
