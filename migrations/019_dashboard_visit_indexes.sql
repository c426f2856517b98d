-- Two of the dashboard's pages read visits by something no index led with, so each request
-- scanned every visit of every team (about 100 ms at a million visits on PostgreSQL, 270 ms on
-- the embedded store, growing with the whole store rather than with what the page shows).
--
-- A room's viewers and one viewer are marked "Verified" when any of their visits proved the
-- email: few visits do, so an index of those alone answers each viewer at once.
CREATE INDEX visits_verified_viewer_idx ON visits (viewer_id) WHERE verified;
-- A link's page lists who came through it, latest first, with their visits: read from this
-- index alone (the viewer, time and kind of each of the link's visits), not from every visit.
CREATE INDEX visits_link_idx ON visits (link_id) INCLUDE (viewer_id, at, internal);
