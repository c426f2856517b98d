/**
 * Joins each document `d` to its file, its newest version, as `f`, with the columns of the
 * `document_files` view (migration 011): one probe of `(document_id, version)` per document.
 * Joined to the view instead, PostgreSQL cannot bring the join's condition inside the view's
 * DISTINCT ON, so it read and sorted every version in the store on each query (the link
 * page's room page and viewer, the dashboard's documents). A lookup of one document by
 * `document_id = $1` may use the view: that condition does reach inside.
 */
export const NEWEST_FILE_JOIN = `LEFT JOIN LATERAL (
    SELECT v.document_id, v.id AS version_id, v.version, v.content_type, v.size_bytes, v.sha256,
           v.chunks, v.page_count, v.pages_ready, v.uploaded_at
      FROM document_versions v
     WHERE v.document_id = d.id
     ORDER BY v.version DESC
     LIMIT 1) f ON true`;
