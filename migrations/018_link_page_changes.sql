-- A NOTIFY on dealroom_link_page whenever a statement changes what a link page shows or lets
-- through: a link's settings, its documents, their names, order and state, their files'
-- versions and drawn pages, a room's name. Sent at the writing transaction's commit, once per
-- transaction. The embedded store's process keeps links as the link page read them until told
-- (link-page/kept-links.ts); the counters the delta module keeps (clicks, views) are not
-- among these columns, so tracking never sends it.
CREATE FUNCTION dealroom_link_page_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dealroom_link_page', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER links_link_page AFTER INSERT OR DELETE OR TRUNCATE ON links
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();
CREATE TRIGGER links_link_page_settings
  AFTER UPDATE OF deal_room_id, name, short_id, enabled, requires_email, password_hash, expires_at,
    allow_download, all_documents, watermark, verify_email, allow_list, block_list, agreement ON links
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();

CREATE TRIGGER link_documents_link_page AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON link_documents
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();

CREATE TRIGGER documents_link_page AFTER INSERT OR DELETE OR TRUNCATE ON documents
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();
CREATE TRIGGER documents_link_page_shown
  AFTER UPDATE OF deal_room_id, name, display_name, page_count, status, position, download_override ON documents
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();

CREATE TRIGGER document_versions_link_page AFTER INSERT OR DELETE OR TRUNCATE ON document_versions
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();
CREATE TRIGGER document_versions_link_page_pages
  AFTER UPDATE OF document_id, version, content_type, page_count, pages_ready ON document_versions
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();

CREATE TRIGGER deal_rooms_link_page AFTER UPDATE OF name ON deal_rooms
  FOR EACH STATEMENT EXECUTE FUNCTION dealroom_link_page_changed();
