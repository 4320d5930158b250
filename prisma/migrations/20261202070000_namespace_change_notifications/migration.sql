-- Namespace rows (issue 13): every page of secrets, configurations or agents is reached through
-- namespace(id), so an API process keeps the namespace rows it has read beside the keys, sessions
-- and bindings of its authentication cache, and must forget them when any namespace changes, in
-- any process. The changes are announced on the same channel by the same function. Namespaces
-- change only as they are provisioned, fail or go, so this empties the cache seldom. A new
-- namespace changes nothing a process holds (a miss is never kept), so it announces nothing.
CREATE TRIGGER occ_auth_changed AFTER UPDATE OR DELETE ON "Namespace" FOR EACH ROW EXECUTE FUNCTION occ_auth_changed();
CREATE TRIGGER occ_auth_truncated AFTER TRUNCATE ON "Namespace" FOR EACH STATEMENT EXECUTE FUNCTION occ_auth_changed();
