-- Each room's figures version: the delta module adds one in the transaction of every change
-- to a figure of the room, or to what its analytics name (a document's or link's name), so
-- a process may keep a room's rendered analytics while the version it read them at holds.
ALTER TABLE deal_rooms ADD COLUMN figures_version bigint NOT NULL DEFAULT 0;
