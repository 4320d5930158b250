-- Authentication reads (issue 13): an API process keeps keys, sessions and the bindings of the
-- callers it has authenticated in memory, and must forget them when any of them changes, in any
-- process. These triggers announce every such change on the channel occ_auth_changed at commit
-- (NOTIFY is transactional: a rolled-back change announces nothing). The payload names the table
-- only. An API key whose lastUsedAt alone moved, and a new key or session, change nothing a
-- process holds, so they announce nothing. (No apostrophes in these comments, and the semicolons
-- of the function body written as the escape 003B: the statement splitter of the migration runner
-- reads apostrophes in comments as quotes, and ends a statement at every semicolon, in quotes or
-- dollar quotes too.)
CREATE FUNCTION occ_auth_changed() RETURNS trigger LANGUAGE plpgsql AS U&'
BEGIN
  IF TG_OP = ''UPDATE'' AND TG_TABLE_NAME = ''ApiKey'' AND (to_jsonb(OLD) - ''lastUsedAt'') = (to_jsonb(NEW) - ''lastUsedAt'') THEN
    RETURN NULL\003B
  END IF\003B
  PERFORM pg_notify(''occ_auth_changed'', TG_TABLE_NAME)\003B
  RETURN NULL\003B
END
';

CREATE TRIGGER occ_auth_changed AFTER UPDATE OR DELETE ON "ApiKey" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_changed AFTER UPDATE OR DELETE ON "Session" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_changed AFTER UPDATE OR DELETE ON "Principal" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_changed AFTER INSERT OR UPDATE OR DELETE ON "AccessBinding" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_changed AFTER INSERT OR UPDATE OR DELETE ON "Role" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "ApiKey" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "Session" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "Principal" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "AccessBinding" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "Role" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
