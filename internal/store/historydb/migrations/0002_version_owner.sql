-- Whose text each version holds: the writer of the first version that
-- stored it (every version of one text has the same owner). When the
-- size cap is reached, each writer has an equal share of the room the
-- history has beyond the notes as they are, and room is made from the
-- texts of the writers over their share first, so that one app's flood
-- evicts its own versions before anyone else's. The owner lives on the
-- versions rather than on blobs, whose rows hold the texts: finding a
-- writer's oldest versions walks versions_owner alone.
ALTER TABLE versions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
UPDATE versions SET owner = (
    SELECT f.writer FROM versions f WHERE f.blob = versions.blob ORDER BY f.id LIMIT 1);
CREATE INDEX versions_owner ON versions (owner, time, id);
-- Each text's size without its row, which holds the text: summing the
-- past by owner reads this index, not the texts.
CREATE INDEX blobs_stored ON blobs (id, stored);
