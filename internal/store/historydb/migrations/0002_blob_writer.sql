-- Who added each content: the writer of the version that first stored
-- it. When the size cap is reached, each writer has an equal share of the
-- history, and room is made from the writers furthest over their share
-- first, so that one app's flood evicts its own versions before anyone
-- else's. A writer's total is kept by triggers, like totals.stored.
ALTER TABLE blobs ADD COLUMN writer TEXT NOT NULL DEFAULT '';
UPDATE blobs SET writer = COALESCE(
    (SELECT writer FROM versions WHERE versions.blob = blobs.id ORDER BY id LIMIT 1), '');
CREATE INDEX blobs_writer ON blobs (writer);

CREATE TABLE writer_totals (
    writer TEXT    PRIMARY KEY,
    stored INTEGER NOT NULL -- compressed bytes of the contents it added
) STRICT;
INSERT INTO writer_totals (writer, stored) SELECT writer, SUM(stored) FROM blobs GROUP BY writer;

CREATE TRIGGER blobs_writer_added AFTER INSERT ON blobs BEGIN
    INSERT OR IGNORE INTO writer_totals (writer, stored) VALUES (NEW.writer, 0);
    UPDATE writer_totals SET stored = stored + NEW.stored WHERE writer = NEW.writer;
END;
CREATE TRIGGER blobs_writer_removed AFTER DELETE ON blobs BEGIN
    UPDATE writer_totals SET stored = stored - OLD.stored WHERE writer = OLD.writer;
    DELETE FROM writer_totals WHERE writer = OLD.writer AND stored <= 0;
END;
