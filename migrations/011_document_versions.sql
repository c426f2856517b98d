-- Protected documents: a document's files are immutable versions, each rendered once to page
-- images that the link page serves instead of the file.

-- One row per file a document ever had. A version never changes after its upload, so a
-- download or a page image read from it is one version's bytes, whatever replaces it later.
-- The document's file is its newest version (document_files, below).
CREATE TABLE document_versions (
  id uuid PRIMARY KEY,
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  sha256 text NOT NULL,
  chunks integer NOT NULL,
  page_count integer NOT NULL CHECK (page_count >= 1),
  -- Pages rendered so far (pages 1..pages_ready have their images); the renderer's lease.
  pages_ready integer NOT NULL DEFAULT 0,
  render_claimed_until timestamptz,
  uploaded_at timestamptz NOT NULL,
  UNIQUE (document_id, version)
);
CREATE INDEX document_versions_rendering_idx ON document_versions (uploaded_at)
  WHERE pages_ready < page_count;

CREATE TABLE version_chunks (
  version_id uuid NOT NULL REFERENCES document_versions (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (version_id, seq)
);

-- A page of a version as an image (WebP), at each width the viewer asks for. An empty image
-- marks a page the renderer could not draw within its limits.
CREATE TABLE page_images (
  version_id uuid NOT NULL REFERENCES document_versions (id) ON DELETE CASCADE,
  page integer NOT NULL CHECK (page >= 1),
  width integer NOT NULL,
  height integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (version_id, page, width)
);

INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks,
                               page_count, uploaded_at)
SELECT gen_random_uuid(), f.document_id, 1, f.content_type, f.size_bytes, f.sha256, f.chunks,
       least(greatest(d.page_count, 1), 2000), f.uploaded_at
  FROM document_files f JOIN documents d ON d.id = f.document_id;
INSERT INTO version_chunks (version_id, seq, bytes)
SELECT v.id, c.seq, c.bytes
  FROM document_file_chunks c JOIN document_versions v ON v.document_id = c.document_id;
DROP TABLE document_file_chunks;
DROP TABLE document_files;

-- A document's file: its newest version.
CREATE VIEW document_files AS
SELECT DISTINCT ON (document_id)
       document_id, id AS version_id, version, content_type, size_bytes, sha256, chunks, page_count,
       pages_ready, uploaded_at
  FROM document_versions
 ORDER BY document_id, version DESC;

-- The version a view was reading, so that page figures stay per version after a replacement.
ALTER TABLE views ADD COLUMN version_id uuid REFERENCES document_versions (id) ON DELETE SET NULL;
UPDATE views SET version_id = v.id FROM document_versions v WHERE v.document_id = views.document_id;
CREATE INDEX views_version_idx ON views (version_id) WHERE version_id IS NOT NULL;

-- Reading reports carry an id: one sent again after a lost answer is counted once.
ALTER TABLE views ADD COLUMN last_report_id text;
