-- The live feeds show every download within a second of its commit (contract section 8). They
-- found downloads only through the viewers who had opened a document in the feed's window, so a
-- download by someone whose last view was earlier (a document left open, a download link
-- followed on its own, one recorded through the management API) never showed. Now they walk
-- each link's downloads newest first, as they do its visits: this index is that walk. At a
-- twentieth of a download per view it adds little to an import.
CREATE INDEX downloads_link_at_idx ON downloads (link_id, at);
