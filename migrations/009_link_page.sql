-- The link page: document files, active reading time per page, and what the gate needs.

-- A document's file, in the database on both stores (every process sees it, and it changes in
-- the transaction of the document's change), in chunks of 1 MiB so that no statement holds a
-- whole file.
CREATE TABLE document_files (
  document_id uuid PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  sha256 text NOT NULL,
  chunks integer NOT NULL,
  uploaded_at timestamptz NOT NULL
);
CREATE TABLE document_file_chunks (
  document_id uuid NOT NULL REFERENCES document_files (document_id) ON DELETE CASCADE,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (document_id, seq)
);

-- A link may stamp the viewer's email and the time on what it shows and what it lets download.
ALTER TABLE links ADD COLUMN watermark boolean NOT NULL DEFAULT false;

-- Views opened on the link page report active time; the worker completes those whose reports
-- stopped. last_report_at is null for views recorded through the management API alone.
ALTER TABLE views ADD COLUMN last_report_at timestamptz;
CREATE INDEX views_reporting_idx ON views (last_report_at)
  WHERE completed_at IS NULL AND last_report_at IS NOT NULL;

-- Active seconds per view and page (their sum is the view's duration).
CREATE TABLE view_pages (
  view_id uuid NOT NULL REFERENCES views (id) ON DELETE CASCADE,
  page integer NOT NULL CHECK (page >= 1),
  active_seconds integer NOT NULL CHECK (active_seconds >= 0),
  PRIMARY KEY (view_id, page)
);

-- Kept by the delta module: per document, day (of the view's start) and page, the views with
-- active time on that page and their active seconds. Page figures read O(pages) rows a day.
CREATE TABLE document_page_daily (
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  day date NOT NULL,
  page integer NOT NULL,
  views integer NOT NULL DEFAULT 0,
  active_seconds bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (document_id, day, page)
);

-- Wrong link passwords, per link and client address: five in 15 minutes, then a wait.
CREATE TABLE gate_failures (
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  address text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX gate_failures_idx ON gate_failures (link_id, address, failed_at);

-- Secrets the service makes for itself (the link page's cookie signing key), shared by every
-- process on the store.
CREATE TABLE service_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL
);
