-- Every event belongs to one deal room. When the room is deleted, its earlier events (their
-- payloads hold its viewers' emails) are marked, and the worker removes them once nothing is
-- pending for them; the room's own deal_room.deleted is recorded after the mark and ages out
-- like any other event.
ALTER TABLE webhook_events ADD COLUMN deal_room_id uuid;
ALTER TABLE webhook_events ADD COLUMN room_deleted boolean NOT NULL DEFAULT false;

UPDATE webhook_events e
   SET deal_room_id = CASE
         WHEN e.type LIKE 'deal\_room.%' THEN (e.payload -> 'data' ->> 'id')::uuid
         WHEN e.type LIKE 'document.%' THEN (SELECT d.deal_room_id FROM documents d WHERE d.id = (e.payload -> 'data' ->> 'id')::uuid)
         WHEN e.type LIKE 'link.%' THEN (SELECT l.deal_room_id FROM links l WHERE l.id = (e.payload -> 'data' ->> 'id')::uuid)
         ELSE (e.payload -> 'data' ->> 'dealRoomId')::uuid
       END;

-- Rooms deleted before this version: their earlier events go the same way.
UPDATE webhook_events e
   SET room_deleted = true
 WHERE e.deal_room_id IS NOT NULL
   AND e.type <> 'deal_room.deleted'
   AND NOT EXISTS (SELECT 1 FROM deal_rooms r WHERE r.id = e.deal_room_id);

CREATE INDEX webhook_events_room_idx ON webhook_events (deal_room_id);
CREATE INDEX webhook_events_room_deleted_idx ON webhook_events (id) WHERE room_deleted;
