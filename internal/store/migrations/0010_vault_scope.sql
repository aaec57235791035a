-- The part of the vault each credential may use (issue 19): the encoded
-- scope of internal/vault/scope, '' for the whole vault without private
-- notes, which is what every credential had before. A code carries the
-- scope the owner chose on the consent page to the grant it becomes; the
-- grant keeps it through refresh. (The scope columns of 0003 are OAuth's
-- notes:read / notes:write.)
ALTER TABLE tokens ADD COLUMN vault_scope TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_codes ADD COLUMN vault_scope TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_grants ADD COLUMN vault_scope TEXT NOT NULL DEFAULT '';
