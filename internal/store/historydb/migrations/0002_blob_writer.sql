-- Who added each content: the writer of the version that first stored
-- it. When the size cap is reached, each writer has an equal share of the
-- room the history has beyond the notes as they are, and room is made
-- from the texts of the writers over their share first, so that one
-- app's flood evicts its own versions before anyone else's.
ALTER TABLE blobs ADD COLUMN writer TEXT NOT NULL DEFAULT '';
UPDATE blobs SET writer = COALESCE(
    (SELECT writer FROM versions WHERE versions.blob = blobs.id ORDER BY id LIMIT 1), '');
CREATE INDEX blobs_writer ON blobs (writer);
