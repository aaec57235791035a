-- What the owner's --backup-command made of each scheduled backup: the
-- hand-off of the archive to another machine (rclone, restic, scp).
ALTER TABLE backups ADD COLUMN command TEXT NOT NULL DEFAULT '';        -- "" (none run), "ok" or "failed"
ALTER TABLE backups ADD COLUMN command_detail TEXT NOT NULL DEFAULT ''; -- its exit status and last line of output
